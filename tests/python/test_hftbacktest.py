"""hftbacktest (PyPI) reads the Tardis export as it reads Tardis.dev's files: its
`tardis.convert` over the trades and incremental_book_L2 files gives exactly the recording's
trades and books, and a backtest runs over the result."""

from decimal import Decimal

import numpy as np
import pytest
from hftbacktest import (BUY_EVENT, DEPTH_CLEAR_EVENT, DEPTH_EVENT, DEPTH_SNAPSHOT_EVENT, FILLED, GTC,
                         LIMIT, LOCAL_EVENT, SELL_EVENT, TRADE_EVENT, BacktestAsset,
                         HashMapMarketDepthBacktest)
from hftbacktest.data.utils import tardis

import recording

MARKETS = [("spot", "btc_usdt", "digifinex", "BTC_USDT"), ("swap", "BTCUSDTPERP", "digifinex-swap", "BTCUSDTPERP")]
MS = 1_000_000  # nanoseconds


def files(tardis_dir, exchange, data_type, symbol):
    found = sorted(tardis_dir.glob(f"{exchange}_{data_type}_*_{symbol}.csv.gz"))
    assert found, f"no {exchange} {data_type} file for {symbol} in {sorted(tardis_dir.iterdir())}"
    return [str(f) for f in found]


def convert(tardis_dir, exchange, symbol):
    # As hftbacktest's documentation shows: the trades files before the depth files.
    return tardis.convert(files(tardis_dir, exchange, "trades", symbol)
                          + files(tardis_dir, exchange, "incremental_book_L2", symbol))


def local(events, kinds):
    """The events a strategy sees (each event is in the converted data once with the local
    flag), of the given kinds, in local time order."""
    ev = events["ev"].astype(np.uint64)
    keep = ((ev & LOCAL_EVENT) != 0) & np.isin(ev & 0xFF, kinds)
    return events[keep]


@pytest.mark.parametrize("family,name,exchange,symbol", MARKETS)
def test_convert_reads_the_recorded_trades(ws_recording, tardis_dir, family, name, exchange, symbol):
    _, records = recording.read(ws_recording)
    expected = recording.trades(records, family, name)
    assert expected, "the recording has no trades"
    got = local(convert(tardis_dir, exchange, symbol), [TRADE_EVENT])
    assert len(got) == len(expected)
    for e, (t, time, _id, side, price, qty) in zip(got, expected):
        ev = int(e["ev"])
        assert (ev & BUY_EVENT != 0, ev & SELL_EVENT != 0) == (side == "buy", side == "sell")
        # Tardis's microseconds, times 1000.
        assert int(e["exch_ts"]) == time * MS
        assert int(e["local_ts"]) == t * MS
        assert float(e["px"]) == float(price)
        assert float(e["qty"]) == float(qty)


def apply(book, events):
    """hftbacktest's market depth rules: a clear empties a side from its best level down to
    the clear's price; a snapshot or depth event sets the level, amount 0 deletes it."""
    bids, asks = book
    for e in events:
        ev = int(e["ev"])
        side = bids if ev & BUY_EVENT else asks
        px, qty = float(e["px"]), float(e["qty"])
        if ev & 0xFF == DEPTH_CLEAR_EVENT:
            for p in [p for p in side if (p >= px if side is bids else p <= px)]:
                del side[p]
        elif qty == 0:
            side.pop(px, None)
        else:
            side[px] = qty


def floats(side):
    return {float(p): float(q) for p, q in side.items()}


@pytest.mark.parametrize("family,name,exchange,symbol", MARKETS)
def test_convert_rebuilds_the_recorded_books(ws_recording, tardis_dir, family, name, exchange, symbol):
    _, records = recording.read(ws_recording)
    expected = recording.books(records, family, name)
    assert len(expected) > 2, "the recording has too few books"
    events = local(convert(tardis_dir, exchange, symbol),
                   [DEPTH_EVENT, DEPTH_CLEAR_EVENT, DEPTH_SNAPSHOT_EVENT])
    times = sorted({int(t) for t in events["local_ts"]})
    book = ({}, {})
    compared = 0
    for t in times:
        apply(book, events[events["local_ts"] == t])
        assert t % MS == 0 and t // MS in expected, f"depth events at {t} where the recording has no valid book"
        bids, asks = expected[t // MS]
        assert (book[0], book[1]) == (floats(bids), floats(asks)), f"the book at {t}"
        compared += 1
    # Every change of the recorded book has its events.
    previous = None
    for t in sorted(expected):
        if expected[t] != previous:
            assert t * MS in times, f"the recorded book changed at {t} ms, hftbacktest saw nothing"
        previous = expected[t]
    assert compared > 2


def rules(header, family, name):
    """Tick and lot size of a market from the recording's header."""
    if family == "swap":
        i = next(i for i in header["swap"] if i["instrument_id"] == name)
        return Decimal(i["tick_size"]), Decimal(i["min_order_amount"])
    p = next(p for p in header["spot"] if p["symbol"] == name)
    return Decimal(1).scaleb(-p["price_precision"]), Decimal(1).scaleb(-p["amount_precision"])


@pytest.mark.parametrize("family,name,exchange,symbol", MARKETS)
def test_a_backtest_runs_over_the_converted_data(ws_recording, tardis_dir, family, name, exchange, symbol):
    header, records = recording.read(ws_recording)
    tick, lot = rules(header, family, name)
    books = recording.books(records, family, name)
    # hftbacktest reads the array in place: it must stay referenced while the backtest runs.
    data = convert(tardis_dir, exchange, symbol)
    asset = (
        BacktestAsset()
        .data([data])
        .linear_asset(1.0)
        .constant_order_latency(MS, MS)
        .risk_adverse_queue_model()
        .no_partial_fill_exchange()
        .trading_value_fee_model(0.0, 0.0)
        .tick_size(float(tick))
        .lot_size(float(lot))
    )
    hbt = HashMapMarketDepthBacktest([asset])
    # The backtest starts at the first event (a trade the venue listed before the recording
    # began can be minutes older): go to the first book, then in steps of 100 ms.
    assert hbt.elapse(100 * MS) == 0
    if hbt.current_timestamp < min(books) * MS:
        assert hbt.elapse(min(books) * MS - hbt.current_timestamp) == 0
    checked = 0
    order = None
    while hbt.elapse(100 * MS) == 0:
        now = hbt.current_timestamp
        # The book after the events before now (an event at now itself may be processed
        # at the next step).
        seen = [t for t in books if t * MS < now]
        if not seen or now in (t * MS for t in books):
            continue
        bids, asks = books[max(seen)]
        depth = hbt.depth(0)
        if bids and asks:
            # What the strategy sees is the recorded book: best levels in ticks, their amounts.
            assert depth.best_bid_tick == int(max(bids) / tick)
            assert depth.best_ask_tick == int(min(asks) / tick)
            assert depth.best_bid_qty == float(bids[max(bids)])
            checked += 1
            if order is None and checked >= 3:
                # A buy that crosses the book fills.
                price = float((min(asks) + 10 * tick))
                assert hbt.submit_buy_order(0, 1, price, float(lot), GTC, LIMIT, True) == 0
                order = 1
    assert checked >= 3
    assert order is not None
    o = hbt.orders(0).get(1)
    assert o is not None and o.status == FILLED, o
    assert hbt.position(0) == float(lot)
    hbt.close()
    del data
