"""DigiFinex spot, margin and perpetual swaps from Python, exact to the last digit.

Money is ``decimal.Decimal`` in both directions: answers carry ``Decimal`` values built from the
venue's text, and parameters take ``Decimal``, ``int`` or ``str`` (a ``float`` is refused).
Timestamps are ``int`` (milliseconds for swap and websocket data, seconds where spot gives
seconds, as the API documents them).

>>> import digifinex
>>> with digifinex.Sim(flow=False) as sim:
...     client = digifinex.Client(sim.demo_key, sim.demo_secret,
...                               spot_base_url=sim.spot_base_url,
...                               swap_base_url=sim.swap_base_url)
...     book = client.order_book("btc_usdt", limit=5)

Every endpoint is reachable by its HTTP line with :meth:`Client.call`; the helpers below cover
the daily work. Errors are subclasses of :class:`digifinex.Error`, one per kind.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Callable, Optional, Sequence, Union

from . import _native
from ._native import (
    AuthError,
    BacktestError,
    Report,
    BanError,
    ClockError,
    DecodeError,
    Error,
    FeedConsumer,
    InsufficientFundsError,
    InvalidRequestError,
    NetworkError,
    NotFoundError,
    OutcomeUnknown,
    RateLimitError,
    RedirectError,
    RuleError,
    ServerError,
    SuspendedError,
    UnknownCodeError,
    ValidationError,
    decode,
)

__version__ = _native.__version__

__all__ = [
    "Client",
    "Sim",
    "Stream",
    "Error",
    "AuthError",
    "ClockError",
    "RateLimitError",
    "BanError",
    "InvalidRequestError",
    "ValidationError",
    "RuleError",
    "InsufficientFundsError",
    "NotFoundError",
    "SuspendedError",
    "ServerError",
    "NetworkError",
    "DecodeError",
    "RedirectError",
    "OutcomeUnknown",
    "UnknownCodeError",
    "decode",
    "read_recording",
    "FeedConsumer",
    "backtest",
    "Bot",
    "Report",
    "BacktestError",
    "RecordingWarning",
    "best_bid",
    "best_ask",
    "KEY_VAR",
    "SECRET_VAR",
]

#: The environment variables :meth:`Client.from_env` reads (the CLI's too).
KEY_VAR = "DIGIFINEX_API_KEY"
SECRET_VAR = "DIGIFINEX_API_SECRET"

Number = Union[Decimal, int, str]

#: Swap order sides by name (the wire's ``type`` codes).
SWAP_SIDES = {"open_long": 1, "open_short": 2, "close_long": 3, "close_short": 4}


class Client(_native.Client):
    """The exact client. ``Client(key=None, secret=None, *, spot_base_url=None,
    swap_base_url=None, allow_http=False, timeout=None, recv_window=None)``.

    Without a key pair only public endpoints work. Plain ``http://`` base URLs are accepted
    for loopback hosts (the simulator) and, with ``allow_http=True``, elsewhere.
    """

    @classmethod
    def from_env(cls, **kwargs: Any) -> "Client":
        """A client with the key pair from ``DIGIFINEX_API_KEY`` and ``DIGIFINEX_API_SECRET``
        (both or neither)."""
        key = os.environ.get(KEY_VAR) or None
        secret = os.environ.get(SECRET_VAR) or None
        return cls(key, secret, **kwargs)

    @classmethod
    def for_sim(cls, sim: "Sim", **kwargs: Any) -> "Client":
        """A client of the simulator ``sim`` with its demo key pair."""
        return cls(
            sim.demo_key,
            sim.demo_secret,
            spot_base_url=sim.spot_base_url,
            swap_base_url=sim.swap_base_url,
            **kwargs,
        )

    def stream(
        self,
        *subs: str,
        track: Optional[Sequence[str]] = None,
        spot_ws_url: Optional[str] = None,
        swap_ws_url: Optional[str] = None,
        queue: int = 4096,
        feed: Optional[str] = None,
        feed_stream: Optional[str] = None,
        feed_creds: Optional[str] = None,
    ) -> "Stream":
        """Websocket events of ``subs`` (``"spot:depth:btc_usdt"``, ``"swap:trades:BTCUSDTPERP"``,
        ``"spot:order"``: the subscription strings of ``digifinex stream``), over the socket
        beside each base URL (or ``spot_ws_url`` / ``swap_ws_url``), with this client's key
        pair for the private channels. ``track=["btc_usdt", "BTCUSDTPERP"]`` adds the account
        tracker of those markets (its channels, one read of the account at the start and after
        each reconnect): ``stream.changes()`` and ``stream.state()``.

        ``feed="nats://host:4222"``: the public subscriptions come from that market-data feed
        (``digifinex feed``; its JetStream stream ``feed_stream``, default ``DIGIFINEX``; NATS
        credentials file ``feed_creds``) as the same events, and only the private ones from
        the venue's socket (none is opened without them). A gap in the feed is a ``resync``
        event and the book is rebuilt from the feed's snapshot."""
        native = super().stream(
            *subs,
            track=list(track) if track is not None else None,
            spot_ws_url=spot_ws_url,
            swap_ws_url=swap_ws_url,
            queue=queue,
            feed=feed,
            feed_stream=feed_stream,
            feed_creds=feed_creds,
        )
        return Stream(native)

    # ---- market data ----

    def order_book(self, symbol: str, limit: Optional[int] = None) -> dict:
        """``GET /v3/order_book``: ``{"asks": [[price, amount], ...], "bids": [...], "date": s}``
        (the venue lists asks highest first; :func:`best_bid` and :func:`best_ask` pick the
        touch)."""
        return self.call("GET", "/v3/order_book", symbol=symbol, limit=limit)

    def ticker(self, symbol: Optional[str] = None) -> dict:
        """``GET /v3/ticker``: every pair's ticker, or ``symbol``'s."""
        return self.call("GET", "/v3/ticker", symbol=symbol)

    def swap_order_book(self, instrument_id: str, limit: Optional[int] = None) -> dict:
        """``GET /swap/v2/public/depth``."""
        return self.call("GET", "/swap/v2/public/depth", instrument_id=instrument_id, limit=limit)

    def swap_ticker(self, instrument_id: str) -> dict:
        """``GET /swap/v2/public/ticker``."""
        return self.call("GET", "/swap/v2/public/ticker", instrument_id=instrument_id)

    # ---- accounts ----

    def balances(self, market: str = "spot") -> dict:
        """``GET /v3/spot/assets`` (or ``/v3/margin/assets`` with ``market="margin"``)."""
        if market not in ("spot", "margin"):
            raise ValueError(f"market {market!r} is not spot or margin")
        return self.call("GET", f"/v3/{market}/assets")

    def swap_balances(self, currency: Optional[str] = None) -> list:
        """``GET /swap/v2/account/balance``."""
        return self.call("GET", "/swap/v2/account/balance", currency=currency)

    def positions(self, instrument_id: Optional[str] = None) -> list:
        """``GET /swap/v2/account/positions``."""
        return self.call("GET", "/swap/v2/account/positions", instrument_id=instrument_id)

    # ---- spot and margin orders ----

    def place_order(
        self,
        symbol: str,
        side: str,
        amount: Number,
        price: Optional[Number] = None,
        *,
        market: str = "spot",
        post_only: Optional[bool] = None,
        round: Optional[str] = None,
        unchecked: bool = False,
    ) -> dict:
        """``POST /v3/{market}/order/new``: a limit order with ``price``, a market order
        without (``amount`` in the quote currency for a market buy). Checked against the pair's
        rules first (``round="passive"`` or ``"nearest"`` rounds instead of refusing;
        ``unchecked=True`` sends it as given). Returns ``{"order_id": ...}``."""
        if side not in ("buy", "sell"):
            raise ValueError(f"side {side!r} is not buy or sell")
        kind = side if price is not None else f"{side}_market"
        return self.call(
            "POST",
            f"/v3/{market}/order/new",
            symbol=symbol,
            type=kind,
            amount=amount,
            price=price,
            post_only=post_only,
            round=round,
            unchecked=unchecked,
        )

    def cancel_orders(self, order_ids: Union[str, Sequence[str]], *, market: str = "spot") -> dict:
        """``POST /v3/{market}/order/cancel``: 1 to 20 ids; ``{"success": [...], "error": [...]}``."""
        if isinstance(order_ids, str):
            order_ids = [order_ids]
        return self.call("POST", f"/v3/{market}/order/cancel", order_id=",".join(order_ids))

    def open_orders(self, symbol: Optional[str] = None, *, market: str = "spot") -> list:
        """``GET /v3/{market}/order/current``: the open orders (of ``symbol``)."""
        return self.call("GET", f"/v3/{market}/order/current", symbol=symbol)

    # ---- swap orders ----

    def place_swap_order(
        self,
        instrument_id: str,
        side: Union[str, int],
        size: Number,
        price: Optional[Number] = None,
        *,
        order_type: Optional[int] = None,
        post_only: Optional[bool] = None,
        round: Optional[str] = None,
        unchecked: bool = False,
    ) -> dict:
        """``POST /swap/v2/trade/order_place``. ``side`` is ``open_long``, ``open_short``,
        ``close_long``, ``close_short`` (or the code 1-4); ``order_type`` defaults to 0 (limit)
        with a price and 1 (IOC at the opposite best price) without. Checked against the
        instrument's rules first like :meth:`place_order`."""
        code = SWAP_SIDES.get(side, side) if isinstance(side, str) else side
        if code not in (1, 2, 3, 4):
            raise ValueError(f"side {side!r} is not one of {', '.join(SWAP_SIDES)}")
        if order_type is None:
            order_type = 0 if price is not None else 1
        return self.call(
            "POST",
            "/swap/v2/trade/order_place",
            instrument_id=instrument_id,
            type=code,
            order_type=order_type,
            size=size,
            price=price,
            post_only=post_only,
            round=round,
            unchecked=unchecked,
        )

    def cancel_swap_order(self, instrument_id: str, order_id: str) -> dict:
        """``POST /swap/v2/trade/cancel_order``."""
        return self.call(
            "POST", "/swap/v2/trade/cancel_order", instrument_id=instrument_id, order_id=order_id
        )

    def swap_open_orders(self, instrument_id: Optional[str] = None) -> list:
        """``GET /swap/v2/trade/open_orders``."""
        return self.call("GET", "/swap/v2/trade/open_orders", instrument_id=instrument_id)


