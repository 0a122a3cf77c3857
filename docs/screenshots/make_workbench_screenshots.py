"""Render the workbench screenshots of the README by walking the user journeys offscreen.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_workbench_screenshots.py [OUT_DIR]
[--only journey6|journey9]`` (default OUT_DIR: this folder; ``--only journey6`` renders just the bidirectional
against peer-to-peer comparison, ``--only journey9`` just the DB2 V8 migration, a few seconds each). Takes about a minute and a half: two 60-minute simulations
and a fit to two days of synthetic monitor intervals. Uses a throw-away run store, settings and
autosave folder. Every number comes from the engines; the monitor exports are synthesised
from the steady-state engine with coefficients 30% off the published ones plus 3% noise
(:func:`engine.calibrate.fit.synthesize_intervals`), as a stand-in for a customer's week of exports.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(out: Path, only: str = "") -> int:
    from PySide6.QtCore import QEventLoop, QSettings, QStandardPaths, QTimer
    from PySide6.QtWidgets import QApplication

    qapp = QApplication.instance() or QApplication(sys.argv[:1])
    QStandardPaths.setTestModeEnabled(True)
    from app.main_window import MainWindow

    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="qrtune-shots-"))
    w = MainWindow(
        settings=QSettings(str(tmp / "s.ini"), QSettings.IniFormat),
        db_path=str(tmp / "runs.duckdb"),
        autosave_dir=tmp / "autosave",
    )
    w.confirm_discard = lambda: True
    w.resize(1500, 950)
    w.show()
    qapp.processEvents()
    w._default_dock_sizes()

    def pump(ms: int = 50) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def wait(runner, timeout_s: float = 300.0) -> None:
        t0 = time.time()
        while runner.busy() and time.time() - t0 < timeout_s:
            pump(50)
        pump(150)

    def shot(name: str) -> None:
        pump(150)
        w.grab()  # a view's first paint sizes its chart axes to their labels; the next shows them
        pump(50)
        w.grab().save(str(out / f"{name}.png"))
        print(out / f"{name}.png")

    def node(kind: str) -> str:
        return w.document.project.nodes_of(kind)[0].id

    steps = {"journey6": _journey6, "journey9": _journey9}
    if only in steps:
        steps[only](w, shot, pump)
        w.close()
        return 0
    if only:
        raise SystemExit(
            f"--only: {only!r} is not a step; the steps that render alone are "
            + ", ".join(repr(k) for k in steps)
        )

    # 1. Why is my replication falling behind? The baseline at a 30,000 rows/s target.
    assert w.open_project(str(ROOT / "sample_runs" / "redpaper-baseline.json"), ask=False)
    pump(300)
    src, qapply, qcap = node("source_db2"), node("qapply"), node("qcapture")
    w.document.set_param(src, "offered_rows_per_s", 30000.0)
    w.scene.select_node(qapply)
    w.live.update(wait=True)
    w.predict_and_record()
    w.show_view("Results")
    shot("workbench-baseline")

    # 2. How many apply agents? Then the same for three target rates.
    sweep = w.show_view("Sweep")
    sweep.set_axis("qapply", "num_apply_agents", "1..16")
    w.sweep(sweep.axis_text())
    wait(w.tasks)
    shot("sweep-apply-agents")
    sweep.set_axis(
        "qapply", "num_apply_agents", "1..12", by=("source_db2", "offered_rows_per_s", "10000,20000,30000")
    )
    w.sweep(sweep.axis_text())
    wait(w.tasks)
    shot("sweep-two-knobs")

    # 3. Should I batch transactions? TRANS_BATCH_SZ 1, 3 and 5 at the maximum rate.
    w.document.set_param(src, "offered_rows_per_s", None)
    ids = []
    for batch in (1, 3, 5):
        w.document.set_param(qcap, "trans_batch_sz", batch)
        ids.append(w.predict_and_record())
    w.runs.refresh()
    w.runs.select_ids(ids)
    w.compare_runs(ids)
    shot("compare-runs")
    for _ in range(4):  # back to the sample's TRANS_BATCH_SZ and the 30,000 rows/s target
        w.document.undo_stack.undo()

    # 4./5. The channel down for 20 minutes at 25,000 rows/s: read-ahead off, then on.
    w.document.set_param(src, "offered_rows_per_s", 25000.0)
    qm = node("queue_manager")
    sim = w.show_view("Simulation")
    sim.duration.setText("60m")
    sim.events.setText("channel-stop@2m+20m")
    ids = []
    for read_ahead in (False, True):
        w.document.set_param(qm, "read_ahead", read_ahead)
        sim.run_button.click()
        wait(w.tasks)
        ids.append(sim.outcome.run_id)
    shot("simulation-channel-outage")
    w.runs.refresh()
    w.runs.select_ids(ids)
    w.compare_runs(ids)
    shot("compare-outage-read-ahead")

    # 8. Does the model match my system? Two days of 10-minute monitor intervals.
    _monitor(w, tmp, shot, wait)

    # 10. The evidence.
    w.show_view("Validation")
    w.validate()
    wait(w.tasks)
    shot("validation")

    # 6. Bidirectional or peer-to-peer?
    _journey6(w, shot, pump)

    # 7. Db2 Mirror.
    _open_on_canvas(w, pump, "mirror-active-passive")
    shot("db2-mirror-pair")

    # 9. Migrating Db2 to V8: what changes?
    _journey9(w, shot, pump)

    # The advisor on the baseline as published: its recommendations, then a goal.
    _advisor(w, out, wait)

    # Reports for the change board: the baseline, a comparison, a sweep (first pages, if poppler is here).
    _reports(out, tmp)
    w.close()
    return 0


def _advisor(w, out: Path, wait) -> None:
    """The Advisor dock on the published baseline: the recommendation to change NUM_APPLY_AGENTS (or the
    first), then the goal of the fewest agents holding 40,000 rows/s."""
    assert w.open_project(str(ROOT / "sample_runs" / "redpaper-baseline.json"), ask=False)
    w.advisor_dock.raise_()
    panel = w.advisor
    panel.run_advice()
    wait(panel.tasks)
    rules = [getattr(r, "rule", "") for r in panel.results]
    panel.list.setCurrentRow(rules.index("more_apply_agents") if "more_apply_agents" in rules else 0)
    wait(panel.tasks)
    panel.grab().save(str(out / "advisor.png"))
    print(out / "advisor.png")
    panel.goal_box.setEditText("fewest-agents:40000")  # as a user types it, so the shot shows it
    panel.seek_button.click()
    wait(panel.tasks)
    panel.grab().save(str(out / "advisor-goal.png"))
    print(out / "advisor-goal.png")


def _reports(out: Path, tmp: Path) -> None:
    """The first page of three reports, rendered by poppler's pdftoppm (skipped, with a line, without it)."""
    import shutil
    import subprocess

    from qrtune.cli import main as qrtune

    if shutil.which("pdftoppm") is None:
        print("pdftoppm not found: report screenshots left as they are")
        return
    baseline = str(ROOT / "sample_runs" / "redpaper-baseline.json")
    db = str(tmp / "report-runs.duckdb")
    assert qrtune(["sweep", baseline, "--set", "qapply.num_apply_agents=1..16", "--db", db]) == 0
    reports = {
        "report-baseline": (["report", baseline], 1),
        "report-comparison": (
            ["report", baseline, str(ROOT / "sample_runs" / "redpaper-peer-to-peer.json")],
            1,
        ),
        "report-sweep": (["report", "--sweep", "1", "--db", db], 1),
    }
    for name, (args, page) in reports.items():
        pdf = tmp / f"{name}.pdf"
        assert qrtune([*args, "--out", str(pdf), "--no-validation"]) == 0
        subprocess.run(
            [
                "pdftoppm",
                "-png",
                "-r",
                "80",
                "-f",
                str(page),
                "-l",
                str(page),
                "-singlefile",
                str(pdf),
                str(out / name),
            ],
            check=True,
        )
        print(out / f"{name}.png")


