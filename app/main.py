"""Start the workbench: the QApplication, the main window, crash recovery and the smoke test."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def _app():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("qrtune")
    app.setOrganizationName("qrtune")
    return app


def run_gui(project_path: str | None, smoke_test_dir: str | None = None) -> int:
    """Open the main window on ``project_path`` (or a new unidirectional project).

    With ``smoke_test_dir`` the window opens offscreen on a throw-away run store,
    predicts, runs a small sweep, a comparison and the validation, saves a
    screenshot of each main view there as PNG and returns 0 without entering the
    event loop (what packaging and CI run). Returns 2 when the project cannot be opened.
    """
    if smoke_test_dir:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        return smoke_test(project_path, Path(smoke_test_dir))
    app = _app()
    from app.main_window import MainWindow

    window = MainWindow()
    if project_path and not window.open_project(project_path, ask=False):
        print(f"qrtune: {window.last_message}", file=sys.stderr)
        return 2
    window.show()
    from app.start_page import offer_at_start

    offer_at_start(window, project_path, recovered=window.offer_recovery())
    return app.exec()


def smoke_test(project_path: str | None, out: Path) -> int:
    """Open, predict, exercise each view and screenshot it into ``out``; see :func:`run_gui`."""
    from PySide6.QtCore import QSettings, QStandardPaths

    app = _app()
    QStandardPaths.setTestModeEnabled(True)  # autosaves and settings go to a test location
    from app.main_window import MainWindow
    from app.simadapter import simulation_task
    from app.tasks import simulation_available, sweep_task, validation_task
    from engine.validation_summary import BUNDLED_SCENARIOS

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qrtune-smoke-") as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.IniFormat)
        db = str(Path(tmp) / "runs.duckdb")
        window = MainWindow(settings=settings, db_path=db, autosave_dir=Path(tmp) / "autosave")
        if project_path and not window.open_project(project_path, ask=False):
            print(f"qrtune: {window.last_message}", file=sys.stderr)
            return 2
        window.fit_on_show = False  # screenshots of a full-size window, whatever the offscreen screen's size
        window.resize(1500, 950)
        window.show()
        app.processEvents()
        window._default_dock_sizes()
        app.processEvents()
        window.view.fit_to_view()
        focus = _focus_node(window)
        if focus:
            window.scene.select_node(focus)
        if window.predict_and_record() is None and project_path and window.live.shown is None:
            print(f"qrtune: smoke test: no prediction: {window.last_message}", file=sys.stderr)
            return 1
        app.processEvents()
        shots = {}
        _grab(window, "main_window", window, out, shots)
        _grab(window, "canvas", window.view, out, shots)
        _grab(window, "inspector", window.inspector_dock, out, shots)
        window.show_view("Results")
        app.processEvents()
        _grab(window, "results", window.results, out, shots)
        window.show_view("Topology")

        def run(fn):
            return fn(lambda f, t="": None, lambda: False, lambda data: None)

        # Sweep: the number of apply agents when the project has Q Apply, else the first numeric knob.
        sweep = window.view_widget("Sweep")
        window.show_view("Sweep")
        axis = sweep.axis_text()
        try:
            fn, _ = sweep_task(window.document.project, axis, db)
            outcome = run(fn)
            sweep.show_points(outcome.points, outcome.axis_name)
            sweep.status.setText(f"Sweep #{outcome.sweep_id}: {len(outcome.points)} points of {axis}")
            window.history.notify()
        except Exception as e:  # noqa: BLE001 - the smoke test reports, never crashes
            sweep.status.setText(f"Sweep not run: {e}")
        app.processEvents()
        _grab(window, "sweep", window, out, shots)

        sim = window.view_widget("Simulation")
        window.show_view("Simulation")
        reason = simulation_available()
        if reason:
            sim.show_message(reason)
        else:
            try:
                # journey 4: the channel down for two minutes, then the backlog drains
                sim.duration.setText("8m")
                sim.events.setText("channel-stop@2m+2m")
                outcome = run(simulation_task(window.document.project, 480.0, 1, ["channel-stop@2m+2m"], db))
                sim.show_outcome(outcome)
            except Exception as e:  # noqa: BLE001
                sim.show_message(f"Simulation not run: {e}")
        app.processEvents()
        _grab(window, "simulation", window, out, shots)

        window.runs.refresh()
        ids = [r.id for r in window.runs.runs if r.status == "ok"]
        if len(ids) >= 2:
            sweep_ids = [r.id for r in window.runs.runs if r.kind == "sweep" and r.status == "ok"]
            pick = [min(sweep_ids), max(sweep_ids)] if len(sweep_ids) >= 2 else ids[-2:]
            window.runs.select_ids(pick)
            window.compare_runs(sorted(pick))
        else:
            window.view_widget("Compare").show_message("Fewer than two runs to compare.")
            window.show_view("Compare")
        app.processEvents()
        window.runs_dock.raise_()  # tabbed with the node palette
        app.processEvents()
        _grab(window, "runs", window.runs_dock, out, shots)
        window.palette_dock.raise_()
        _grab(window, "compare", window, out, shots)

        val = window.view_widget("Validation")
        window.show_view("Validation")
        if BUNDLED_SCENARIOS.is_file():
            try:
                checks, summary = run(validation_task(BUNDLED_SCENARIOS))
                val.show_results(checks, summary)
            except Exception as e:  # noqa: BLE001
                val.summary_label.setText(f"Validation not run: {e}")
        app.processEvents()
        _grab(window, "validation", window, out, shots)
        monitor = window.view_widget("Monitor")  # no exports to import here: it opens and says so
        window.show_view("Monitor")
        try:
            from app.monitoring import monitor_task

            monitor.show_outcome(run(monitor_task(window.document.project, db)))
        except Exception as e:  # noqa: BLE001
            monitor.status.setText(f"Monitor not shown: {e}")
        app.processEvents()
        _grab(window, "monitor", window, out, shots)
        window.tabs.setCurrentIndex(0)
        window.confirm_discard = lambda: True
        window.close()
        window.deleteLater()
        app.processEvents()
        del window
        import gc

        gc.collect()
        for name, path in shots.items():
            print(f"{name}: {path}")
    return 0


def _focus_node(window) -> str:
    """The node to show in the inspector: the bottleneck's, else the first Q Apply, else the first node."""
    project = window.document.project
    loads = {}
    if window.live.shown is not None:
        from app.stages import node_loads

        loads = node_loads(project, window.live.shown)
    for node_id, load in loads.items():
        if load.bottleneck:
            return node_id
    for kind in ("qapply", "db2_mirror_node", "queue_manager"):
        nodes = project.nodes_of(kind)
        if nodes:
            return nodes[0].id
    return project.nodes[0].id if project.nodes else ""


def _grab(window, name: str, widget, out: Path, shots: dict) -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    path = out / f"{name}.png"
    widget.grab().save(str(path))
    shots[name] = path
