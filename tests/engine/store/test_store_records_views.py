"""The store's records are its tables; sweep points are stored compactly; views and exports a user can read."""

from __future__ import annotations

import csv
import json
import typing

import duckdb
import pytest
from store_fakes import FAKE
from store_runs import record_simulated

from engine.store import Store, failure_bundle
from engine.store.export import export_runs, safe_cell
from engine.store.records import TABLE_OF, column_names
from engine.store.settings_patch import make_patch, merge_patch
from engine.studies.sweep import parse_axes, run_sweep


def test_every_record_type_is_its_table_column_for_column(db):
    with Store.open(db) as s:
        for record_type, table in TABLE_OF.items():
            rows = s.con.execute(
                "SELECT column_name, is_nullable FROM information_schema.columns "
                "WHERE table_name = ? ORDER BY ordinal_position",
                [table],
            ).fetchall()
            assert tuple(r[0] for r in rows) == column_names(record_type), table
            hints = typing.get_type_hints(record_type)
            for (column, nullable), name in zip(rows, (f for f in hints)):
                if nullable == "NO":
                    assert "None" not in str(hints[name]), (
                        f"{table}.{column} is NOT NULL but {name} is optional"
                    )


def test_merge_patch_round_trip_and_what_it_cannot_express():
    base = {"qapply": {"num_apply_agents": 1, "memory_limit_mb": 512}, "mips": None, "gone": 3}
    target = {"qapply": {"num_apply_agents": 8, "memory_limit_mb": 512}, "mips": None, "new": {"a": 1}}
    patch = make_patch(base, target)
    assert patch == {"qapply": {"num_apply_agents": 8}, "gone": None, "new": {"a": 1}}
    assert merge_patch(base, patch) == target
    assert make_patch(base, {**target, "qapply": None}) is None  # a patch cannot set a null


def _sweep(baseline, store, specs):
    axes = parse_axes(specs, baseline)
    return run_sweep(baseline, axes, store, workers=0, predictor=FAKE, progress=False)


def test_sweep_points_store_a_patch_and_read_back_their_full_settings(baseline, db):
    with Store.open(db) as s:
        r = _sweep(baseline, s, ["qapply.num_apply_agents=1..6", "qcapture.trans_batch_sz=1,2"])
        runs = s.list_runs(sweep_id=r.sweep_id)
        stored = dict(s.con.execute("SELECT id, settings_json FROM runs").fetchall())
        base = json.loads(s.con.execute("SELECT base_settings_json FROM sweeps").fetchall()[0][0])
    assert len(runs) == 12
    for run in runs:
        settings = json.loads(run.settings_json)
        agents, batch = (int(v.split("=")[1]) for v in run.label.split())
        assert (
            settings["qapply"]["num_apply_agents"] == agents
            and settings["qcapture"]["trans_batch_sz"] == batch
        )
        assert settings.keys() == base.keys()
    patched = [t for t in stored.values() if t.startswith('{"$patch"')]
    assert len(patched) == 12 and max(map(len, patched)) < 150 < 1000 < len(json.dumps(base))


def test_a_point_a_patch_cannot_express_keeps_its_full_settings(baseline, db):
    with Store.open(db) as s:
        r = _sweep(baseline, s, ["source_db2.offered_rows_per_s=1000,null"])
        runs = s.list_runs(sweep_id=r.sweep_id)
        stored = [
            t for (t,) in s.con.execute("SELECT settings_json FROM runs ORDER BY point_index").fetchall()
        ]
    assert stored[0].startswith('{"$patch"') and not stored[1].startswith('{"$patch"')
    assert [json.loads(r.settings_json)["workload"]["offered_rows_per_s"] for r in runs] == [1000.0, None]


def test_run_summary_view_has_one_row_per_run_with_settings_and_metrics(baseline, db):
    with Store.open(db) as s:
        r = _sweep(baseline, s, ["qapply.num_apply_agents=1..4"])
        full = {run.id: json.loads(run.settings_json) for run in s.list_runs(sweep_id=r.sweep_id)}
        metrics = s.metrics_of(list(full))
    con = duckdb.connect(str(db), read_only=True)  # what a user does
    rows = con.execute(
        "SELECT run_id, NUM_APPLY_AGENTS, TRANS_BATCH_SZ, apply_rows_per_s, apply_latency_ms "
        "FROM run_summary ORDER BY point_index"
    ).fetchall()
    settings = dict(con.execute("SELECT run_id, settings_json FROM run_settings").fetchall())
    con.close()
    assert [row[1] for row in rows] == [1, 2, 3, 4]
    for run_id, _agents, batch, rate, latency in rows:
        assert json.loads(settings[run_id]) == full[run_id]
        assert batch == full[run_id]["qcapture"]["trans_batch_sz"]
        assert (rate, latency) == (
            metrics[run_id]["apply_rows_per_s"][0],
            metrics[run_id]["apply_latency_ms"][0],
        )