class Stream:
    """Websocket events of :meth:`Client.stream`: iterate it (``for event in stream``) or, under
    asyncio, ``async for event in stream`` (each wait runs in the loop's default executor, so
    the event loop keeps running). Events are dicts with a ``type`` (``book``,
    ``spot_trades``, ``swap_trades``, ``spot_tickers``, ``swap_ticker``, ``spot_orders``,
    ``spot_balances``, ``swap_orders``, ``swap_positions``, ``swap_accounts``, connection
    states such as ``connected`` and ``resync``, ...), as
    ``digifinex stream`` prints them. ``changes()`` and ``state()`` are the account tracker's
    when ``track`` named markets. ``close()`` (or the end of a ``with`` block) closes the
    sockets."""

    def __init__(self, native: "_native.Stream") -> None:
        self._native = native

    def __iter__(self) -> "Stream":
        return self

    def __next__(self) -> dict:
        return self._native.__next__()

    def next_event(self, timeout: float) -> Optional[dict]:
        """The next event within ``timeout`` seconds, or ``None``."""
        return self._native.next_event(timeout)

    def poll(self, timeout: float) -> "tuple[Optional[dict], bool]":
        """``(event or None, ended)`` within ``timeout`` seconds."""
        return self._native.poll(timeout)

    def changes(self) -> list:
        """The tracker's changes since the last call, oldest first."""
        return self._native.changes()

    def state(self, family: Optional[str] = None) -> Optional[dict]:
        """The tracker's account state (orders, balances, positions) as of the last event."""
        return self._native.state(family)

    @property
    def lost_changes(self) -> int:
        """Changes dropped because more than 100,000 waited unread (``state()`` stays exact)."""
        return self._native.lost_changes

    def close(self) -> None:
        """Closes every socket; the iteration ends."""
        self._native.close()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False

    def __aiter__(self) -> "Stream":
        return self

    async def __anext__(self) -> dict:
        import asyncio

        loop = asyncio.get_running_loop()
        while True:
            event, ended = await loop.run_in_executor(None, self._native.poll, 0.5)
            if event is not None:
                return event
            if ended:
                raise StopAsyncIteration


