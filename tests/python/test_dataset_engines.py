"""DuckDB and polars read a whole `--dataset` glob (several recordings, many files, prices of
different precisions) as one table with one decimal type, and its sums are exact: equal to the
sums of the recordings' decimal text."""

from collections import defaultdict
from decimal import Decimal

import duckdb
import polars as pl

import recording


def expected_trades(inputs):
    """Per (family, market): trade count, sum of prices, sum of quantities (each id once)."""
    out = defaultdict(lambda: [0, Decimal(0), Decimal(0)])
    for path in inputs:
        _, records = recording.read(path)
        markets = {recording.market(r) for r in records if r["kind"] in recording.TRADES}
        for family, name in markets:
            for *_, price, qty in recording.trades(records, family, name):
                s = out[(family, name)]
                s[0] += 1
                s[1] += price
                s[2] += qty
    return dict(out)


def expected_book(inputs):
    """Level rows, sum of prices, sum of quantities over every level of every book record."""
    n, prices, qtys = 0, Decimal(0), Decimal(0)
    for path in inputs:
        _, records = recording.read(path)
        for r in records:
            if r["kind"] in recording.DEPTH:
                for p, q in r["bids"] + r["asks"]:
                    n += 1
                    prices += Decimal(p)
                    qtys += Decimal(q)
    return n, prices, qtys


def test_the_dataset_has_many_files(dataset):
    ds, inputs = dataset
    trades = sorted(ds.glob("table=trades/*/*/*/*.parquet"))
    assert len(trades) >= 6, trades
    # Several files in one partition (the 1 KiB target), and several recordings.
    parts = defaultdict(int)
    for f in trades:
        parts[f.parent] += 1
    assert max(parts.values()) >= 2
    assert len({f.name.split("-")[1] for f in trades}) == len(inputs)


def test_duckdb_sums_the_glob_exactly(dataset):
    ds, inputs = dataset
    expected = expected_trades(inputs)
    assert {m for _, m in expected} >= {"btc_usdt", "icp_usdt", "BTCUSDTPERP"}
    con = duckdb.connect()
    glob = f"{ds}/table=trades/**/*.parquet"
    types = con.execute(f"DESCRIBE SELECT price, qty FROM read_parquet('{glob}')").fetchall()
    assert [(c, t) for c, t, *_ in types] == [("price", "DECIMAL(38,18)"), ("qty", "DECIMAL(38,18)")]
    rows = con.execute(
        f"SELECT family, market, count(*), sum(price), sum(qty) "
        f"FROM read_parquet('{glob}', hive_partitioning = true) GROUP BY ALL"
    ).fetchall()
    got = {(f, m): [n, p, q] for f, m, n, p, q in rows}
    assert got == expected
    assert all(isinstance(p, Decimal) for _, _, _, p, _ in rows)

    n, prices, qtys = expected_book(inputs)
    assert con.execute(
        f"SELECT count(*), sum(price), sum(qty) FROM read_parquet('{ds}/table=book/**/*.parquet')"
    ).fetchone() == (n, prices, qtys)


def test_polars_sums_the_glob_exactly(dataset):
    ds, inputs = dataset
    expected = expected_trades(inputs)
    lf = pl.scan_parquet(f"{ds}/table=trades/**/*.parquet", hive_partitioning=True)
    schema = lf.collect_schema()
    assert schema["price"] == pl.Decimal(38, 18) and schema["qty"] == pl.Decimal(38, 18)
    df = (
        lf.group_by("family", "market")
        .agg(pl.len().alias("n"), pl.col("price").sum(), pl.col("qty").sum())
        .collect()
    )
    got = {(r["family"], r["market"]): [r["n"], r["price"], r["qty"]] for r in df.iter_rows(named=True)}
    assert got == expected

    n, prices, qtys = expected_book(inputs)
    book = pl.scan_parquet(f"{ds}/table=book/**/*.parquet", hive_partitioning=True).select(
        pl.len(), pl.col("price").sum(), pl.col("qty").sum()
    ).collect()
    assert book.row(0) == (n, prices, qtys)
