"""`Client.stream(..., feed=URL)`: the public subscriptions read from a market-data feed over a
real NATS server with JetStream (Debian's `nats-server`; `.ci/run` installs it and names it in
`NATS_SERVER`), as the same event dicts as from the venue. The feed's side is played here with
nats-py (PyPI) in the feed's message format (docs/feed.md, "Messages"): a stored snapshot and
deltas, then a jump in the sequence, which must be a `resync` followed by the fresh snapshot the
reader asks the feed for on `digifinex.request.snapshot`."""

import asyncio
import json
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from decimal import Decimal

import pytest

import digifinex

SUB = {"family": "spot", "channel": "depth", "target": "BTC_USDT"}
MARKET = "spot:depth:BTC_USDT"


def nats_server():
    given = os.environ.get("NATS_SERVER")
    if given:
        assert os.access(given, os.X_OK), f"NATS_SERVER={given} is not an executable"
        return given
    found = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if os.access("/usr/sbin/nats-server", os.X_OK) else None)
    if found is None:
        pytest.skip("needs nats-server (Debian's package; .ci/run installs it)")
    return found


@pytest.fixture
def nats_url():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    store = tempfile.mkdtemp(prefix="nats-")
    proc = subprocess.Popen(
        [nats_server(), "-js", "-a", "127.0.0.1", "-p", str(port), "-sd", store],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        until = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < until, "nats-server did not start"
                time.sleep(0.05)
        yield f"nats://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(store, ignore_errors=True)


def message(seq, *, kind="event", reset=False, bids=(("100", "1"),), asks=(("101", "2"),)):
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
    m = {"v": 1, "feed": "a", "run": "r1", "market": MARKET, "seq": seq, "kind": kind,
         "feed_ms": 1767225600000 + seq, "event": event}
    return json.dumps(m).encode()


class FeedSide(threading.Thread):
    """The feed's side on its own asyncio loop: the JetStream stream, what is published, and
    the answer to a snapshot request. `publish(subject, payload)` from the test's thread."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url = url
        self.commands = queue.Queue()
        self.ready = threading.Event()
        self.requests = []
        self.error = None

    def publish(self, subject, payload):
        self.commands.put((subject, payload))

    def stop(self):
        self.commands.put(None)
        self.join(10)

    def run(self):
        try:
            asyncio.run(self.main())
        except Exception as e:  # reported by the test
            self.error = e
            self.ready.set()

    async def main(self):
        import nats

        nc = await nats.connect(self.url)
        js = nc.jetstream()
        # The subjects `digifinex feed` keeps (digifinex_core::feed::stream_subjects).
        await js.add_stream(name="DIGIFINEX", subjects=[
            "digifinex.spot.>", "digifinex.swap.>", "digifinex.snapshot.>",
            "digifinex.heartbeat.>"])
        await js.publish("digifinex.snapshot.spot.depth.btc_usdt",
                         message(1, kind="snapshot", bids=(("100", "1"), ("99.5", "3"))))
        await js.publish("digifinex.spot.depth.btc_usdt",
                         message(2, bids=(("99.50", "0.0001"),), asks=()))
        await js.publish("digifinex.spot.depth.btc_usdt",
                         message(3, bids=(), asks=(("101", "0"),)))

        async def answer(msg):
            self.requests.append(msg.data.decode())
            await msg.respond(message(6, kind="snapshot", bids=(("98", "7"),),
                                      asks=(("102", "1.25"),)))

        await nc.subscribe("digifinex.request.snapshot", cb=answer)
        self.ready.set()
        while True:
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                await asyncio.sleep(0.02)
                continue
            if command is None:
                break
            await js.publish(*command)
        await nc.close()


def books(stream, n, timeout=30):
    """The next `n` book or resync events (no venue socket state may appear)."""
    got = []
    until = time.monotonic() + timeout
    while len(got) < n:
        assert time.monotonic() < until, f"only {got}"
        event = stream.next_event(1.0)
        if event is None:
            continue
        assert event["type"] not in ("connecting", "connected", "disconnected"), event
        if event["type"] in ("book", "resync"):
            got.append(event)
    return got


def test_a_stream_reads_its_books_from_the_feed_and_resyncs_at_a_gap(nats_url):
    side = FeedSide(nats_url)
    side.start()
    assert side.ready.wait(30) and side.error is None, side.error
    try:
        # The venue's socket is unreachable: everything comes from the feed.
        client = digifinex.Client()
        stream = client.stream("spot:depth:btc_usdt", feed=nats_url,
                               spot_ws_url="ws://127.0.0.1:9/")
        with stream:
            first = books(stream, 3)
            assert [e["snapshot"] for e in first] == [True, False, False]
            assert first[0]["bids"] == [[Decimal("100"), Decimal("1")],
                                        [Decimal("99.5"), Decimal("3")]]
            assert first[1]["bids"] == [[Decimal("99.50"), Decimal("0.0001")]]
            assert isinstance(first[1]["bids"][0][1], Decimal)
            assert first[2]["asks"] == [[Decimal("101"), Decimal("0")]]

            # Sequence 4 was lost between the feed and here: a resync, then the fresh snapshot
            # the reader asked the feed for.
            side.publish("digifinex.spot.depth.btc_usdt", message(5))
            resync, fresh = books(stream, 2)
            assert resync["type"] == "resync" and resync["reason"] == "feed_gap", resync
            assert fresh["snapshot"] is True
            assert fresh["best_ask"] == [Decimal("102"), Decimal("1.25")]
            assert side.requests and side.requests[0] == MARKET
    finally:
        side.stop()


def test_a_feed_that_is_not_there_is_an_error_at_once():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    client = digifinex.Client()
    with pytest.raises(digifinex.Error) as e:
        client.stream("spot:depth:btc_usdt", feed=f"nats://127.0.0.1:{port}")
    assert "cannot reach the NATS server" in str(e.value)
    with pytest.raises(digifinex.ValidationError):
        client.stream("spot:depth:btc_usdt", feed_stream="X")
