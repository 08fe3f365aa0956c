"""Backtests with the strategy as a Python callable: the same strategy written in Python gives
the report of the bundled Rust one byte for byte, runs repeat exactly, streams are read in
virtual time and end with it, and a failing strategy keeps its exception and its report."""

import pathlib
from decimal import ROUND_UP, Decimal

import pytest

import digifinex

# A recording in the repository (sim/tests/data/SOURCES.md says where each part comes from).
SAMPLE = pathlib.Path(__file__).resolve().parents[2] / "sim" / "tests" / "data" / "sample-icp.jsonl.gz"

# The options of cli/tests/backtest.rs's report test.
OPTIONS = dict(
    market=SAMPLE,
    fill_model="prob-log",
    latency="15:25",
    spot=["ICP_USDT"],
    fees="0.0005:0.001",
)


def quote_touch(requote_s=2.0, notional=Decimal(20)):
    """The bundled quote-touch strategy (digifinex_backtest::strategy::QuoteTouch) on spot
    pairs, call for call: one post-only bid and ask at the touch, kept while at the touch."""

    def run(bot):
        c = bot.client
        markets = c.call("GET", "/v3/markets")["data"] if bot.spot_pairs else []
        rules = {}
        for pair in sorted(bot.spot_pairs):
            m = next((m for m in markets if m["market"] == pair), None)
            if m is not None:
                rules[pair] = (
                    m.get("volume_precision") if m.get("volume_precision") is not None else 8,
                    m.get("min_volume") or Decimal(0),
                    m.get("min_amount") or Decimal(0),
                )
        quotes = {}
        while bot.wait(requote_s):
            for pair, (precision, min_volume, min_amount) in rules.items():
                book = c.order_book(pair, limit=5)
                bid, ask = digifinex.best_bid(book), digifinex.best_ask(book)
                if bid is None or ask is None:
                    continue
                slots = quotes.setdefault(pair, [None, None])
                for side, touch in ((0, bid[0]), (1, ask[0])):
                    order_id, slots[side] = slots[side], None
                    if order_id is not None:
                        o = c.call("GET", "/v3/spot/order", order_id=order_id)["data"][0]
                        is_open = o["status"] in (0, 1)
                        if is_open and o["price"] == touch:
                            slots[side] = order_id
                            continue
                        if is_open:
                            c.call("POST", "/v3/spot/order/cancel", order_id=order_id)
                    if touch <= 0:
                        continue
                    wanted = max(notional, min_amount * 2) / touch
                    amount = max(wanted, min_volume).quantize(
                        Decimal(1).scaleb(-precision), rounding=ROUND_UP
                    )
                    try:
                        placed = c.call(
                            "POST",
                            "/v3/spot/order/new",
                            symbol=pair,
                            type="buy" if side == 0 else "sell",
                            amount=amount,
                            price=touch,
                            post_only=True,
                            unchecked=True,
                            snapshot=False,
                        )
                        slots[side] = placed["order_id"]
                    except digifinex.InvalidRequestError:
                        pass
                    except digifinex.InsufficientFundsError:
                        pass
        for slots in quotes.values():
            for order_id in slots:
                if order_id is not None:
                    try:
                        c.call("POST", "/v3/spot/order/cancel", order_id=order_id)
                    except digifinex.Error:
                        pass

    return run


def test_the_python_port_reports_what_the_rust_strategy_reports():
    rust = digifinex.backtest("quote-touch", requote_ms=2000, **OPTIONS)
    python = digifinex.backtest(quote_touch(), **OPTIONS)
    assert rust.json["fills_count"] > 0, rust.to_json()
    assert python.to_json() == rust.to_json()
    assert python.json["markets"] == ["icp_usdt"]
    assert python.json["fill_model"] == "prob-log"
    total = python.pnl("total")
    assert isinstance(total, Decimal)
    assert total == Decimal(python.json["pnl"]["total"])
    assert python.pnl("nope") is None


def test_a_run_repeats_byte_for_byte_and_writes_its_files(tmp_path):
    first = digifinex.backtest(quote_touch(), **OPTIONS)
    again = digifinex.backtest(quote_touch(), **OPTIONS)
    assert first.to_json() == again.to_json()
    json_path, html_path = first.write(tmp_path / "out")
    assert pathlib.Path(json_path).read_text() == first.to_json() + "\n"
    assert pathlib.Path(html_path).read_text().startswith("<!DOCTYPE html>")


