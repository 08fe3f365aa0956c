"""Fixtures: one simulator per test module (in this process), and its demo client."""

import pytest

import digifinex


@pytest.fixture(scope="module")
def sim():
    # No order flow: books and balances change only through the tests' own orders.
    with digifinex.Sim(flow=False, seed=7) as s:
        yield s


@pytest.fixture()
def client(sim):
    return sim.client()
