"""The simulator in-process: names, clock, faults, balances."""

from decimal import Decimal as D

import pytest

import digifinex


def test_urls_and_demo_keys(sim):
    assert sim.spot_base_url.startswith("http://127.0.0.1:") and sim.spot_base_url.endswith("/v3")
    assert sim.swap_base_url == sim.spot_base_url[: -len("/v3")]
    assert sim.spot_ws_url.startswith("ws://127.0.0.1:")
    assert sim.swap_ws_url.startswith("ws://127.0.0.1:")
    assert sim.control_url.endswith("/__sim")
    assert sim.demo_key and sim.demo_secret
    assert isinstance(sim.demo_account, int)
    assert sim.demo_secret not in repr(sim)


def test_clock_controls():
    with digifinex.Sim(flow=False) as sim:
        frozen = sim.freeze_clock(1_800_000_000_000)
        assert frozen == sim.now_ms() == 1_800_000_000_000
        assert sim.advance_clock(60_000) == 1_800_000_060_000
        assert sim.client().order_book("btc_usdt", 1)["date"] == 1_800_000_060
        sim.unfreeze_clock()
        with pytest.raises(ValueError):
            sim.advance_clock(10**18)


def test_balances_are_exact(sim):
    account = sim.create_account()
    key, secret = sim.create_api_key(account)
    sim.set_balance("USDT", D("1234.56789"), account=account)
    sim.credit("USDT", "0.00011", account=account)
    sim.set_balance("USDT", 5, account=account, account_type="swap")
    rows = {(r["account_type"], r["currency"]): r for r in sim.balances(account)}
    assert rows[("spot", "USDT")]["free"] == D("1234.56800")
    assert rows[("swap", "USDT")]["free"] == D("5")
    client = digifinex.Client(key, secret, spot_base_url=sim.spot_base_url, swap_base_url=sim.swap_base_url)
    spot = {b["currency"]: b for b in client.balances()["list"]}
    assert spot["USDT"]["free"] == D("1234.568")
    with pytest.raises(ValueError):
        sim.set_balance("USDT", D("-1"), account=account)
    with pytest.raises(TypeError):
        sim.set_balance("USDT", 1.5, account=account)
    with pytest.raises(ValueError):
        sim.set_balance("USDT", 1, account=account, account_type="nope")


def test_faults_round_trip(sim):
    sim.clear_faults()
    fid = sim.add_fault({"path": "/v3/ticker", "fault": {"kind": "latency", "ms": 1}, "count": 2})
    assert sim.faults() == [
        {"id": fid, "rule": {"method": None, "path": "/v3/ticker", "fault": {"kind": "latency", "ms": 1}, "count": 2}}
    ]
    assert sim.remove_fault(fid) is True
    assert sim.faults() == []
    with pytest.raises(ValueError, match="invalid fault rule"):
        sim.add_fault({"fault": {"kind": "nope"}})


def test_options_are_the_cli_options():
    with pytest.raises(ValueError, match="--latency"):
        digifinex.Sim(latency="sometimes")
    with digifinex.Sim(limits=False, synthetic=(2, 1), latency="fixed:5", seed=3) as sim:
        client = sim.client()
        assert client.order_book("s1_usdt", 1)["bids"]
        assert client.swap_order_book("S0USDTPERP", 1)["bids"]


def test_close_is_idempotent():
    sim = digifinex.Sim(flow=False)
    url = sim.spot_base_url
    sim.close()
    sim.close()
    with pytest.raises(digifinex.NetworkError):
        digifinex.Client(spot_base_url=url).ticker()
