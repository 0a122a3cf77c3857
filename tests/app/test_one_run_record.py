"""One run, one set of rows: a simulation and a prediction recorded by ``qrtune`` and by the window
give the same rows in every table of the results store (issue 31).

The window is driven through its real classes (the Simulation tab's Simulate button, the main
window's record action) and the command line through its entry point, both on the calibrated
engine. Only what says when and by which front end a run was made may differ:
``runs.started`` and ``schema_info.migrated`` (timestamps), and for the prediction ``runs.kind``
(``predict`` / ``gui``, the column's purpose) and ``runs.label`` (the command's ``--set`` items
against the window's "changes since saving", ``unchanged`` here).
"""

from __future__ import annotations

import duckdb
import pytest
from cli_run import ROOT, SAMPLE

from app.tasks import simulation_available
from engine.cli import main as qrtune_main

pytestmark = pytest.mark.skipif(bool(simulation_available()), reason=simulation_available() or "")

DURATION, SEED = "40s", 3  # the sample project states no outage: none on either side
#: Columns that say when a row was written, per table.
WHEN = {"runs": {"started"}, "schema_info": {"migrated"}}
#: Columns that say which front end recorded the prediction (run 2 in both stores).
WHO = {"kind", "label"}


def _tables(path) -> dict[str, list[tuple]]:
    """Every table of the store at ``path``: its rows (columns of WHEN left out) in a fixed order."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        for (table,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1"
        ).fetchall():
            names = [
                c
                for (c,) in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                    "ORDER BY ordinal_position",
                    [table],
                ).fetchall()
                if c not in WHEN.get(table, ())
            ]
            cols = ", ".join(f'"{c}"' for c in names)
            out[table] = [
                dict(zip(names, row))
                for row in con.execute(f"SELECT {cols} FROM {table} ORDER BY ALL").fetchall()
            ]
        return out
    finally:
        con.close()


def test_the_cli_and_the_window_record_one_run_as_the_same_rows(window, qtbot, tmp_path, db_path):
    cli_db = tmp_path / "cli.duckdb"
    sim = ["simulate", SAMPLE, "--duration", DURATION, "--seed", str(SEED), "--quiet"]
    assert qrtune_main([*sim, "--db", str(cli_db)]) == 0
    assert qrtune_main(["predict", SAMPLE, "--db", str(cli_db)]) == 0

    assert window.open_project(str(ROOT / SAMPLE), ask=False)
    view = window.view_widget("Simulation")
    view.duration.setText(DURATION)
    view.seed.setValue(SEED)
    with qtbot.waitSignal(window.tasks.finished, timeout=60000):
        view.run_button.click()
    assert view.outcome is not None and view.outcome.run_id == 1
    assert window.predict_and_record() == 2

    cli, gui = _tables(cli_db), _tables(db_path)
    assert set(cli) == set(gui)
    runs_cli, runs_gui = cli.pop("runs"), gui.pop("runs")
    assert [r["kind"] for r in runs_cli] == ["simulate", "predict"]
    assert [r["kind"] for r in runs_gui] == ["simulate", "gui"]
    assert runs_cli[0] == runs_gui[0]  # the simulation: every column, its label too
    assert {k: v for k, v in runs_cli[1].items() if k not in WHO} == {
        k: v for k, v in runs_gui[1].items() if k not in WHO
    }
    for table in cli:
        assert cli[table] == gui[table], table
    # what is compared is there: both runs' stages and metrics, the simulation's series and settings
    stages = {r["run_id"] for r in cli["stage_metrics"]}
    assert stages == {1, 2} and {r["run_id"] for r in cli["metrics"]} == {1, 2}
    assert {r["run_id"] for r in cli["timeseries"]} == {1} and len(cli["projects"]) == 1
    assert (
        '"simulation":' in runs_cli[0]["settings_json"] and f'"seed":{SEED}' in runs_cli[0]["settings_json"]
    )
