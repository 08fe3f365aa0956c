"""digifinex (this package) beside ccxt's DigiFinex exchange, in one Python process.

Two jobs, neither touching the network:

* decoding an order book answer of 150 + 150 levels (`GET /v3/order_book`, the venue's JSON
  text): ours `digifinex.decode(...)` (JSON, the typed model, 600 `decimal.Decimal`s); ccxt's
  `json.loads` and `parse_order_book` (floats, as ccxt gives by default);
* a signed limit order and its answer: ours `Client.build_request(...)` then
  `digifinex.decode(...)` of the answer; ccxt's `create_order(...)` with its HTTP `fetch`
  replaced by one that returns the answer (request, signing and parsing, no I/O).

Each job runs in rounds, ours and ccxt's alternating, and the median time per call is printed
with the ratio. Run from a virtual environment with this package and ccxt installed:

    pip install ./python -r python/benches/requirements.txt
    python python/benches/bench_ccxt.py
"""

import json
import random
import statistics
import sys
import time
from decimal import Decimal

import ccxt

import digifinex

KEY, SECRET = "0123456789abcd", "01234567890123456789abcd"


def book_body(levels=150, seed=1):
    """An order book answer as the venue writes it: numbers, asks highest first."""
    rng = random.Random(seed)
    bids = [[round(30000 - 0.01 * (i + 1), 2), round(rng.uniform(0.0001, 3), 4)] for i in range(levels)]
    asks = [[round(30000 + 0.01 * (levels - i), 2), round(rng.uniform(0.0001, 3), 4)] for i in range(levels)]
    return json.dumps({"bids": bids, "asks": asks, "date": 1589872188, "code": 0}).encode()


def ccxt_exchange():
    # No rate limiter: it would sleep between the "requests" (none is sent here).
    ex = ccxt.digifinex({"apiKey": KEY, "secret": SECRET, "enableRateLimit": False})
    market = ex.safe_market_structure(
        {
            "id": "btc_usdt", "symbol": "BTC/USDT", "base": "BTC", "quote": "USDT",
            "baseId": "btc", "quoteId": "usdt", "type": "spot", "spot": True, "active": True,
            "precision": {"amount": ex.parse_number("0.0001"), "price": ex.parse_number("0.01")},
            "limits": {"amount": {"min": None, "max": None}, "price": {"min": None, "max": None},
                       "cost": {"min": None, "max": None}},
        }
    )
    ex.set_markets([market])
    answer = {"code": 0, "order_id": "198361cecdc65f9c8c9bb2fa68faec40"}
    ex.fetch = lambda url, method="GET", headers=None, body=None: dict(answer)
    return ex


def per_call(fn, n):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def compare(name, ours, theirs, n, rounds):
    ours(), theirs()  # warm up (imports, caches)
    a, b = [], []
    for _ in range(rounds):
        a.append(per_call(ours, n))
        b.append(per_call(theirs, n))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name}: digifinex {ma * 1e6:8.1f} us   ccxt {mb * 1e6:8.1f} us   ccxt/ours {mb / ma:5.1f}x")
    return mb / ma


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    body = book_body()
    ex = ccxt_exchange()
    client = digifinex.Client(KEY, SECRET)
    answer = b'{"code":0,"order_id":"198361cecdc65f9c8c9bb2fa68faec40"}'

    # The same book, read both ways (our exact values; ccxt's floats of the same text).
    ours = digifinex.decode("GET", "/v3/order_book", body)
    theirs = ex.parse_order_book(json.loads(body), "BTC/USDT", 1589872188000)
    assert len(ours["bids"]) == len(theirs["bids"]) == 150
    assert max(ours["bids"])[0] == Decimal(str(theirs["bids"][0][0]))

    def ours_book():
        digifinex.decode("GET", "/v3/order_book", body)

    def ccxt_book():
        ex.parse_order_book(json.loads(body), "BTC/USDT", 1589872188000)

    def ours_order():
        client.build_request(
            "POST", "/v3/spot/order/new", symbol="btc_usdt", type="buy",
            amount=Decimal("0.01"), price=Decimal("30000"),
        )
        digifinex.decode("POST", "/v3/spot/order/new", answer)

    def ccxt_order():
        ex.create_order("BTC/USDT", "limit", "buy", 0.01, 30000)

    print(f"python {sys.version.split()[0]}, digifinex {digifinex.__version__}, ccxt {ccxt.__version__}; "
          f"median of {rounds} rounds")
    compare("order book 150+150 decode", ours_book, ccxt_book, 200, rounds)
    compare("signed limit order + answer", ours_order, ccxt_order, 2000, rounds)


if __name__ == "__main__":
    main()
