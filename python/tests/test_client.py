"""The client against the in-process simulator: helpers, exact decimals, checks, every endpoint
reachable by its HTTP line."""

import json
import threading
import time
import urllib.request
from decimal import Decimal as D

import pytest

import digifinex


def raw(url):
    """The venue's own JSON, numbers read as decimals (what the client must agree with)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as r:
        return json.loads(r.read(), parse_float=D)


def test_order_book_is_exact_and_decimal(sim, client):
    book = client.order_book("btc_usdt", limit=5)
    want = raw(sim.spot_base_url + "/order_book?symbol=btc_usdt&limit=5")
    assert len(book["bids"]) == len(want["bids"]) == 5
    for side in ("bids", "asks"):
        for got, exp in zip(book[side], want[side]):
            assert all(isinstance(v, D) for v in got)
            assert got == [D(str(exp[0])), D(str(exp[1]))]
    assert isinstance(book["date"], int)
    assert digifinex.best_bid(book) == max(book["bids"])
    assert digifinex.best_ask(book) == min(book["asks"])
    assert digifinex.best_ask(book)[0] > digifinex.best_bid(book)[0]


def test_call_by_http_line_matches_the_helper(client):
    # (`date` is the server's second, which may tick between the two calls.)
    by_line = client.call("GET", "/v3/order_book", symbol="btc_usdt", limit=3)
    helper = client.order_book("btc_usdt", 3)
    assert (by_line["bids"], by_line["asks"]) == (helper["bids"], helper["asks"])
    # `params` for names given as a dict; path variables come from the path.
    assert client.call("GET", "/v3/spot/order/current", {"symbol": "btc_usdt"}) == client.open_orders(
        "btc_usdt"
    )


def test_every_endpoint_is_listed():
    eps = digifinex.Client.endpoints()
    assert len(eps) == 72
    assert ("GET", "/v3/order_book", "spot.order_book", False) in eps
    assert len({(m, p) for m, p, _, _ in eps}) == 72


def test_tickers_and_swap_reads(client):
    t = client.ticker("btc_usdt")
    row = t["ticker"][0]
    assert row["symbol"] == "btc_usdt"
    assert isinstance(row["last"], D)
    depth = client.swap_order_book("BTCUSDTPERP", 3)
    assert depth["instrument_id"] == "BTCUSDTPERP"
    assert isinstance(depth["timestamp"], int)
    assert all(isinstance(v, D) for level in depth["bids"] for v in level)
    assert client.swap_ticker("BTCUSDTPERP")["instrument_id"] == "BTCUSDTPERP"


def test_spot_order_lifecycle_and_balances(sim, client):
    before = {b["currency"]: b for b in client.balances()["list"]}
    placed = client.place_order("btc_usdt", "buy", D("0.1"), D("100.5"))
    oid = placed["order_id"]
    opened = [o for o in client.open_orders("btc_usdt")["data"] if o["order_id"] == oid]
    assert len(opened) == 1
    assert opened[0]["price"] == D("100.5") and opened[0]["amount"] == D("0.1")
    after = {b["currency"]: b for b in client.balances()["list"]}
    # 0.1 * 100.5 = 10.05 USDT held by the order, exactly.
    assert before["USDT"]["free"] - after["USDT"]["free"] == D("10.05")
    cancelled = client.cancel_orders(oid)
    assert cancelled["success"] == [oid] and cancelled["error"] == []
    assert all(o["order_id"] != oid for o in client.open_orders("btc_usdt")["data"])
    restored = {b["currency"]: b for b in client.balances()["list"]}
    assert restored["USDT"]["free"] == before["USDT"]["free"]


def test_swap_order_lifecycle(client):
    placed = client.place_swap_order("BTCUSDTPERP", "open_long", 2, D("20000.5"))
    oid = placed["order_id"]
    mine = [o for o in client.swap_open_orders("BTCUSDTPERP") if o["order_id"] == oid]
    assert mine and mine[0]["size"] == D("2") and mine[0]["price"] == D("20000.5")
    assert mine[0]["type"] == 1
    done = client.cancel_swap_order("BTCUSDTPERP", oid)
    assert done["order_id"] == oid
    assert all(o["order_id"] != oid for o in client.swap_open_orders("BTCUSDTPERP"))
    assert client.positions("BTCUSDTPERP") == []
    usdt = client.swap_balances("USDT")
    assert usdt and isinstance(usdt[0]["equity"], D)


def test_rules_refuse_then_round(client):
    with pytest.raises(digifinex.RuleError) as e:
        client.place_order("btc_usdt", "buy", D("0.1"), D("100.123"))
    assert e.value.kind == "invalid_request"
    assert e.value.code == 20007
    assert "100.12 or 100.13" in str(e.value)
    assert isinstance(e.value, digifinex.InvalidRequestError)
    placed = client.place_order("btc_usdt", "buy", D("0.1"), D("100.123"), round="passive")
    order = [o for o in client.open_orders("btc_usdt")["data"] if o["order_id"] == placed["order_id"]]
    assert order[0]["price"] == D("100.12")
    client.cancel_orders(placed["order_id"])
    with pytest.raises(digifinex.RuleError) as e:
        client.place_order("btc_usdt", "buy", D("0.0001"), D("100"))
    assert e.value.code == 20010


def test_validation_before_io(client):
    with pytest.raises(digifinex.ValidationError) as e:
        client.call("GET", "/v3/order_book", symbl="btc_usdt")
    assert e.value.field == "symbl" and "did you mean `symbol`" in str(e.value)
    assert e.value.kind == "invalid_request" and e.value.code is None and e.value.status is None
    with pytest.raises(digifinex.ValidationError) as e:
        client.order_book("btc_usdt", limit=151)
    assert e.value.field == "limit"
    with pytest.raises(digifinex.ValidationError):
        client.call("GET", "/v3/no_such_thing")
    with pytest.raises(digifinex.ValidationError) as e:
        client.call("GET", "/v3/order_book", {"symbol": "btc_usdt"}, symbol="eth_usdt")
    assert e.value.field == "symbol"


def test_floats_are_refused(client):
    with pytest.raises(TypeError, match="float"):
        client.place_order("btc_usdt", "buy", 0.1, D("100"))
    with pytest.raises(TypeError, match="`limit`"):
        client.call("GET", "/v3/order_book", symbol="btc_usdt", limit=5.0)


def test_decimals_are_sent_in_plain_notation(client):
    # 1E+2 and 1.0E-1 are sent as 100 and 0.10: the order reads back with those values.
    placed = client.place_order("btc_usdt", "buy", D("1.0E-1"), D("1E+2"))
    order = [o for o in client.open_orders("btc_usdt")["data"] if o["order_id"] == placed["order_id"]]
    assert order[0]["price"] == D("100") and order[0]["amount"] == D("0.1")
    client.cancel_orders(placed["order_id"])
    with pytest.raises(ValueError):
        client.place_order("btc_usdt", "buy", D("0.1"), D("NaN"))


def test_gil_is_released_during_io(sim, client):
    sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "latency", "ms": 700}, "count": 1})
    t = threading.Thread(target=lambda: client.ticker("btc_usdt"))
    t.start()
    ticks = 0
    while t.is_alive():
        time.sleep(0.01)
        ticks += 1
    t.join()
    # With the GIL held for the whole call this thread could not have run in between.
    assert ticks >= 10


def test_repr_hides_the_secret(sim, client):
    text = repr(client)
    assert sim.demo_secret not in text and sim.demo_key not in text
    assert "key=set" in text


def test_client_arguments(sim):
    with pytest.raises(digifinex.ValidationError) as e:
        digifinex.Client("key-only")
    assert e.value.field == "secret"
    with pytest.raises(digifinex.ValidationError) as e:
        digifinex.Client(spot_base_url="http://example.com/v3")
    assert e.value.field == "spot_base_url"
    # Public endpoints need no key.
    public = digifinex.Client(spot_base_url=sim.spot_base_url, swap_base_url=sim.swap_base_url)
    assert public.order_book("btc_usdt", 1)["bids"]
