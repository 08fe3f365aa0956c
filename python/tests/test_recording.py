"""Recordings read into pyarrow tables, exactly: compared with the recording's own text read
as decimals."""

import gzip
import json
import pathlib
import warnings
from decimal import Decimal as D

import pytest

import digifinex

pa = pytest.importorskip("pyarrow")

# A recording in the repository (sim/tests/data/SOURCES.md says where each part comes from).
SAMPLE = pathlib.Path(__file__).resolve().parents[2] / "sim" / "tests" / "data" / "sample-icp.jsonl.gz"


def records():
    with gzip.open(SAMPLE, "rt") as f:
        lines = [json.loads(line, parse_float=D) for line in f]
    return lines[1:]  # the header first


def test_tables_and_types():
    tables = digifinex.read_recording(SAMPLE)
    assert {"book", "trades", "tickers", "funding", "mark_index"} <= set(tables)
    book = tables["book"]
    assert book.schema.field("price").type == pa.decimal128(38, 18)
    assert book.schema.field("qty").type == pa.decimal128(38, 18)
    assert pa.types.is_timestamp(book.schema.field("time").type)
    assert book.schema.field("time").type.tz == "UTC"


def test_trades_are_exact():
    seen = {}
    for r in records():
        if r["kind"] == "spot_trades":
            for t in r["trades"]:
                seen[("spot", t["id"])] = D(t["qty"]) * D(t["price"])
        elif r["kind"] == "swap_trades":
            for t in r["trades"]:
                seen[("swap", t["id"])] = D(t["qty"]) * D(t["price"])
    trades = digifinex.read_recording(SAMPLE)["trades"]
    assert trades.num_rows == len(seen) > 0
    rows = trades.select(["family", "id", "price", "qty"]).to_pylist()
    assert all(isinstance(r["price"], D) for r in rows)
    got = {(r["family"], r["id"]): r["qty"] * r["price"] for r in rows}
    assert got == seen
    assert sum(got.values()) == sum(seen.values())


def test_book_levels_are_the_recorded_ones():
    first = next(r for r in records() if r["kind"] == "spot_book")
    book = digifinex.read_recording(SAMPLE)["book"]
    rows = [r for r in book.to_pylist() if r["family"] == "spot"][: len(first["bids"]) + len(first["asks"])]
    bids = [[r["price"], r["qty"]] for r in rows if r["side"] == "bid"]
    assert bids == [[D(p), D(q)] for p, q in first["bids"]]


def test_top_of_book_columns():
    top = digifinex.read_recording(SAMPLE, top=2)["book_top"]
    assert "bid_price_1" in top.column_names and "ask_qty_2" in top.column_names
    assert "bid_price_3" not in top.column_names


def test_a_damaged_recording_warns_and_keeps_the_rest(tmp_path):
    with gzip.open(SAMPLE, "rt") as f:
        lines = f.read().splitlines()
    damaged = tmp_path / "damaged.jsonl.gz"
    with gzip.open(damaged, "wt") as f:
        f.write("\n".join(lines[:5] + ["{not json"] + lines[5:]) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tables = digifinex.read_recording(damaged)
    assert any(issubclass(w.category, digifinex.RecordingWarning) for w in caught)
    assert tables["trades"].num_rows == digifinex.read_recording(SAMPLE)["trades"].num_rows


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        digifinex.read_recording(tmp_path / "nope.jsonl.gz")
