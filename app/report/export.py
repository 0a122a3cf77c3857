"""File > Export report and the Sweep view's Export PDF...: background tasks of the window (no widgets).

:func:`report_task` (and :func:`sweep_report_task`, for a recorded sweep) returns
``fn(progress, cancelled, partial)`` for :class:`app.worker.TaskRunner`: it predicts the project, scores the engine
against the published measurements, and writes the PDF atomically
(:func:`app.report.write_pdf`); Cancel is honoured between the steps, and a
cancelled export leaves no file behind.
"""

from __future__ import annotations

from pathlib import Path


def report_task(project, path: str | Path, validation: bool = True, run_ids=(), db_path=None):
    """A task writing the report of ``project`` (or of stored ``run_ids`` when given) to ``path``."""
    path = Path(path)

    def fn(progress, cancelled, partial):
        from app.report import write_pdf
        from app.worker import Cancelled
        from engine.report import build_report, run_from_project, runs_from_store

        progress(0.05, "predicting")
        if run_ids:
            from engine.store import Store

            with Store.open(db_path, read_only=True, wait_s=5.0) as store:
                runs = runs_from_store(store, list(run_ids))
        else:
            runs = [run_from_project(project, origin="the workbench's current project")]
        if cancelled():
            raise Cancelled()
        progress(0.2, "scoring the engine against the published measurements")
        report = build_report(runs, validation=validation)
        if cancelled():
            raise Cancelled()
        pages = write_pdf(report, path, lambda f, t="": progress(0.3 + 0.7 * f, t))
        return str(path), pages

    return fn


def sweep_report_task(sweep_id: int, db_path, path: str | Path, validation: bool = True):
    """A task writing the report of sweep ``sweep_id`` of the store ``db_path`` to ``path`` (the Sweep view's
    Export PDF...; the same report as ``qrtune report --sweep ID``)."""
    path = Path(path)

    def fn(progress, cancelled, partial):
        from app.report import write_pdf
        from app.worker import Cancelled
        from engine.report.sweep import build_sweep_report, sweep_section
        from engine.store import Store

        progress(0.05, f"reading sweep {sweep_id}")
        with Store.open(db_path, read_only=True, wait_s=5.0) as store:
            section = sweep_section(store, sweep_id)
        if cancelled():
            raise Cancelled()
        progress(0.2, "scoring the engine against the published measurements")
        report = build_sweep_report(section, validation=validation)
        if cancelled():
            raise Cancelled()
        pages = write_pdf(report, path, lambda f, t="": progress(0.3 + 0.7 * f, t))
        return str(path), pages

    return fn
