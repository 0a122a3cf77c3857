"""``--db``: anything that is not a DuckDB store is refused before work starts; a result the store
cannot take is still printed, with how to record it; a damaged store is never written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from engine import cli
from engine.store import Store
from engine.store.connection import check_store_file, connect
from engine.store.errors import DamagedStoreError, NotAStoreError, StoreLockedError

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = str(ROOT / "sample_runs" / "redpaper-baseline.json")


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("good") / "runs.duckdb"
    assert cli.main(["predict", SAMPLE, "--db", str(db)]) == 0
    return db


def _not_stores(tmp_path, good_store):
    json_file = tmp_path / "existing.json"
    json_file.write_text('{"format_version": 4}')
    folder = tmp_path / "folder"
    folder.mkdir()
    half = tmp_path / "half.duckdb"
    shutil.copy(good_store, half)
    os.truncate(half, half.stat().st_size // 2)
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    return {
        "json": (json_file, "is not a DuckDB results store: it holds JSON"),
        "folder": (folder, "is a folder, not a DuckDB results store"),
        "empty": (empty, "is not a DuckDB results store: it is empty"),
        "empty name": ("", "give a results store file name"),
    }


@pytest.mark.parametrize("kind", ["json", "folder", "empty", "empty name"])
@pytest.mark.parametrize("command", ["predict", "simulate", "sweep", "import-monitor", "runs"])
def test_a_db_that_is_no_store_is_one_line_before_any_work(tmp_path, good_store, capsys, kind, command):
    path, words = _not_stores(tmp_path, good_store)[kind]
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    argv = {
        "predict": ["predict", SAMPLE],
        "simulate": ["simulate", SAMPLE, "--duration", "10m"],
        "sweep": ["sweep", SAMPLE, "--set", "qapply.num_apply_agents=1..4", "--workers", "0"],
        "import-monitor": ["import-monitor", str(ROOT / "sample_runs/monitor-baseline/IBMQREP_APPLYMON.csv")],
        "runs": ["runs"],
    }[command]
    with pytest.raises(SystemExit) as exit_:
        cli.main([*argv, "--db", str(path)])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and "argument --db" in err
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before  # nothing touched


@pytest.mark.parametrize("command", ["predict", "simulate", "import-monitor", "runs"])
def test_a_damaged_store_is_refused_with_its_name_before_any_work(tmp_path, good_store, capsys, command):
    half = tmp_path / "half.duckdb"
    shutil.copy(good_store, half)
    os.truncate(half, half.stat().st_size // 2)
    before = half.read_bytes()
    argv = {
        "predict": ["predict", SAMPLE],
        "simulate": ["simulate", SAMPLE, "--duration", "10m"],
        "import-monitor": ["import-monitor", str(ROOT / "sample_runs/monitor-baseline/IBMQREP_APPLYMON.csv")],
        "runs": ["runs"],
    }[command]
    assert cli.main([*argv, "--db", str(half)]) == 3
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"the results store {half} is damaged" in err
    assert half.read_bytes() == before
    with pytest.raises(DamagedStoreError):
        Store.open(half, read_only=True)


def test_sound_and_new_stores_pass_the_checks(tmp_path, good_store):
    check_store_file(good_store)
    check_store_file(tmp_path / "not-yet.duckdb")
    with Store.open(good_store, read_only=True) as store:
        assert store.count_runs() >= 1
    with pytest.raises(NotAStoreError):
        check_store_file(ROOT / "sample_runs" / "redpaper-baseline.json")


@pytest.mark.parametrize("command", ["predict", "simulate"])
def test_a_result_the_store_cannot_take_is_printed_and_says_how_to_record_it(
    tmp_path, capsys, monkeypatch, command
):
    def disk_full(self, *a, **k):
        raise duckdb.IOException('IO Error: Could not write file "runs.duckdb": No space left on device')

    monkeypatch.setattr(Store, "record_run", disk_full)
    db = tmp_path / "runs.duckdb"
    extra = ["--duration", "30s", "--quiet"] if command == "simulate" else []
    assert cli.main([command, SAMPLE, *extra, "--db", str(db)]) == 4
    out, err = capsys.readouterr()
    assert "END2END_LATENCY" in out and "recorded as run" not in out  # the finished result is shown
    assert err.count("\n") == 1 and "the results above were not recorded in" in err
    assert "No space left on device" in err and "re-run the same command with --db" in err


def test_a_wait_for_the_store_is_reported_while_it_lasts(tmp_path, monkeypatch):
    import engine.store.connection as connection

    db = tmp_path / "held.duckdb"
    hold = f"import duckdb, time; c = duckdb.connect({str(db)!r}); print(1, flush=True); time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    monkeypatch.setattr(connection, "WAIT_REPORT_S", 0.4)
    reports = []
    try:
        child.stdout.readline()  # DuckDB's lock is per process: another one must hold it
        with pytest.raises(StoreLockedError, match="in use by another process"):
            connect(db, wait_s=1.0, on_wait=lambda waited_s, holder: reports.append((waited_s, holder)))
    finally:
        child.kill()
        child.wait()
    waited = [w for w, _ in reports]
    assert reports and waited == sorted(waited) and waited[0] >= 0.4 and waited[-1] < 1.2
    assert reports[0][1] == f" (process {child.pid})"