def read_recording(path: Union[str, "os.PathLike[str]"], *, top: Optional[int] = None) -> dict:
    """The tables of a recording (``digifinex record``, gzip or zstd) as ``pyarrow.Table``
    values by name: ``book`` (or ``book_top`` with ``top=N`` levels per side), ``trades``,
    ``tickers``, ``funding``, ``mark_index``, ``markers``; only tables with rows. Prices and
    quantities are ``decimal128(38, 18)`` (exact: ``to_pandas()`` gives ``Decimal`` values,
    ``polars.from_arrow`` a Decimal column), times UTC microsecond timestamps. The columns are
    those of ``digifinex market export`` (docs/market-data.md).

    A damaged recording gives every intact record and a ``RecordingWarning`` saying what was
    skipped. Needs pyarrow."""
    import tempfile
    import warnings

    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="digifinex-") as out:
        summary = _native.export_recording(os.fspath(path), out, top)
        tables = {t["name"]: pq.read_table(t["path"], memory_map=False) for t in summary["tables"]}
    if summary["damaged"]:
        warnings.warn(
            RecordingWarning(
                f"{os.fspath(path)}: {summary['bad_lines']} bad lines, "
                f"{summary['bad_times']} bad times, {summary['unfit_records']} values too large "
                f"or too precise, truncated={summary['truncated']} (skipped); "
                + "; ".join(summary["messages"])
            ),
            stacklevel=2,
        )
    return tables


class RecordingWarning(UserWarning):
    """A recording had damaged parts; everything intact was read."""


def best_bid(book: dict) -> Optional[list]:
    """The highest bid ``[price, amount]`` of a book answer, or ``None``."""
    bids = book.get("bids") or []
    return max(bids, key=lambda level: level[0]) if bids else None


