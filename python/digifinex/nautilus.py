"""A nautilus_trader data catalog from a recording (``digifinex record``), so that nautilus
backtests run over DigiFinex data (nautilus's Tardis loader refuses venues Tardis does not
list).

``write_catalog(recording_path, catalog_path)`` writes, through nautilus's own public API
(``ParquetDataCatalog.write_data``):

* the instruments: a ``CurrencyPair`` per spot pair (``ICP_USDT.DIGIFINEX``) and a
  ``CryptoPerpetual`` per swap instrument (``ICPUSDTPERP.DIGIFINEX``, linear, settled in the
  quote currency, multiplier the contract value);
* ``OrderBookDelta`` records: a snapshot is a ``CLEAR`` then one ``ADD`` per level (flag
  ``F_SNAPSHOT``), a delta one ``UPDATE`` per level or ``DELETE`` for a size of 0; the last
  delta of each recorded frame carries ``F_LAST``; sequence 0 (DigiFinex sends none);
* ``TradeTick`` records (aggressor from the taker side, the venue's trade id and time);
* ``FundingRateUpdate`` records for swaps (the rate of the next settlement).

DESIGN: a market's precisions are the header's (the venue's rules), raised to the most decimal
places its recorded prices and sizes use, so that every value is written exactly (nautilus
rounds a value to its instrument's precision). Swap sizes are contracts. Times are the
recorder's receive time (``ts_init``; a book frame carries no venue time) and, for trades, the
venue's trade time (``ts_event``). Needs nautilus_trader and pyarrow.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Dict, List, Optional, Union

from . import _native, read_recording

VENUE = "DIGIFINEX"

#: The most decimal places nautilus's standard build keeps.
MAX_PRECISION = 9


def _places(d: Optional[Decimal]) -> int:
    if d is None:
        return 0
    exp = d.normalize().as_tuple().exponent
    return max(0, -exp) if isinstance(exp, int) else 0


def _text(d: Decimal, places: int) -> str:
    return format(d.quantize(Decimal(1).scaleb(-places)), "f")


def _nanos(column) -> List[Optional[int]]:
    import pyarrow as pa

    return [None if v is None else v * 1000 for v in column.cast(pa.int64()).to_pylist()]


_registered = False


def register_funding() -> None:
    """Registers the Parquet form of ``FundingRateUpdate`` with nautilus (which has none of its
    own): ``instrument_id``, ``rate`` (the decimal's exact text), ``next_funding_ns``,
    ``ts_event``, ``ts_init``. ``write_catalog`` calls it; a program reading funding rates back
    from the catalog calls it first too."""
    global _registered
    if _registered:
        return
    import pyarrow as pa
    from nautilus_trader.model.data import FundingRateUpdate
    from nautilus_trader.model.identifiers import InstrumentId
    from nautilus_trader.serialization.arrow.serializer import register_arrow

    schema = pa.schema(
        [
            ("instrument_id", pa.string()),
            ("rate", pa.string()),
            ("next_funding_ns", pa.uint64()),
            ("ts_event", pa.uint64()),
            ("ts_init", pa.uint64()),
        ],
        metadata={"type": "FundingRateUpdate"},
    )

    def encode(obj):
        if not isinstance(obj, list):
            obj = [obj]
        return pa.RecordBatch.from_pylist(
            [
                {
                    "instrument_id": str(o.instrument_id),
                    "rate": format(o.rate, "f"),
                    "next_funding_ns": o.next_funding_ns,
                    "ts_event": o.ts_event,
                    "ts_init": o.ts_init,
                }
                for o in obj
            ],
            schema=schema,
        )

    def decode(table):
        return [
            FundingRateUpdate(
                InstrumentId.from_str(r["instrument_id"]),
                Decimal(r["rate"]),
                r["ts_event"],
                r["ts_init"],
                next_funding_ns=r["next_funding_ns"],
            )
            for r in table.to_pylist()
        ]

    register_arrow(FundingRateUpdate, schema, encoder=encode, decoder=decode)
    _registered = True


def write_catalog(
    recording_path: Union[str, "os.PathLike[str]"],
    catalog_path: Union[str, "os.PathLike[str]"],
    *,
    venue: str = VENUE,
) -> Dict[str, int]:
    """Writes the recording into the nautilus catalog at ``catalog_path`` (created when
    missing); returns the counts written (``instruments``, ``deltas``, ``trades``,
    ``funding``)."""
    from nautilus_trader.model.currencies import Currency
    from nautilus_trader.model.data import (
        BookOrder,
        FundingRateUpdate,
        OrderBookDelta,
        TradeTick,
    )
    from nautilus_trader.model.enums import AggressorSide, BookAction, OrderSide, RecordFlag
    from nautilus_trader.model.identifiers import InstrumentId, Symbol, TradeId, Venue
    from nautilus_trader.model.instruments import CryptoPerpetual, CurrencyPair
    from nautilus_trader.model.objects import Price, Quantity
    from nautilus_trader.persistence.catalog import ParquetDataCatalog

    header = _native.recording_header(os.fspath(recording_path))
    tables = read_recording(recording_path)
    book = tables.get("book")
    trades = tables.get("trades")
    funding = tables.get("funding")

    # The decimal places each market's values use.
    used: Dict[str, List[int]] = {}

    def note(market: str, price: Optional[Decimal], qty: Optional[Decimal]) -> None:
        p, q = used.setdefault(market, [0, 0])
        used[market] = [max(p, _places(price)), max(q, _places(qty))]

    book_rows = book.to_pylist() if book is not None else []
    trade_rows = trades.to_pylist() if trades is not None else []
    for r in book_rows + trade_rows:
        note(r["market"], r["price"], r["qty"])

    def currency(code: str) -> Any:
        code = code.upper()
        try:
            return Currency.from_str(code)
        except Exception:  # a code nautilus does not know: a crypto currency of 8 places
            from nautilus_trader.model.enums import CurrencyType

            return Currency(code, 8, 0, code, CurrencyType.CRYPTO)

    instruments: Dict[str, Any] = {}
    v = Venue(venue)
    for p in header["spot"]:
        name = p["symbol"].upper()
        base, _, quote = name.partition("_")
        pp = max(p["price_precision"], used.get(name, [0, 0])[0])
        sp = max(p["amount_precision"], used.get(name, [0, 0])[1])
        instruments[name] = CurrencyPair(
            instrument_id=InstrumentId(Symbol(name), v),
            raw_symbol=Symbol(p["symbol"]),
            base_currency=currency(base),
            quote_currency=currency(quote),
            price_precision=pp,
            size_precision=sp,
            price_increment=Price.from_str(_text(Decimal(1).scaleb(-pp), pp)),
            size_increment=Quantity.from_str(_text(Decimal(1).scaleb(-sp), sp)),
            ts_event=0,
            ts_init=0,
            min_quantity=Quantity.from_str(_text(p["min_amount"], sp)),
        )
    for i in header["swap"]:
        name = i["instrument_id"]
        pp = max(i["price_precision"], _places(i["tick_size"]), used.get(name, [0, 0])[0])
        sp = max(_places(i["min_order_amount"]), used.get(name, [0, 0])[1])
        instruments[name] = CryptoPerpetual(
            instrument_id=InstrumentId(Symbol(name), v),
            raw_symbol=Symbol(name),
            base_currency=currency(i["base"]),
            quote_currency=currency(i["quote"]),
            settlement_currency=currency(i["quote"]),
            is_inverse=False,
            price_precision=pp,
            size_precision=sp,
            price_increment=Price.from_str(_text(i["tick_size"], pp)),
            size_increment=Quantity.from_str(_text(Decimal(1).scaleb(-sp), sp)),
            ts_event=0,
            ts_init=0,
            multiplier=Quantity.from_str(format(i["contract_value"].normalize(), "f")),
            min_quantity=Quantity.from_str(_text(i["min_order_amount"], sp)),
        )
    for name, inst in instruments.items():
        if inst.price_precision > MAX_PRECISION or inst.size_precision > MAX_PRECISION:
            raise ValueError(f"{name}: more than {MAX_PRECISION} decimal places, which nautilus cannot keep")

    def market_of(name: str) -> Optional[Any]:
        return instruments.get(name.upper()) or instruments.get(name)

    deltas = []
    if book is not None:
        times = _nanos(book.column("time"))
        frame = None
        for k, (r, t) in enumerate(zip(book_rows, times)):
            inst = market_of(r["market"])
            if inst is None:
                continue
            key = (r["seq"], r["market"])
            last = k + 1 == len(book_rows) or (book_rows[k + 1]["seq"], book_rows[k + 1]["market"]) != key
            snapshot = r["update"] == "snapshot"
            flags = RecordFlag.F_SNAPSHOT if snapshot else 0
            if snapshot and key != frame:
                deltas.append(OrderBookDelta.clear(inst.id, 0, t, t))
            frame = key
            side = OrderSide.BUY if r["side"] == "bid" else OrderSide.SELL
            price = Price.from_str(_text(r["price"], inst.price_precision))
            size = Quantity.from_str(_text(r["qty"], inst.size_precision))
            if snapshot:
                action = BookAction.ADD
            elif r["qty"] == 0:
                action = BookAction.DELETE
            else:
                action = BookAction.UPDATE
            if last:
                flags |= RecordFlag.F_LAST
            deltas.append(
                OrderBookDelta(inst.id, action, BookOrder(side, price, size, 0), flags, 0, t, t)
            )

    ticks = []
    if trades is not None:
        times = _nanos(trades.column("time"))
        venue_times = _nanos(trades.column("trade_time"))
        for r, t, vt in zip(trade_rows, times, venue_times):
            inst = market_of(r["market"])
            if inst is None or r["qty"] <= 0:
                continue
            ticks.append(
                TradeTick(
                    inst.id,
                    Price.from_str(_text(r["price"], inst.price_precision)),
                    Quantity.from_str(_text(r["qty"], inst.size_precision)),
                    AggressorSide.BUYER if r["side"] == "buy" else AggressorSide.SELLER,
                    TradeId(str(r["id"])),
                    vt if vt is not None else t,
                    t,
                )
            )

    rates = []
    if funding is not None:
        times = _nanos(funding.column("time"))
        nexts = _nanos(funding.column("next_time"))
        for r, t, n in zip(funding.to_pylist(), times, nexts):
            inst = market_of(r["market"])
            if inst is None or r["rate"] is None:
                continue
            rates.append(FundingRateUpdate(inst.id, r["rate"].normalize(), t, t, next_funding_ns=n))

    register_funding()
    catalog = ParquetDataCatalog(os.fspath(catalog_path))
    catalog.write_data(list(instruments.values()))
    # nautilus sorts within a write; ticks of one instrument go in one call each.
    if deltas:
        catalog.write_data(deltas)
    if ticks:
        catalog.write_data(ticks)
    if rates:
        catalog.write_data(rates)
    return {
        "instruments": len(instruments),
        "deltas": len(deltas),
        "trades": len(ticks),
        "funding": len(rates),
    }
