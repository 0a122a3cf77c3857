"""Measured against predicted: imported monitor intervals, the engine on each, and a fit (no Qt here).

The background task of the Monitor view (journey 8, "does the model match my system?"):
import IBMQREP_CAPMON / IBMQREP_CAPQMON / IBMQREP_APPLYMON CSV exports for the open
project (:mod:`engine.monitor.importer`), pick the intervals a fit uses out of the project's
imported rows in the store (:func:`engine.calibrate.fit.sample_intervals`, like ``qrtune fit``: at most
:data:`engine.calibrate.fit.MAX_INTERVALS` fitted and as many held out, evenly spaced in time, so a
million imported rows cost no more than a thousand), predict those intervals at their measured
offered rates for the overlay, and optionally fit the engine's coefficients on them
(:func:`engine.calibrate.fit.fit_with_timing`, within its time and prediction budget), keeping the fit in the
store like ``qrtune fit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.model import Project


@dataclass
class MonitorOutcome:
    """Measured and predicted values per interval, and the fit when one was made.

    Attributes
    ----------
    intervals : list of engine.calibrate.fit.Interval
        The intervals overlaid (those of the fit's sample, fitted and held out), in time order.
    predicted : list of dict
        The engine's metrics for each interval with its current coefficients.
    fitted : list of dict
        The same with the fitted coefficients (empty without a fit).
    held_out : list of bool
        Whether each interval was held out of the fit.
    fit : engine.calibrate.fit.FitResult or None
    fit_id : int or None
        The fit's id in the store.
    imported_rows : int
        Rows imported by this task (0 when nothing was imported).
    tables : tuple of str
        Monitor tables the project has rows of.
    n_intervals : int
        Usable intervals imported (``intervals`` is an evenly spaced sample of them).
    """

    intervals: list
    predicted: list
    fitted: list = field(default_factory=list)
    held_out: list = field(default_factory=list)
    fit: object | None = None
    fit_id: int | None = None
    imported_rows: int = 0
    tables: tuple = ()
    n_intervals: int = 0


def monitor_task(
    project: Project,
    db_path: str | Path,
    files: Sequence[str | Path] = (),
    fit: bool = False,
    holdout_every: int = 4,
):
    """The task function for :class:`app.worker.TaskRunner`.

    Raises (inside the task, shown by the view)
    ------
    MonitorImportError
        A file is malformed (file and line named; nothing is imported).
    FitError
        No engine coefficients to fit, fewer than 4 intervals, nothing comparable.
    """
    from engine.scenario import project_to_scenario

    settings = project_to_scenario(project)  # TopologyError now, before the task starts
    default_s = float((settings.get("qapply") or {}).get("monitor_interval_ms") or 10_000) / 1000.0

    def fn(progress, cancelled, partial):
        from app.worker import Cancelled
        from engine.calibrate.fit import (
            engine_fit_model,
            fit_with_timing,
            measures_timing,
            predict_intervals,
            sample_intervals,
        )
        from engine.monitor.importer import import_files
        from engine.store import Store

        def check() -> None:
            if cancelled():
                raise Cancelled()

        with Store.open(db_path, wait_s=5.0) as store:
            imported = 0
            if files:
                progress(0.05, f"importing {len(files)} file(s)")
                done = import_files(
                    store, files, project.name, progress=lambda f, text: progress(0.05 + 0.15 * f, text)
                )
                imported = sum(pf.n_rows for _, pf in done)
            tables = tuple(sorted(store.monitor_columns(project.name)))
            outcome = MonitorOutcome([], [], imported_rows=imported, tables=tables)
            if not tables:
                return outcome
            progress(0.2, "picking the intervals to overlay and fit")
            sample = sample_intervals(store, project.name, default_s, holdout_every)
            check()
            held = {id(iv) for iv in sample.held}
            outcome.intervals = sorted(
                (*sample.fit, *sample.held), key=lambda iv: (iv.monitor_time, iv.queue)
            )
            outcome.n_intervals = sample.n_fit_total + sample.n_holdout_total
            model = engine_fit_model(settings, timing=measures_timing(sample))
            progress(0.3, f"predicting {len(outcome.intervals)} intervals")
            base = {k: float(v[0]) for k, v in model.parameters.items()}
            outcome.predicted = predict_intervals(model, settings, outcome.intervals, base)
            if not fit:
                return outcome
            check()

            def fitting(fraction: float, text: str) -> None:
                check()
                progress(0.4 + 0.5 * fraction, text)

            result = fit_with_timing(model, settings, sample, progress=fitting)
            check()
            outcome.held_out = [id(iv) in held for iv in outcome.intervals]
            outcome.fitted = predict_intervals(model, settings, outcome.intervals, result.fitted)
            outcome.fit = result
            outcome.fit_id = store.record_fit(project, result)
            progress(1.0, "fitted")
        return outcome

    return fn