def _open_on_canvas(w, pump, sample: str) -> None:
    """Open ``sample_runs/<sample>.json`` on the Topology tab, predicted, its first node selected, fitted to view."""
    assert w.open_project(str(ROOT / "sample_runs" / f"{sample}.json"), ask=False)
    pump(300)
    w.show_view("Topology")
    w.live.update(wait=True)
    w.scene.select_node(w.document.project.nodes[0].id)
    w.view.fit_to_view()


def _journey6(w, shot, pump) -> None:
    """The same workload on both two-way topologies, recorded and compared system by system."""
    ids = []
    for name in ("redpaper-bidirectional", "redpaper-peer-to-peer"):
        assert w.open_project(str(ROOT / "sample_runs" / f"{name}.json"), ask=False)
        pump(300)
        w.live.update(wait=True)
        ids.append(w.predict_and_record())
    w.runs.refresh()
    w.runs.select_ids(ids)
    w.compare_runs(ids)
    shot("compare-bidir-p2p")


def _journey9(w, shot, pump) -> None:
    """The DB2 V7 subsystem of the seed's Customer 1 going to V8: DBM1 below the bar by part, the CPU band,
    the catalog time; its knobs in the inspector."""
    _open_on_canvas(w, pump, "db2-v8-migration")
    pump(150)
    bar = w.inspector.scroll.verticalScrollBar()  # the workload type, V7 CPU, catalog GB and region knobs
    bar.setValue(bar.maximum())
    shot("db2-v8-migration")


def _monitor(w, tmp: Path, shot, wait) -> None:
    import numpy as np

    from engine.calibrate.fit import engine_fit_model, synthesize_intervals
    from engine.monitor.importer import write_exports
    from engine.scenario import project_to_scenario

    settings = project_to_scenario(w.document.project)
    model = engine_fit_model(settings)
    true = {k: v[0] * 1.3 for k, v in model.parameters.items()}
    t = np.arange(2 * 24 * 6)
    offered = 15000 + 20000 * np.sin(np.pi * t / 144) ** 2  # a daily swing
    rows = synthesize_intervals(model, settings, true, offered, 600.0, np.random.default_rng(3))
    files = [str(f) for f in write_exports(rows, tmp)]
    view = w.show_view("Monitor")
    view.run(files=files)
    wait(view.tasks)
    view.run(fit=True)
    wait(view.tasks)
    shot("monitor-fit")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parent)
    ap.add_argument("--only", default="", help="render one step alone: journey6 or journey9")
    a = ap.parse_args()
    sys.exit(main(a.out, a.only))