def test_run_summary_gives_every_kind_of_run_its_throughput_and_catch_up(baseline, db):
    """A simulation reports throughput_rows_per_s and event1_catch_up_s; a prediction apply_rows_per_s."""
    with Store.open(db) as s:
        sim = record_simulated(
            s,
            baseline,
            {"throughput_rows_per_s": 29_950.0, "event1_catch_up_s": 115.0, "peak_backlog_rows": 9.0e5},
            {"throughput_rows_per_s": "rows/s", "event1_catch_up_s": "s", "peak_backlog_rows": "rows"},
        )
        both = record_simulated(s, baseline, {"catch_up_s": 80.0, "event1_catch_up_s": 115.0}, {})
        predicted = _sweep(baseline, s, ["qapply.num_apply_agents=4"])
        predicted_id = s.list_runs(sweep_id=predicted.sweep_id)[0].id
        predicted_rate = s.metrics_of([predicted_id])[predicted_id]["apply_rows_per_s"][0]
    con = duckdb.connect(str(db), read_only=True)
    rows = dict(
        (r[0], r[1:])
        for r in con.execute(
            "SELECT run_id, apply_rows_per_s, catch_up_s, peak_backlog_rows FROM run_summary"
        ).fetchall()
    )
    con.close()
    assert rows[sim] == (29_950.0, 115.0, 9.0e5)
    assert rows[both][1] == 80.0  # a run's own catch_up_s comes first
    assert rows[predicted_id][0] == predicted_rate and rows[predicted_id][1] is None


def test_export_csv_and_parquet_of_a_sweep(baseline, db, tmp_path):
    with Store.open(db) as s:
        r = _sweep(baseline, s, ["qapply.num_apply_agents=1..5"])
        assert export_runs(s, tmp_path / "s.csv", "csv", sweep_id=r.sweep_id) == 5
        assert export_runs(s, tmp_path / "s.parquet", "parquet", sweep_id=r.sweep_id) == 5
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    assert [int(r["NUM_APPLY_AGENTS"]) for r in rows] == [1, 2, 3, 4, 5]
    assert all(float(r["msg_size_kb"]) > 0 for r in rows)  # a metric outside the view's list is there too
    pq = duckdb.sql(
        f"SELECT NUM_APPLY_AGENTS, apply_rows_per_s FROM '{tmp_path / 's.parquet'}' ORDER BY 1"
    ).fetchall()
    assert [p[0] for p in pq] == [1, 2, 3, 4, 5] and [p[1] for p in pq] == [
        float(r["apply_rows_per_s"]) for r in rows
    ]


def test_csv_export_neutralises_formula_cells(baseline, db, tmp_path):
    with Store.open(db) as s:
        run_id = s.record_run(
            baseline, failure_bundle(baseline, '=HYPERLINK("http://x")', kind="predict", label="@SUM(A1)")
        )
        export_runs(s, tmp_path / "r.csv", "csv", run_ids=[run_id])
    row = next(csv.DictReader((tmp_path / "r.csv").open()))
    assert row["error"] == '\'=HYPERLINK("http://x")' and row["label"] == "'@SUM(A1)"
    assert safe_cell(-5.0) == -5.0 and safe_cell("-x") == "'-x" and safe_cell(None) == ""


def test_export_of_an_unknown_run_names_it(baseline, db, tmp_path):
    from engine.store import UnknownRunError

    with Store.open(db) as s:
        s.record_run(baseline, failure_bundle(baseline, "x", kind="predict"))
        with pytest.raises(UnknownRunError, match="no run 42"):
            export_runs(s, tmp_path / "r.csv", "csv", run_ids=[1, 42])


@pytest.mark.parametrize(
    "out, given, written",
    [
        ("runs.parquet", None, "parquet"),
        ("runs.PQ", None, "parquet"),
        ("runs.csv", None, "csv"),
        ("runs.txt", None, "csv"),
        ("runs.parquet", "csv", "csv"),
    ],
)
def test_export_writes_the_format_its_file_names_unless_told(out, given, written):
    """``qrtune export -o runs.parquet`` writes Parquet, not CSV in a .parquet file; --format wins."""
    from engine.cli.export import file_format

    assert file_format(out, given) == written
