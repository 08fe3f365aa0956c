"""The bot of docs/python.md runs as pasted, against the in-process simulator."""

import pathlib
import re
import subprocess
import sys

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_the_guide_bot_runs(tmp_path):
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    script = tmp_path / "bot.py"
    script.write_text(code)
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert re.search(r"^\d+ fills: bought \d", run.stdout, re.M), run.stdout
    assert "filled:" in run.stdout
    assert re.search(r"^USDT free \d+(\.\d+)? total", run.stdout, re.M)


def test_the_guide_backtest_runs(tmp_path):
    code = next(
        c for c in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "digifinex.backtest(" in c
    )
    script = tmp_path / "backtest.py"
    script.write_text(code)
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert re.search(r"^fills: [1-9]\d* pnl: -?\d+(\.\d+)?$", run.stdout, re.M), run.stdout
    assert (tmp_path / "report" / "report.json").exists()
    assert (tmp_path / "report" / "report.html").exists()
