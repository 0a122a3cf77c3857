"""File > Export report and the Sweep view's Export PDF...: background tasks of the window (no widgets).

:func:`report_task` (and :func:`sweep_report_task`, for a recorded sweep) returns
``fn(progress, cancelled, partial)`` for :class:`app.worker.TaskRunner`: it gathers the
runs (predicting the project, or reading the store), scores the engine against the
published measurements, and writes the PDF atomically (:func:`app.report.write_pdf`);
Cancel is honoured between the steps, and a cancelled export leaves no file behind.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def _export_task(
    path: str | Path, first_step: str, gather: Callable[[], object], build: Callable[[object], object]
):
    """The task shared by both exports: ``gather()``, then ``build(gathered)`` into a report, then the PDF.

    Parameters
    ----------
    path : str or Path
        The PDF to write (atomically).
    first_step : str
        Progress text while ``gather`` runs.
    gather : callable
        Reads or predicts what the report shows (may be slow).
    build : callable
        Turns what ``gather`` returned into an :class:`engine.report.Report`.
    """
    path = Path(path)

    def fn(progress, cancelled, partial):
        from app.report import write_pdf
        from app.worker import Cancelled

        progress(0.05, first_step)
        gathered = gather()
        if cancelled():
            raise Cancelled()
        progress(0.2, "scoring the engine against the published measurements")
        report = build(gathered)
        if cancelled():
            raise Cancelled()
        pages = write_pdf(report, path, lambda f, t="": progress(0.3 + 0.7 * f, t))
        return str(path), pages

    return fn


def report_task(project, path: str | Path, validation: bool = True, run_ids=(), db_path=None):
    """A task writing the report of ``project`` (or of stored ``run_ids`` when given) to ``path``."""

    def gather():
        from engine.report import run_from_project, runs_from_store

        if run_ids:
            from engine.store import Store

            with Store.open(db_path, read_only=True, wait_s=5.0) as store:
                return runs_from_store(store, list(run_ids))
        return [run_from_project(project, origin="the workbench's current project")]

    def build(runs):
        from engine.report import build_report

        return build_report(runs, validation=validation)

    return _export_task(path, "predicting", gather, build)


def sweep_report_task(sweep_id: int, db_path, path: str | Path, validation: bool = True):
    """A task writing the report of sweep ``sweep_id`` of the store ``db_path`` to ``path`` (the Sweep view's
    Export PDF...; the same report as ``qrtune report --sweep ID``)."""

    def gather():
        from engine.report.sweep import sweep_section
        from engine.store import Store

        with Store.open(db_path, read_only=True, wait_s=5.0) as store:
            return sweep_section(store, sweep_id)

    def build(section):
        from engine.report.sweep import build_sweep_report

        return build_sweep_report(section, validation=validation)

    return _export_task(path, f"reading sweep {sweep_id}", gather, build)
