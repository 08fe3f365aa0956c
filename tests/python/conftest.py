"""Fixtures: the `digifinex` binary (built with `cargo build -p digifinex-cli --features
s3`, which includes `export`; `DIGIFINEX` names it, else `$CARGO_TARGET_DIR/debug/digifinex` or `target/...`), a
websocket recording made against the embedded simulator, its Tardis export, and a dataset of
several recordings."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def binary():
    if os.environ.get("DIGIFINEX"):
        return Path(os.environ["DIGIFINEX"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    return target / "debug" / "digifinex"


def run(*args):
    """Runs `digifinex ARGS`; its stderr when it succeeds, a failed test when it does not."""
    p = subprocess.run([str(binary()), *map(str, args)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    assert p.returncode == 0, f"digifinex {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}"
    return p.stderr


@pytest.fixture(scope="session")
def digifinex():
    exe = binary()
    assert exe.exists(), f"{exe}: build it with `cargo build -p digifinex-cli --features s3`"
    return run


def record_ws(run, path, seconds):
    """Every websocket depth frame, trade, ticker, index, mark and funding push of two spot
    pairs and a swap instrument of the embedded simulator, for `seconds`."""
    run("record", "--sim", "--source", "ws", "--spot", "btc_usdt,eth_usdt", "--swap", "BTCUSDTPERP",
        "--duration-s", seconds, "--out", path)
    return path


@pytest.fixture(scope="session")
def ws_recording(digifinex, tmp_path_factory):
    return record_ws(digifinex, tmp_path_factory.mktemp("ws") / "ws.jsonl.gz", 4)


@pytest.fixture(scope="session")
def tardis_dir(digifinex, ws_recording, tmp_path_factory):
    out = tmp_path_factory.mktemp("tardis")
    digifinex("market", "export", ws_recording, "--format", "tardis", "--out", out)
    return out


@pytest.fixture(scope="session")
def dataset(digifinex, ws_recording, tmp_path_factory):
    """A dataset of three recordings: the websocket one, a REST polling one of the simulator
    and the committed REST sample (ICP_USDT, prices with three decimals), in small files (1 KiB
    target: several files per partition)."""
    d = tmp_path_factory.mktemp("dataset")
    rest = d / "rest.jsonl.gz"
    digifinex("record", "--sim", "--spot", "btc_usdt", "--swap", "BTCUSDTPERP", "--interval-ms", "200",
              "--duration-s", "2", "--out", rest)
    sample = ROOT / "sim" / "tests" / "data" / "sample-icp.jsonl.gz"
    inputs = [ws_recording, rest, sample]
    ds = d / "ds"
    digifinex("market", "export", *inputs, "--dataset", ds, "--file-size", "1K")
    return ds, inputs
