"""Streams from subscribe to a private push, with the tracker; `async for`."""

import asyncio
import time
from decimal import Decimal as D

import digifinex


def take(stream, pred, seconds=20, seen=None):
    """The first event matching `pred` within `seconds` (the simulator has no flow here, so a
    missing event would otherwise block)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        event, ended = stream.poll(0.2)
        if event is not None:
            if seen is not None:
                seen.append(event)
            if pred(event):
                return event
        assert not ended, "the stream ended"
    raise AssertionError(f"no such event within {seconds} s (saw {seen})")


def test_public_book_with_best_prices(sim, client):
    with client.stream("spot:depth:btc_usdt") as s:
        book = take(s, lambda e: e["type"] == "book")
    assert book["snapshot"] is True
    assert book["subscription"] == {"family": "spot", "channel": "depth", "target": "BTC_USDT"}
    bid, ask = book["best_bid"], book["best_ask"]
    assert all(isinstance(v, D) for v in bid + ask)
    rest = client.order_book("btc_usdt", 150)
    assert bid == max(rest["bids"]) and ask == min(rest["asks"])


def test_private_order_push_and_tracker(sim, client):
    with client.stream("spot:order:btc_usdt", track=["btc_usdt"]) as s:
        take(s, lambda e: e["type"] == "subscribed"
             and {"family": "spot", "channel": "order", "target": "BTC_USDT"} in e["subscriptions"])
        placed = client.place_order("btc_usdt", "buy", D("0.1"), D("99.5"))
        push = take(s, lambda e: e["type"] == "spot_orders")
        (order,) = [o for o in push["orders"] if o["id"] == placed["order_id"]]
        assert order["price"] == D("99.5") and order["amount"] == D("0.1")
        assert order["side"] == "buy" and order["status"] == 0
        state = s.state()
        assert [o["order_id"] for o in state["open_orders"]] == [placed["order_id"]]
        usdt = [b for b in state["balances"] if b["currency"] == "USDT"]
        assert usdt and isinstance(usdt[0]["free"], D)
        changes = s.changes()
        assert any(c["change"] == "resynced" for c in changes)
        assert s.lost_changes == 0
        client.cancel_orders(placed["order_id"])


def test_both_families_in_one_stream(client):
    with client.stream("spot:depth:btc_usdt", "swap:depth:BTCUSDTPERP") as s:
        families = set()
        take(s, lambda e: e["type"] == "book" and families.add(e["subscription"]["family"])
             is None and families == {"spot", "swap"})
    assert families == {"spot", "swap"}


def test_async_for(client):
    async def first_book():
        with client.stream("swap:depth:BTCUSDTPERP") as s:
            async for event in s:
                if event["type"] == "book":
                    return event

    book = asyncio.run(asyncio.wait_for(first_book(), 30))
    assert book["subscription"]["target"] == "BTCUSDTPERP"


def test_closed_stream_ends(client):
    s = client.stream("spot:ticker:btc_usdt")
    s.close()
    assert list(s) == []
    assert s.poll(0) == (None, True)


def test_bad_subscriptions_are_refused(client):
    import pytest

    with pytest.raises(digifinex.ValidationError) as e:
        client.stream("spot:nope:btc_usdt")
    assert e.value.field == "subs"
    with pytest.raises(digifinex.ValidationError):
        client.stream()
    with pytest.raises(digifinex.ValidationError) as e:
        client.stream("spot:ticker:btc_usdt", spot_ws_url="ws://example.com/ws/v1/")
    assert e.value.field == "spot_ws_url"
