"""Stores and the old-store fixtures are in an on-disk format the lowest DuckDB qrtune allows reads.

A store created by the newest DuckDB must open in DuckDB 1.3 (``duckdb>=1.3``: its CLI and its
Python package), as the README promises for ``duckdb -readonly runs.duckdb``. Here the format DuckDB
reports for the file is checked; .ci/lowest-versions reads such a store with DuckDB 1.3 itself and
compares every table with what the newest DuckDB reads (the 1.3 format, written by DuckDB 2.0.1,
failed that: DuckDB 1.3.0 read a text column's values as NULL).
"""

from __future__ import annotations

import gzip
import re
import shutil

import duckdb
import pytest
from store_fakes import ROOT

from engine.store import Store
from engine.store.connection import STORAGE_COMPATIBILITY_VERSION

FIXTURES = sorted((ROOT / "tests" / "data" / "stores").glob("*.duckdb.gz"))


def _storage_version(path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        (tags,) = con.execute(
            "SELECT tags FROM duckdb_databases() WHERE database_name = current_database()"
        ).fetchone()
    finally:
        con.close()
    return tags["storage_version"]


def _minor(version: str) -> tuple[int, int]:
    major, minor = re.match(r"v?(\d+)\.(\d+)", version).groups()
    return int(major), int(minor)


def _lowest_duckdb() -> str:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'"duckdb>=([\d.]+)"', pyproject).group(1)


def test_the_storage_format_is_no_newer_than_the_lowest_duckdb_allowed():
    assert _minor(STORAGE_COMPATIBILITY_VERSION) <= _minor(_lowest_duckdb())


def test_a_new_store_is_written_in_that_format(tmp_path):
    path = tmp_path / "runs.duckdb"
    with Store.open(path) as s:
        assert s.count_runs() == 0
    assert _minor(_storage_version(path)) == _minor(STORAGE_COMPATIBILITY_VERSION)


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_old_store_fixtures_open_in_the_lowest_duckdb(fixture, tmp_path):
    path = tmp_path / "old.duckdb"
    with gzip.open(fixture, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert _minor(_storage_version(path)) <= _minor(STORAGE_COMPATIBILITY_VERSION)