def best_ask(book: dict) -> Optional[list]:
    """The lowest ask ``[price, amount]`` of a book answer, or ``None`` (never ``asks[0]``:
    the venue lists asks highest first)."""
    asks = book.get("asks") or []
    return min(asks, key=lambda level: level[0]) if asks else None


class Sim(_native.Sim):
    """The local exchange in this process: ``with digifinex.Sim() as sim: ...``.

    ``Sim(*, seed=None, limits=True, flow=True, market=None, speed=None, latency=None,
    synthetic=None)``, the options of ``digifinex sim``. Its URLs and demo key pair
    (``spot_base_url``, ``swap_base_url``, ``spot_ws_url``, ``swap_ws_url``, ``demo_key``,
    ``demo_secret``) are what ``digifinex sim`` prints; the control operations (clock, faults,
    balances) are methods.
    """

    def client(self, **kwargs: Any) -> Client:
        """A :class:`Client` of this simulator with the demo key pair."""
        return Client.for_sim(self, **kwargs)


class Bot:
    """What a backtest's strategy is given: :attr:`client`, a :class:`Client` wired to the
    exchange in this process (the demo account's keys; each REST call takes its modelled
    latency of virtual time; :meth:`Client.stream` reads the exchange's pushes on this thread
    and ends when time is over), the run's markets, and :meth:`wait`, its sleep in virtual
    time."""

    def __init__(self, native: "_native.Bot") -> None:
        self._native = native
        self.client = Client(_bot=native)

    @property
    def spot_pairs(self) -> "list[str]":
        """The spot pairs of the run (``"btc_usdt"``)."""
        return self._native.spot_pairs

    @property
    def swap_instruments(self) -> "list[str]":
        """The perpetuals of the run (``"BTCUSDTPERP"``)."""
        return self._native.swap_instruments

    def now_ms(self) -> int:
        """The exchange's time, ms since the Unix epoch."""
        return self._native.now_ms()

    def wait(self, seconds: float) -> bool:
        """Lets ``seconds`` of virtual time pass (at once); ``False`` when time is over."""
        return self._native.wait(seconds)

    @property
    def over(self) -> bool:
        """Whether time is over."""
        return self._native.over

    def __repr__(self) -> str:
        return repr(self._native)


def backtest(
    strategy: Union[str, Callable[[Bot], Any]],
    *,
    market: Optional[Union[str, "os.PathLike[str]"]] = None,
    fill_model: str = "fifo",
    latency: str = "20:20",
    spot: Optional[Sequence[str]] = None,
    swap: Optional[Sequence[str]] = None,
    seed: Optional[int] = None,
    fees: Optional[str] = None,
    swap_fees: Optional[str] = None,
    end_ms: Optional[int] = None,
    duration_s: Optional[float] = None,
    sample_every_ms: int = 60_000,
    requote_ms: int = 10_000,
) -> Report:
    """Runs ``strategy(bot)`` (a :class:`Bot`) over the exchange in this process, in virtual
    time, and returns the :class:`Report` of what it did (``report.json``, ``report.pnl("total")``,
    ``report.write(dir)`` for ``report.json`` and ``report.html``).

    ``market`` is a recording (``digifinex record``) replayed to its end; without it the
    exchange runs its synthetic order flow for one hour. ``end_ms`` (ms since the epoch) or
    ``duration_s`` (seconds from the start) ends time elsewhere. The
    other options are those of ``digifinex backtest``: ``fill_model`` (``fifo``, ``prob-log``,
    ``prob-power[:N]``), ``latency`` (``ENTRY_MS[:RESPONSE_MS]``, ``uniform:LO-HI[:LO-HI]``,
    ``file:PATH``), ``spot`` and ``swap`` (the markets traded and reported), ``seed``, ``fees``
    and ``swap_fees`` (``MAKER:TAKER`` fractions). ``strategy`` may also be a bundled strategy's
    name (``"quote-touch"``, checking every ``requote_ms``).

    The same options and strategy give the same report, byte for byte. When the strategy
    raises, :class:`BacktestError` is raised from its exception, with ``.report`` the report
    of the run up to then.
    """
    if callable(strategy):
        user = strategy

        def strategy(native: "_native.Bot") -> Any:
            return user(Bot(native))

    return _native.backtest(
        strategy,
        market=os.fspath(market) if market is not None else None,
        fill_model=fill_model,
        latency=latency,
        spot=list(spot) if spot is not None else None,
        swap=list(swap) if swap is not None else None,
        seed=seed,
        fees=fees,
        swap_fees=swap_fees,
        end_ms=end_ms,
        duration_s=duration_s,
        sample_every_ms=sample_every_ms,
        requote_ms=requote_ms,
    )
