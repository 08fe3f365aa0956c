"""Each error kind as its exception class, with the venue's code, the HTTP status and the body
snippet; the unknown outcome of an order reconciled. Each test takes a fresh client: a session
remembers bans and measured clocks."""

from decimal import Decimal as D

import pytest

import digifinex


@pytest.fixture(autouse=True)
def no_faults(sim):
    sim.clear_faults()
    yield
    sim.clear_faults()


def test_every_class_derives_from_the_base():
    for name in digifinex.__all__:
        obj = getattr(digifinex, name)
        if isinstance(obj, type) and name.endswith(("Error", "Unknown")):
            assert issubclass(obj, digifinex.Error), name
    assert issubclass(digifinex.Error, Exception)
    assert issubclass(digifinex.ValidationError, digifinex.InvalidRequestError)
    assert issubclass(digifinex.RuleError, digifinex.InvalidRequestError)


def test_auth(sim):
    bad = digifinex.Client(sim.demo_key, "not-the-secret", spot_base_url=sim.spot_base_url)
    with pytest.raises(digifinex.AuthError) as e:
        bad.balances()
    assert (e.value.kind, e.value.code, e.value.status) == ("auth", 10003, 200)
    assert e.value.venue_message == "signature mismatch"
    unknown = digifinex.Client("no-such-key", "x", spot_base_url=sim.spot_base_url)
    with pytest.raises(digifinex.AuthError) as e:
        unknown.balances()
    assert e.value.code == 10002


def test_insufficient_funds(sim):
    with pytest.raises(digifinex.InsufficientFundsError) as e:
        sim.client().place_order("btc_usdt", "buy", D("1000"), D("30000"))
    assert (e.value.kind, e.value.code) == ("insufficient_funds", 20011)


def test_not_found(sim):
    with pytest.raises(digifinex.NotFoundError) as e:
        sim.client().call("GET", "/v3/spot/order", order_id="0123456789abcdef0123456789abcdef")
    assert (e.value.kind, e.value.code) == ("not_found", 20013)


def test_suspended(sim):
    sim.set_api_tradable("btc_usdt", False)
    try:
        # Refused before sending, from the pair's rules ...
        with pytest.raises(digifinex.SuspendedError) as e:
            sim.client().place_order("btc_usdt", "buy", D("0.1"), D("100"))
        assert e.value.code == 20042 and e.value.status is None
        # ... and by the venue when sent unchecked.
        with pytest.raises(digifinex.SuspendedError) as e:
            sim.client().place_order("btc_usdt", "buy", D("0.1"), D("100"), unchecked=True)
        assert (e.value.code, e.value.status) == (20042, 200)
    finally:
        sim.set_api_tradable("btc_usdt", True)
    sim.set_swap_trading("BTCUSDTPERP", False)
    try:
        with pytest.raises(digifinex.SuspendedError) as e:
            sim.client().place_swap_order("BTCUSDTPERP", "open_long", 1, D("20000"), unchecked=True)
        assert (e.value.code, e.value.status) == (401004, 400)
    finally:
        sim.set_swap_trading("BTCUSDTPERP", True)


def test_rate_limit_on_a_write_is_not_retried(sim):
    sim.add_fault(
        {
            "method": "POST",
            "path": "/v3/spot/order/new",
            "fault": {"kind": "too_many_requests", "retry_after_s": 2},
            "count": 1,
        }
    )
    client = sim.client()
    with pytest.raises(digifinex.RateLimitError) as e:
        client.place_order("btc_usdt", "buy", D("0.1"), D("100"))
    assert (e.value.kind, e.value.status, e.value.retry_after) == ("rate_limit", 429, 2.0)
    assert sim.open_order_count() == 0


def test_ban(sim):
    sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "html_error", "status": 403}})
    with pytest.raises(digifinex.BanError) as e:
        sim.client().ticker()
    assert (e.value.kind, e.value.status) == ("ban", 403)
    assert e.value.snippet.startswith("<html>")


def test_server_error_after_the_retries_of_a_read(sim):
    sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "server_error", "status": 503}})
    with pytest.raises(digifinex.ServerError) as e:
        sim.client().ticker()
    assert (e.value.kind, e.value.code, e.value.status) == ("server", 50000, 503)


def test_decode_error_names_the_path(sim):
    sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "malformed_json"}})
    with pytest.raises(digifinex.DecodeError) as e:
        sim.client().ticker()
    assert e.value.kind == "decode" and e.value.status == 200
    assert "digifinex_core::spot::market::Tickers" in str(e.value)
    assert e.value.snippet.startswith('{"ticker":[')


def test_redirect_is_not_followed(sim):
    sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "html_error", "status": 302}})
    with pytest.raises(digifinex.RedirectError) as e:
        sim.client().ticker()
    assert (e.value.kind, e.value.status) == ("redirect", 302)


def test_network():
    # Port 9 (discard) on loopback: nothing listens in the test machines.
    with pytest.raises(digifinex.NetworkError) as e:
        digifinex.Client(spot_base_url="http://127.0.0.1:9/v3").ticker()
    assert e.value.kind == "network" and e.value.status is None


def test_clock_offset_is_measured(sim):
    # A spot clock error (10008) is answered by one automatic time sync; the offset the
    # session then signs with is the simulator's.
    sim.set_clock_offset(60_000)
    try:
        client = sim.client()
        assert client.balances()["list"]
        offset = client.sync_time("spot")
        assert 55_000 <= offset <= 65_000
    finally:
        sim.set_clock_offset(0)


def test_unknown_outcome_applied_then_reconciled(sim):
    client = sim.client()
    sim.add_fault(
        {"method": "POST", "path": "/v3/spot/order/new", "fault": {"kind": "drop_after_apply"}, "count": 1}
    )
    with pytest.raises(digifinex.OutcomeUnknown) as e:
        client.place_order("btc_usdt", "buy", D("0.1"), D("101"))
    err = e.value
    assert err.kind == "outcome_unknown"
    assert err.method == "POST" and err.url.endswith("/v3/spot/order/new")
    assert "price=101" in err.body and "amount=0.1" in err.body
    assert isinstance(err.cause, digifinex.NetworkError)
    verdict = client.reconcile(err)
    assert verdict["resolution"] == "applied"
    assert verdict["endpoint"] == "spot.order_new"
    (applied,) = verdict["verdicts"]
    assert applied["verdict"] == "applied"
    assert [o["order_id"] for o in client.open_orders("btc_usdt")["data"]] == [applied["id"]]
    assert verdict["snapshot"]["complete"] is True
    client.cancel_orders(applied["id"])


def test_unknown_outcome_not_applied(sim):
    client = sim.client()
    sim.add_fault(
        {"method": "POST", "path": "/v3/spot/order/new", "fault": {"kind": "drop_before_apply"}, "count": 1}
    )
    with pytest.raises(digifinex.OutcomeUnknown) as e:
        client.place_order("btc_usdt", "buy", D("0.1"), D("102"))
    verdict = client.reconcile(e.value)
    assert verdict["resolution"] == "not_applied"
    assert client.open_orders("btc_usdt")["data"] == []


def test_reconcile_takes_only_an_unknown_outcome(sim):
    with pytest.raises(TypeError):
        sim.client().reconcile(ValueError("no"))
