"""A feed's messages (`digifinex feed`, NATS JetStream) read without I/O by
`digifinex.FeedConsumer`: the same event dicts as `Client.stream` (exact decimals), every jump
in a feed's sequence reported, books started from a snapshot. The messages are written here in
the feed's format (docs/feed.md, "Messages")."""

import json
from decimal import Decimal

import pytest

import digifinex

SUB = {"family": "spot", "channel": "depth", "target": "BTC_USDT"}


def message(seq, *, kind="event", reset=False, run="r1", bids=(("100", "1"),), asks=()):
    event = {
        "type": "book",
        "subscription": SUB,
        "snapshot": reset or kind == "snapshot",
        "bids": [list(l) for l in bids],
        "asks": [list(l) for l in asks],
        "best_bid": list(bids[0]) if bids else None,
        "best_ask": list(asks[0]) if asks else None,
        "depth": [len(bids), len(asks)],
    }
    m = {"v": 1, "feed": "a", "run": run, "market": "spot:depth:BTC_USDT", "seq": seq,
         "kind": kind, "feed_ms": 1767225600000 + seq, "event": event}
    if reset:
        m["reset"] = True
    return json.dumps(m).encode()


def test_a_book_starts_at_its_snapshot_with_exact_decimals():
    c = digifinex.FeedConsumer("spot:depth:btc_usdt")
    assert c.subjects() == ["digifinex.spot.depth.btc_usdt"]
    (need,) = c.poll()
    assert need == {"type": "need_snapshot", "market": "spot:depth:BTC_USDT",
                    "subject": "digifinex.snapshot.spot.depth.btc_usdt"}
    # A delta before the snapshot waits; the snapshot then gives both, in order.
    assert c.message(message(3, bids=(("99.50", "0.0001"),))) == []
    assert c.is_waiting("spot:depth:BTC_USDT")
    events = c.snapshot(message(2, kind="snapshot", bids=(("100", "1"),), asks=(("101", "2"),)))
    assert [e["snapshot"] for e in events] == [True, False]
    assert events[0]["best_ask"] == [Decimal("101"), Decimal("2")]
    assert events[1]["bids"] == [[Decimal("99.50"), Decimal("0.0001")]]
    assert isinstance(events[1]["bids"][0][0], Decimal)
    assert not c.is_waiting("spot:depth:BTC_USDT")


def test_a_jump_is_a_resync_and_a_repeat_is_dropped():
    c = digifinex.FeedConsumer("spot:depth:btc_usdt")
    c.poll()
    assert len(c.message(message(1, reset=True))) == 1
    assert c.message(message(1, reset=True)) == []
    out = c.message(message(4))
    assert [o["type"] for o in out] == ["resync", "need_snapshot"]
    assert out[0]["reason"] == "feed_gap"
    # A new run of the feed starts at its first snapshot, without a resync.
    assert [e["type"] for e in c.message(message(1, reset=True, run="r2"))] == ["book"]


def test_the_events_have_the_shape_of_the_streams():
    with digifinex.Sim(flow=False) as sim:
        with sim.client().stream("spot:depth:btc_usdt") as s:
            book = next(e for e in s if e["type"] == "book")
    c = digifinex.FeedConsumer("spot:depth:btc_usdt")
    c.poll()
    (mine,) = c.message(message(1, reset=True, asks=(("101", "2"),)))
    assert set(mine) == set(book)
    assert mine["subscription"] == book["subscription"]
    assert type(mine["best_ask"][0]) is type(book["best_ask"][0]) is Decimal


def test_what_is_not_a_feed_message_is_refused():
    c = digifinex.FeedConsumer("spot:depth:btc_usdt")
    for bad in [b"", b"{", b'{"v":2}', b"\xff" * 10]:
        with pytest.raises(ValueError):
            c.message(bad)
    with pytest.raises(ValueError):
        digifinex.FeedConsumer("spot:order")
    with pytest.raises(ValueError):
        digifinex.FeedConsumer("spot:nope:btc_usdt")
