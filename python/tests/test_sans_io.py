"""Requests built without sending (signatures recomputed here with Python's own hmac, from the
signing rules in docs/protocol.md) and answers decoded without I/O."""

import hashlib
import hmac
import json
from decimal import Decimal as D
from urllib.parse import urlsplit

import pytest

import digifinex

KEY, SECRET = "0123456789abcd", "01234567890123456789abcd"


def sign(text):
    return hmac.new(SECRET.encode(), text.encode(), hashlib.sha256).hexdigest()


def client():
    return digifinex.Client(KEY, SECRET)


def test_spot_order_is_signed_over_its_body():
    req = client().build_request(
        "POST", "/v3/spot/order/new", symbol="trx_usdt", price=D("0.01"), amount=1, type="buy"
    )
    assert req["method"] == "POST"
    assert req["url"] == "https://openapi.digifinex.com/v3/spot/order/new"
    body = req["body"].decode()
    assert body == "market=spot&symbol=trx_usdt&price=0.01&amount=1&type=buy"
    h = req["headers"]
    assert h["access-key"] == KEY
    assert h["access-sign"] == sign(body)
    assert h["access-timestamp"].isdigit() and len(h["access-timestamp"]) == 10


def test_swap_order_is_signed_over_timestamp_method_path_body():
    req = client().build_request(
        "POST",
        "/swap/v2/trade/order_place",
        instrument_id="BTCUSDTPERP",
        type=1,
        order_type=0,
        size=1,
        price=D("30000"),
    )
    body = req["body"].decode()
    assert json.loads(body, parse_float=D) == {
        "instrument_id": "BTCUSDTPERP", "type": 1, "order_type": 0, "size": 1, "price": "30000",
    }
    ts = req["headers"]["access-timestamp"]
    assert len(ts) == 13
    path = urlsplit(req["url"]).path
    assert req["headers"]["access-sign"] == sign(ts + "POST" + path + body)


def test_decode_matches_the_venue_text():
    body = json.dumps(
        {"bids": [["29990.5", 0.1]], "asks": [[30010, "0.25"]], "date": 1589872188, "code": 0}
    ).encode()
    book = digifinex.decode("GET", "/v3/order_book", body)
    assert book == {"bids": [[D("29990.5"), D("0.1")]], "asks": [[D("30010"), D("0.25")]], "date": 1589872188}
    with pytest.raises(digifinex.RateLimitError) as e:
        digifinex.decode("GET", "/v3/order_book", b'{"code":10005}')
    assert e.value.code == 10005
    with pytest.raises(digifinex.DecodeError):
        digifinex.decode("GET", "/v3/order_book", b"\xff\xfe")


def test_decode_of_any_bytes_never_crashes():
    import random

    rng = random.Random(5)
    seed = b'{"bids":[["1","2"]],"asks":[["3","4"]],"date":1,"code":0}'
    for _ in range(2000):
        data = bytearray(seed)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            digifinex.decode("GET", "/v3/order_book", bytes(data))
        except digifinex.Error:
            pass


def test_decimals_at_full_precision_are_exact():
    tiny = "0.0000000000000000000000000001"
    big = "7922816251426433759354395033.5"
    body = json.dumps({"bids": [[tiny, big]], "asks": [["-0", "1e-5"]], "date": 1, "code": 0}).encode()
    book = digifinex.decode("GET", "/v3/order_book", body)
    assert book["bids"] == [[D(tiny), D(big)]]
    assert str(book["bids"][0][0]) == "1E-28" and book["bids"][0][1].as_tuple().exponent == -1
    assert book["asks"][0][1] == D("0.00001")
