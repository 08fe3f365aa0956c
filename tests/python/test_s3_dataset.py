"""`--dataset s3://...` against a real S3-compatible server on loopback (moto's server from
PyPI, started by `.ci/run`; `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP=true`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_REGION` point at it): the objects are the local dataset's files,
and DuckDB (httpfs) and polars read the whole glob from the bucket with exact sums."""

import os
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import duckdb
import duckdb_extension_httpfs
import polars as pl
import pytest

from test_dataset_engines import expected_book, expected_trades


@pytest.fixture(scope="module")
def endpoint():
    url = os.environ.get("AWS_ENDPOINT_URL")
    assert url, "these tests need an S3-compatible server: AWS_ENDPOINT_URL (see .ci/run)"
    return urllib.parse.urlparse(url).netloc


@pytest.fixture(scope="module")
def s3_dataset(digifinex, dataset, endpoint):
    """The inputs of the local `dataset` fixture exported the same way into a new bucket."""
    ds, inputs = dataset
    bucket = f"dfx-py-{uuid.uuid4().hex[:12]}"
    req = urllib.request.Request(f"http://{endpoint}/{bucket}", method="PUT")
    assert urllib.request.urlopen(req).status == 200
    digifinex("market", "export", *inputs, "--dataset", f"s3://{bucket}/ds", "--file-size", "1K")
    return bucket, ds, inputs


def keys(bucket, endpoint):
    body = urllib.request.urlopen(f"http://{endpoint}/{bucket}?list-type=2&max-keys=1000").read()
    return sorted(k.split("</Key>")[0] for k in body.decode().split("<Key>")[1:])


def test_the_objects_are_the_local_files(s3_dataset, endpoint):
    bucket, ds, _ = s3_dataset
    local = sorted("ds/" + p.relative_to(ds).as_posix() for p in Path(ds).rglob("*") if p.is_file())
    assert keys(bucket, endpoint) == local
    assert len(local) > 10


def test_duckdb_reads_the_bucket_exactly(s3_dataset, endpoint):
    bucket, _, inputs = s3_dataset
    con = duckdb.connect()
    ext = Path(duckdb_extension_httpfs.__file__).parent / "extensions" / f"v{duckdb.__version__}"
    con.execute(f"LOAD '{ext / 'httpfs.duckdb_extension'}'")
    con.execute(
        "CREATE SECRET (TYPE s3, KEY_ID ?, SECRET ?, REGION ?, ENDPOINT ?, URL_STYLE 'path', "
        "USE_SSL false)",
        [os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"],
         os.environ["AWS_REGION"], endpoint],
    )
    glob = f"s3://{bucket}/ds/table=trades/**/*.parquet"
    rows = con.execute(
        f"SELECT family, market, count(*), sum(price), sum(qty) "
        f"FROM read_parquet('{glob}', hive_partitioning = true) GROUP BY ALL"
    ).fetchall()
    assert {(f, m): [n, p, q] for f, m, n, p, q in rows} == expected_trades(inputs)
    assert con.execute(
        f"SELECT count(*), sum(price), sum(qty) "
        f"FROM read_parquet('s3://{bucket}/ds/table=book/**/*.parquet')"
    ).fetchone() == expected_book(inputs)


def test_polars_reads_the_bucket_exactly(s3_dataset, endpoint):
    bucket, _, inputs = s3_dataset
    opts = {
        "aws_endpoint_url": f"http://{endpoint}",
        "aws_allow_http": "true",
        "aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"],
        "aws_region": os.environ["AWS_REGION"],
    }
    book = pl.scan_parquet(
        f"s3://{bucket}/ds/table=book/**/*.parquet", storage_options=opts, hive_partitioning=True
    ).select(pl.len(), pl.col("price").sum(), pl.col("qty").sum()).collect()
    assert book.row(0) == expected_book(inputs)
