"""A nautilus_trader catalog written from a recording, read back exactly, and a BacktestNode
run over it (nautilus_trader from PyPI; CI installs it, elsewhere the test is skipped without
it)."""

import gzip
import json
import os
import pathlib
from decimal import Decimal as D

import pytest

if os.environ.get("CI"):
    import nautilus_trader  # noqa: F401  (CI must have it: never skipped there)
else:
    pytest.importorskip("nautilus_trader")

import digifinex.nautilus

SAMPLE = pathlib.Path(__file__).resolve().parents[2] / "sim" / "tests" / "data" / "sample-icp.jsonl.gz"


def recorded():
    with gzip.open(SAMPLE, "rt") as f:
        return [json.loads(line, parse_float=D) for line in f][1:]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("catalog")
    counts = digifinex.nautilus.write_catalog(SAMPLE, path)
    return path, counts


def test_instruments_at_the_markets_precisions(catalog):
    from nautilus_trader.persistence.catalog import ParquetDataCatalog

    path, counts = catalog
    assert counts["instruments"] == 2
    inst = {str(i.id): i for i in ParquetDataCatalog(str(path)).instruments()}
    spot, swap = inst["ICP_USDT.DIGIFINEX"], inst["ICPUSDTPERP.DIGIFINEX"]
    assert (spot.price_precision, spot.size_precision) == (3, 2)
    assert str(spot.price_increment) == "0.001" and str(spot.size_increment) == "0.01"
    assert swap.price_precision == 3 and str(swap.multiplier) == "1"
    assert not swap.is_inverse


def test_trades_and_books_are_exact(catalog):
    from nautilus_trader.model.enums import BookAction, RecordFlag
    from nautilus_trader.persistence.catalog import ParquetDataCatalog

    path, counts = catalog
    c = ParquetDataCatalog(str(path))
    want = {}
    snapshots = levels = 0
    for r in recorded():
        if r["kind"] in ("spot_trades", "swap_trades"):
            for t in r["trades"]:
                want[t["id"]] = (D(t["price"]), D(t["qty"]), t["side"])
        if r["kind"] in ("spot_book", "swap_book"):
            snapshots += 1
            levels += len(r["bids"]) + len(r["asks"])
    ticks = c.trade_ticks()
    assert counts["trades"] == len(ticks) == len(want)
    for tick in ticks:
        price, qty, side = want[tick.trade_id.value]
        assert (D(str(tick.price)), D(str(tick.size))) == (price, qty)
        assert tick.aggressor_side.name == ("BUYER" if side == "buy" else "SELLER")
    deltas = c.order_book_deltas()
    # Every recorded book here is a snapshot: a CLEAR, then one ADD per level.
    assert counts["deltas"] == len(deltas) == snapshots + levels
    assert sum(d.action == BookAction.CLEAR for d in deltas) == snapshots
    assert sum(bool(d.flags & RecordFlag.F_LAST) for d in deltas) == snapshots


def test_funding_rates(catalog):
    from nautilus_trader.model.data import FundingRateUpdate
    from nautilus_trader.persistence.catalog import ParquetDataCatalog

    path, counts = catalog
    digifinex.nautilus.register_funding()
    rates = ParquetDataCatalog(str(path)).query(FundingRateUpdate)
    assert counts["funding"] == len(rates) == sum(r["kind"] == "funding" for r in recorded())
    assert all(r.rate == D("0.0001") for r in rates)
    assert all(r.next_funding_ns == 1706774400000000000 for r in rates)


def test_a_backtest_node_runs_over_it(catalog):
    from nautilus_trader.backtest.node import BacktestNode
    from nautilus_trader.config import (
        BacktestDataConfig,
        BacktestEngineConfig,
        BacktestRunConfig,
        BacktestVenueConfig,
        LoggingConfig,
    )
    from nautilus_trader.model.data import OrderBookDelta, TradeTick
    from nautilus_trader.model.identifiers import InstrumentId

    path, _ = catalog
    iid = InstrumentId.from_str("ICP_USDT.DIGIFINEX")
    run = BacktestRunConfig(
        engine=BacktestEngineConfig(logging=LoggingConfig(log_level="ERROR")),
        venues=[
            BacktestVenueConfig(
                name="DIGIFINEX",
                oms_type="NETTING",
                account_type="CASH",
                base_currency=None,
                starting_balances=["10000 USDT", "100 ICP"],
                book_type="L2_MBP",
            )
        ],
        data=[
            BacktestDataConfig(catalog_path=str(path), data_cls=OrderBookDelta, instrument_id=iid),
            BacktestDataConfig(catalog_path=str(path), data_cls=TradeTick, instrument_id=iid),
        ],
    )
    (result,) = BacktestNode(configs=[run]).run()
    first = next(r for r in recorded() if r["kind"] == "spot_book")
    last = [r for r in recorded() if r["kind"] == "spot_book"][-1]
    assert result.backtest_start == first["t"] * 1_000_000
    assert result.backtest_end == last["t"] * 1_000_000
    assert result.iterations > 0
