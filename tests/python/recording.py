"""Reads a `digifinex-market` recording (gzip JSON lines) with exact decimals, independently of
the Rust reader: what the tests compare the exports with."""

import gzip
import json
from decimal import Decimal

DEPTH = {"spot_depth", "swap_depth", "spot_book", "swap_book"}
TRADES = {"spot_trades", "swap_trades"}


def read(path):
    """The header and the records, in file order."""
    with gzip.open(path, "rt") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return lines[0], lines[1:]


def market(record):
    """(family, market) of a record, or None."""
    if "symbol" in record:
        return ("spot", record["symbol"])
    if "instrument" in record:
        return ("swap", record["instrument"])
    return None


def trades(records, family, name):
    """The trades of one market as an export writes them: each record's list oldest first
    (stable among equal times), an id already seen written once. Tuples of (local time ms,
    trade time ms, id, side, price, qty)."""
    kind = f"{family}_trades"
    seen = set()
    out = []
    for r in records:
        if r["kind"] != kind or market(r) != (family, name):
            continue
        for t in sorted(r["trades"], key=lambda t: t["time"]):
            if t["id"] in seen:
                continue
            seen.add(t["id"])
            out.append((r["t"], t["time"], t["id"], t["side"], Decimal(t["price"]), Decimal(t["qty"])))
    return out


def books(records, family, name):
    """The recorded book of one market after each record time (ms) at which it is valid: a
    snapshot replaces it, a delta sets or (amount 0) deletes levels, a resync or reconnect
    marker makes it invalid until the next snapshot. A dict {t: (bids, asks)} of the state
    after the last record of that millisecond, each side {price: qty} in Decimal."""
    bids, asks, valid = {}, {}, False
    out = {}
    for r in records:
        kind = r["kind"]
        if kind == "resync" and market(r) == (family, name):
            valid = False
            out.pop(r["t"], None)
            continue
        if kind == "reconnect" and r["family"] == family and (not r.get("markets") or name in r["markets"]):
            valid = False
            out.pop(r["t"], None)
            continue
        if kind not in DEPTH or market(r) != (family, name):
            continue
        levels = [(bids, r["bids"]), (asks, r["asks"])]
        snapshot = kind.endswith("_book") or r.get("snapshot", False)
        if snapshot:
            bids, asks = {}, {}
            levels = [(bids, r["bids"]), (asks, r["asks"])]
            valid = True
        elif not valid:
            continue
        for side, ls in levels:
            for p, q in ls:
                p, q = Decimal(p), Decimal(q)
                if q == 0:
                    side.pop(p, None)
                else:
                    side[p] = q
        out[r["t"]] = (dict(bids), dict(asks))
    return out
