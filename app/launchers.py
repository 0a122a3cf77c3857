"""The main window's background tasks: simulate, sweep, validate and export, with progress and Cancel.

:class:`TaskLaunchers` is mixed into :class:`app.main_window.MainWindow`: each launcher builds
the task function (:mod:`app.tasks`, :mod:`app.report.export`) from the open project, hands it
to the window's :class:`app.worker.TaskRunner` and routes its progress, streamed partial results,
outcome, failure or cancellation to the view that asked.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import QrtuneError


class TaskLaunchers:
    """Launchers and result routing of the background tasks (a mix-in of the main window)."""

    def _start(self, kind: str, title: str, fn) -> bool:
        if self.tasks.busy():
            self.show_message(f"{self.tasks.title} is still running; cancel it first.")
            return False
        self._task_kind = kind
        self.history.ensure_store()  # the task writes: its schema is made here, never by two threads at once
        return self.tasks.start(title, fn)

    def simulate(self, duration_s: float, seed: int, events: list | None = None) -> bool:
        """Run a simulation of the current project in the background, with its load profile and
        ``events`` (``channel-stop@2m+20m``; None: the project's own)."""
        from app.simadapter import simulation_task

        view = self.view_widget("Simulation")
        try:
            fn = simulation_task(
                self.document.project,
                duration_s,
                seed,
                self.document.project.simulation.event_texts() if events is None else events,
                str(self.history.db_path),
                self.document.changes_label(),
            )
        except QrtuneError as e:
            view.show_message(str(e))
            return False
        view.show_running(True)
        return self._start("simulate", f"Simulating {duration_s:g} s", fn)

    def sweep(self, axis_text: str) -> bool:
        """Run a one-knob sweep (``TARGET.PARAM=VALUES``) in the background."""
        from app.tasks import sweep_task

        view = self.view_widget("Sweep")
        try:
            project = view.swept_project(self.document.project)  # at the Target rate
            fn, total = sweep_task(
                project, axis_text, str(self.history.db_path), scheduler=view.scheduler_address()
            )
        except QrtuneError as e:
            view.status.setText(str(e))
            return False
        view.base_project = project  # the pick holds its OFFERED_ROWS_PER_S, as the stored sweep
        view.clear(axis_text.partition("=")[0])
        view.status.setText(f"Sweeping {axis_text} ({total} points)...")
        view.show_running(True)
        self._sweep_axis = axis_text.partition("=")[0]
        return self._start("sweep", f"Sweep {axis_text}", fn)

    def validate(self, scenarios_path: str | None = None) -> bool:
        """Run the validation view's scenarios (default: the bundled published measurements)."""
        from app.tasks import validation_task
        from engine.validation_summary import BUNDLED_SCENARIOS

        view = self.view_widget("Validation")
        path = scenarios_path or str(BUNDLED_SCENARIOS)
        try:
            fn = validation_task(path)
        except QrtuneError as e:
            view.summary_label.setText(str(e))
            return False
        view.show_running(True)
        return self._start("validate", "Validation", fn)

    def export_report(self, path: str | None = None) -> bool:
        """Write a PDF report of the current project in the background (asks for the file if not given)."""
        from app.report.export import report_task

        if path is None:
            path = self._ask_pdf_path("Export report", f"{self.document.project.name}.pdf")
            if not path:
                return False
        return self._start("report", f"Exporting {Path(path).name}", report_task(self.document.project, path))

    def export_sweep_report(self, sweep_id: int | None = None, path: str | None = None) -> bool:
        """Write the PDF report of the Sweep view's finished sweep (or of ``sweep_id``) in the background,
        asking for the file when ``path`` is not given; the same report as ``qrtune report --sweep ID``."""
        from app.report.export import sweep_report_task

        view = self.view_widget("Sweep")
        sweep_id = view.sweep_id if sweep_id is None else sweep_id
        if sweep_id is None:
            self.show_message("Run a sweep first: Export PDF writes the report of a finished sweep.")
            return False
        if path is None:
            path = self._ask_pdf_path(
                "Export sweep report", f"{self.document.project.name} sweep {sweep_id}.pdf"
            )
            if not path:
                return False
        fn = sweep_report_task(sweep_id, str(self.history.db_path), path)
        if not self._start("sweep-report", f"Exporting {Path(path).name}", fn):
            return False
        view.show_running(True)
        view.status.setText(f"Writing the report of sweep #{sweep_id} to {path}...")
        return True

    def _ask_pdf_path(self, title: str, file_name: str) -> str:
        """The PDF file the user picks (``.pdf`` added when the name has no such suffix; "" if cancelled)."""
        path = self._ask_save_path(title, file_name, "PDF files (*.pdf)")
        return path if not path or path.lower().endswith(".pdf") else path + ".pdf"

    def _task_started(self, title: str) -> None:
        self.progress.setValue(0)
        self.progress.setFormat(f"{title} %p%")
        self.progress.show()
        self.cancel_button.show()

    def _task_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        if text:
            self.statusBar().showMessage(text, 2000)

    def _task_partial(self, data) -> None:
        if self._task_kind == "sweep":
            self._lazy_views["Sweep"].show_points(data, self._sweep_axis)

    def _task_done_ui(self) -> None:
        self.statusBar().clearMessage()  # the last progress line ("simulated 2970 of 3000 s") is over
        self.progress.hide()
        self.cancel_button.hide()
        for view in self._lazy_views.values():
            if hasattr(view, "show_running"):
                view.show_running(False)

    def _task_finished(self, result) -> None:
        kind = self._task_kind
        self._task_done_ui()
        if kind == "sweep":
            view = self._lazy_views["Sweep"]
            view.show_points(result.points, result.axis_name)
            n_fail = sum(1 for p in result.points if p.error)
            view.status.setText(
                f"Sweep #{result.sweep_id}: {len(result.points)} points in {result.elapsed_s:.2f} s"
                + (f", {n_fail} failed" if n_fail else "")
                + "; recorded in the run history."
            )
            view.show_record(result.section)
            self.history.notify()
        elif kind == "simulate":
            self._lazy_views["Simulation"].show_outcome(result)
            self.history.notify()
        elif kind == "validate":
            checks, summary = result
            self._lazy_views["Validation"].show_results(checks, summary)
        elif kind in ("report", "sweep-report"):
            self.last_report = result[0]
            self.statusBar().showMessage(f"Report written: {result[0]} ({result[1]} pages)", 8000)
            if kind == "sweep-report":
                self._lazy_views["Sweep"].status.setText(f"Report written: {result[0]} ({result[1]} pages)")

    def _task_failed(self, message: str) -> None:
        kind = self._task_kind
        self._task_done_ui()
        first = message.splitlines()[0]
        self.show_message(f"{self.tasks.title or kind} failed: {first}")
        if kind in ("report", "sweep-report"):  # the PDF was not written: say so where it cannot be missed
            from app import dialogs

            dialogs.show_error(self, "Report not written", first.removeprefix("OutputFileError: "))
        if kind == "simulate":
            self._lazy_views["Simulation"].show_message(first)
        elif kind in ("sweep", "sweep-report"):
            self._lazy_views["Sweep"].status.setText(first)

    def _task_cancelled(self) -> None:
        kind = self._task_kind
        self._task_done_ui()
        self.statusBar().showMessage("Cancelled", 4000)
        if kind == "sweep":
            view = self._lazy_views["Sweep"]
            view.status.setText(f"Cancelled after {len(view.points)} points (kept in the run history).")
            self.history.notify()
        elif kind == "simulate":
            self._lazy_views["Simulation"].show_message("Simulation cancelled.")