def test_streams_run_in_virtual_time_and_end_with_it():
    def run(bot, seen):
        start = bot.now_ms()
        with bot.client.stream("spot:depth:btc_usdt", "swap:trades:BTCUSDTPERP") as s:
            for event in s:
                seen.append((event["type"], bot.now_ms()))
        seen.append(("end", bot.now_ms() - start))

    a, b = [], []
    digifinex.backtest(lambda bot: run(bot, a), duration_s=120, spot=["btc_usdt"], swap=["BTCUSDTPERP"])
    digifinex.backtest(lambda bot: run(bot, b), duration_s=120, spot=["btc_usdt"], swap=["BTCUSDTPERP"])
    assert a == b
    kinds = {k for k, _ in a}
    assert {"book", "swap_trades", "subscribed"} <= kinds, kinds
    times = [t for k, t in a if k != "end"]
    assert times == sorted(times)
    # The stream ended when the two minutes were over.
    assert a[-1] == ("end", 120_000)


def test_a_private_push_reaches_a_tracked_stream():
    def run(bot, seen):
        c = bot.client
        with c.stream("spot:order", track=["btc_usdt"]) as s:
            # The socket opens at the first read: subscribed first, then the order.
            for event in s:
                if event["type"] == "subscribed":
                    break
            ask = digifinex.best_ask(c.order_book("btc_usdt", limit=5))
            placed = c.call(
                "POST", "/v3/spot/order/new", symbol="btc_usdt", type="buy",
                amount="0.001", price=ask[0], unchecked=True, snapshot=False,
            )
            while True:
                # Five seconds of virtual time at most.
                event, ended = s.poll(5.0)
                if ended or event is None:
                    break
                if event["type"] == "spot_orders":
                    seen.append((event, placed["order_id"], ask[0]))
                if event["type"] == "spot_balances":
                    seen.append(s.state())
                    break

    seen = []
    digifinex.backtest(lambda bot: run(bot, seen), duration_s=60, spot=["btc_usdt"], swap=[])
    assert len(seen) == 2, seen
    (event, order_id, price), state = seen
    (order,) = event["orders"]
    assert order["id"] == order_id
    assert (order["filled"], order["price_avg"]) == (Decimal("0.001"), price)
    balances = {b["currency"]: b["total"] for b in state["balances"]}
    # 2 BTC and 100,000 USDT at the start; 0.001 bought less the 0.2 % taker fee.
    assert balances["BTC"] == Decimal("2.000998")
    assert balances["USDT"] == Decimal(100000) - Decimal("0.001") * price


def test_a_failing_strategy_keeps_its_exception_and_its_report():
    class Boom(Exception):
        pass

    def run(bot):
        bot.wait(30)
        raise Boom("stop here")

    with pytest.raises(digifinex.BacktestError) as caught:
        digifinex.backtest(run, duration_s=120, spot=["btc_usdt"], swap=[])
    err = caught.value
    assert isinstance(err.__cause__, Boom)
    assert "stop here" in str(err)
    assert err.report is not None
    assert err.report.json["markets"] == ["btc_usdt"]


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(latency="fast"), "latency"),
        (dict(latency="70000"), "latency"),
        (dict(fees="0.1:0.2"), "fees"),
        (dict(swap_fees="0.001"), "swap_fees"),
        (dict(fill_model="lottery"), "fill_model"),
        (dict(duration_s=-1), "duration_s"),
        (dict(sample_every_ms=5), "sample_every_ms"),
    ],
)
def test_bad_options_name_their_field(options, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        digifinex.backtest(lambda bot: None, **options)


def test_a_bundled_name_or_a_callable():
    with pytest.raises(ValueError, match="^strategy: unknown strategy"):
        digifinex.backtest("nope")
    with pytest.raises(ValueError, match="^strategy: "):
        digifinex.backtest(42)


def test_a_missing_recording_is_a_backtest_error(tmp_path):
    with pytest.raises(digifinex.BacktestError, match="nope.jsonl.gz") as caught:
        digifinex.backtest(lambda bot: None, market=tmp_path / "nope.jsonl.gz")
    assert caught.value.report is None
