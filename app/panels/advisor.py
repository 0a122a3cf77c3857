"""The advisor panel: engine-checked recommendations and goal seeking for the open project.

"Advise" runs every advisor rule (:func:`engine.advise.advise`) in a background
:class:`app.worker.TaskRunner`; "Seek goal" searches the goal of the goal form
(:class:`app.panels.goal_form.GoalForm`: a goal kind in a DBA's words, its value and unit, the node
by label), or a goal written in the engine's syntax (a named one such as ``fewest-agents:60000``
or ``outage-pool:20``, or one written out) when the form says "Write the goal yourself". Each
result lists what
to change, the predicted throughput, latency and CPU before and after (with their
prediction bands), the cost or risk and the seed section. Applying a result edits the
document through its undo stack (one undoable step), changing only the knobs the result
names, so edits made meanwhile are kept. Every result is recorded as a run.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QWidget,
)

from app.panels.goal_form import GoalForm
from app.panels.tables import panel_column
from app.worker import Cancelled, TaskRunner
from engine.limit import limit_text
from engine.metrics import knob_label
from engine.metrics import label as metric_label
from engine.metrics.catalog import format_number, format_value

#: A written goal for Q Replication projects (the goal box accepts any written goal).
QREP_WRITTEN_GOAL = (
    "max apply_rows_per_s subject to apply_lpar_busy_pct<=90 over qapply.num_apply_agents=1..32 "
    "qcapture.trans_batch_sz=1..10"
)


def goal_presets(project) -> tuple[str, ...]:
    """The goals offered for ``project``'s kind: only goals that can run on it.

    Q Replication projects get ``fewest-agents`` at their offered rate (60,000 rows/s when none is
    set), ``outage-pool`` and a written goal; Db2 Mirror pairs get ``mirror-baseline`` by job sets
    and by cores; other kinds (the MQ mover, DB2 V8) no named goal.
    """
    from engine.studies.sweep_pick import target_rate

    kinds = {n.kind for n in project.nodes}
    if "qapply" in kinds:
        rate = target_rate(project) or 60_000.0
        return (f"fewest-agents:{rate:.0f}", "outage-pool:20", QREP_WRITTEN_GOAL)
    if "db2_mirror_node" in kinds:
        return ("mirror-baseline", "mirror-baseline:cores")
    return ()


def advise_task(project, db_path: str | None, outage_min: float = 20.0):
    """Background function running the advisor and recording its runs."""

    def run(progress, cancelled, partial):
        from engine.advise import advise

        advice = advise(project, outage_min=outage_min, progress=progress, cancelled=cancelled)
        if cancelled():
            raise Cancelled()
        if db_path:
            from engine.store import Store

            with Store.open(db_path, wait_s=5.0) as store:
                store.record_prediction(project, advice.prediction, kind="advise", label="advise: as is")
                for r in advice.recommendations:
                    store.record_prediction(
                        r.project, r.prediction, kind="advise", label=f"advice: {r.title}"
                    )
        return advice

    return run


def goal_changes_text(result, project) -> str:
    """A goal result's best point as a user reads it: ``Q Apply B: NUM_APPLY_AGENTS 4`` (node labels of
    ``project``, IBM's parameter names)."""
    labels = {n.id: n.label for n in project.nodes}
    parts = []
    for axis, value in zip(result.goal.knobs, result.values):
        nodes = ", ".join(labels.get(i, i) for i in axis.node_ids)
        parts.append(f"{nodes}: {knob_label(axis.param)} {format_value(value)}")
    return "; ".join(parts)


def goal_task(project, goal_text: str, db_path: str | None):
    """Background function seeking a goal and recording the best point.

    Raises
    ------
    FieldError
        Immediately, when the goal text is malformed (before anything runs).
    """
    from engine.advise.goals import goal_from_text

    goal = goal_from_text(goal_text, project)

    def run(progress, cancelled, partial):
        from engine.advise.goalseek import seek
        from engine.errors import QrtuneError

        try:
            result = seek(project, goal, progress=progress, cancelled=cancelled)
        except QrtuneError:
            if cancelled():
                raise Cancelled() from None
            raise
        if db_path:
            from engine.store import Store

            label = "goal: " + goal_changes_text(result, project)
            with Store.open(db_path, wait_s=5.0) as store:
                store.record_prediction(result.project, result.prediction, kind="goalseek", label=label)
        return result

    return run


class AdvisorPanel(QWidget):
    """Recommendations and goals for the document's project.

    Parameters
    ----------
    document : app.document.Document
    db_path_fn : callable, optional
        Returns the run store path (None: results are not recorded).

    Signals
    -------
    applied(str)
        A result was applied; the text names it.
    recorded()
        Runs were recorded.
    """

    applied = Signal(str)
    recorded = Signal()

    def __init__(self, document, db_path_fn=lambda: None, parent=None):
        super().__init__(parent)
        self.document = document
        self.db_path_fn = db_path_fn
        self.tasks = TaskRunner(self)
        self.results: list = []  # Recommendation or GoalResult, in list order
        self.advice = None
        layout = panel_column(self)
        row = QHBoxLayout()
        self.advise_button = QPushButton("Advise")
        self.advise_button.setToolTip("Check every tuning rule against the project with the engine")
        self.advise_button.clicked.connect(self.run_advice)
        self.goal_box = QComboBox()
        self.goal_box.setEditable(True)
        self.goal_box.addItems(goal_presets(document.project))
        self.goal_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.goal_box.setMinimumContentsLength(14)  # long written goals must not widen the dock
        self.goal_box.setToolTip(
            "fewest-agents:RATE, outage-pool:MINUTES, or "
            "'min|max OBJECTIVE [subject to METRIC<=V, ...] over TARGET.PARAM=VALUES ...'"
        )
        self.goal_form = GoalForm(lambda: self.document.project, self.goal_box)
        document.project_changed.connect(lambda _old, _new: self.goal_form.project_edited())
        self.goal_title = ""  # the form's goal in words, while its result shows
        self.seek_button = QPushButton("Seek goal")
        self.seek_button.setToolTip("Search the goal with the engine")
        self.seek_button.clicked.connect(self.seek_form_goal)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.tasks.cancel)
        row.addWidget(self.advise_button)
        row.addWidget(self.seek_button)
        layout.addWidget(self.goal_form)  # rows of their own: the dock stays narrow
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        busy = QHBoxLayout()
        busy.addWidget(self.progress, 1)
        busy.addWidget(self.cancel_button)
        layout.addLayout(busy)
        self.status = QLabel("Press Advise to check the project against the tuning rules.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        split = QSplitter(Qt.Vertical)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.currentRowChanged.connect(self._show_detail)
        self.list.itemDoubleClicked.connect(lambda _: self.apply_current())
        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        split.addWidget(self.list)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)
        layout.addWidget(split, 1)
        self.apply_button = QPushButton("Apply selected (undoable)")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply_current)
        layout.addWidget(self.apply_button)
        self.tasks.progress.connect(
            lambda f, t: (self.progress.setValue(int(f * 1000)), self.status.setText(t))
        )
        self.tasks.finished.connect(self._finished)
        self.tasks.failed.connect(lambda m: self._done(f"Failed: {m.splitlines()[0]}"))
        self.tasks.cancelled.connect(lambda: self._done("Cancelled."))

    def reset(self) -> None:
        """Forget the previous project's results and offer the goals of the open one (every open and new)."""
        if self.tasks.busy():
            self.tasks.cancel()
            self.tasks.wait(10000)
        self.results, self.advice = [], None
        self.list.clear()
        self.detail.clear()
        self.apply_button.setEnabled(False)
        self.progress.hide()
        self.advise_button.setEnabled(True)
        self.seek_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        presets = goal_presets(self.document.project)
        self.goal_box.clear()
        self.goal_box.addItems(presets)
        self.goal_box.lineEdit().setPlaceholderText(
            "" if presets else "no named goal for this kind: write one"
        )
        self.goal_form.reset()
        self.status.setText("Press Advise to check the project against the tuning rules.")

    # -- running -----------------------------------------------------------------------------
    def _start(self, title: str, fn) -> bool:
        if not self.tasks.start(title, fn):
            self.status.setText("The advisor is still busy; cancel it first.")
            return False
        self.advise_button.setEnabled(False)
        self.seek_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText(f"{title}...")
        return True

    def run_advice(self) -> bool:
        """Check every rule in the background."""
        return self._start("Checking the tuning rules", advise_task(self.document.project, self.db_path_fn()))

    def seek_form_goal(self) -> bool:
        """Seek the goal form's goal (or the written goal, when the form says so); a field the engine
        refuses is reported at once, naming the field and what it allows."""
        from engine.errors import QrtuneError

        try:
            text = self.goal_form.goal_text()
        except QrtuneError as e:
            self.status.setText(str(e))
            return False
        if text is None:
            return self.run_goal(self.goal_box.currentText())
        return self.run_goal(text, title=self.goal_form.describe())

    def run_goal(self, text: str, title: str = "") -> bool:
        """Seek ``text`` in the background (``title``: the goal in words); a malformed goal is reported at once."""
        from engine.errors import QrtuneError

        try:
            fn = goal_task(self.document.project, text, self.db_path_fn())
        except QrtuneError as e:
            self.status.setText(str(e))
            return False
        self.goal_title = title
        return self._start("Seeking the goal", fn)

    def _done(self, text: str) -> None:
        self.progress.hide()
        self.advise_button.setEnabled(True)
        self.seek_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.status.setText(text)

    def _finished(self, result) -> None:
        from engine.advise import Advice

        if isinstance(result, Advice):
            self.show_advice(result)
        else:
            self.show_goal(result)
        if self.db_path_fn():
            self.recorded.emit()

    # -- showing -----------------------------------------------------------------------------
    def show_advice(self, advice) -> None:
        """List the recommendations of an :class:`engine.advise.Advice`."""
        self.advice = advice
        self.results = list(advice.recommendations)
        self.list.clear()
        for r in self.results:
            item = QListWidgetItem(f"{r.title}\n    {metric_label(r.metric)} {r.signed_gain_pct:+.1f}%")
            item.setToolTip(r.reason)
            self.list.addItem(item)
        n_rules = len(advice.checked)
        self._done(
            f"{len(self.results)} recommendation{'s' if len(self.results) != 1 else ''} from {n_rules} rules "
            f"checked with the engine; bottleneck: {limit_text(advice.prediction)}."
        )
        if self.results:
            self.list.setCurrentRow(0)
        else:
            self.detail.setHtml(
                "<p>No rule's change improves this configuration by the engine's prediction.</p>"
                + self._checked_html()
            )

    def show_goal(self, result) -> None:
        """Show a :class:`engine.advise.goalseek.GoalResult` as the only list entry."""
        self.advice = None
        self.results = [result]
        self.list.clear()
        head = "Goal met" if result.feasible else "No point meets the goal; nearest miss"
        self.list.addItem(QListWidgetItem(f"{head}: {self.changes_text(result)}"))
        self._done(
            f"{result.method} search: {result.evaluations} engine runs of {result.goal.n_points:,} points in "
            f"{result.elapsed_s * 1000:.0f} ms."
        )
        self.list.setCurrentRow(0)

    def changes_text(self, result) -> str:
        """The best point's knobs as a user reads them (:func:`goal_changes_text`)."""
        return goal_changes_text(result, self.document.project)

    def _checked_html(self) -> str:
        if self.advice is None:
            return ""
        rows = "".join(f"<li>{html.escape(rid)}: {html.escape(o)}</li>" for rid, o in self.advice.checked)
        return f"<p><b>Rules checked</b></p><ul>{rows}</ul>"

    def _effect_table(self, before: dict, after: dict, units: dict, bands: dict, kind: str) -> str:
        """Each metric before and after the change, its change in percent and the band of the new
        prediction; two columns that wrap between figures, never inside one, so the table reads in
        the narrow dock."""
        from engine.metrics.bands import band_label, coverage_statement

        def keep(text: str) -> str:
            return html.escape(text).replace(" ", "&nbsp;")

        rows = []
        for name, b in before.items():
            a = after.get(name)
            ok = isinstance(a, (int, float)) and isinstance(b, (int, float)) and b and math.isfinite(a / b)
            notes = [f"{(a - b) / abs(b) * 100:+.1f}%"] if ok else []
            band = bands.get(name)
            if band:
                notes.append(keep(f"{format_number(band[0])} .. {format_number(band[1])}"))
            after_text = format_number(a) if a is not None else "-"
            rows.append(
                f"<tr><td>{html.escape(metric_label(name))}<br><small>{html.escape(units.get(name, ''))}</small></td>"
                f"<td align=right>{keep(f'{format_number(b)} → {after_text}')}<br><small>{', '.join(notes)}</small></td></tr>"
            )
        return (
            "<table cellspacing=0 cellpadding=2 border=1><tr><th>metric</th>"
            f"<th>before &rarr; after<br><small>change, {band_label()} after</small></th></tr>"
            + "".join(rows)
            + "</table>"
            f"<p><small>{html.escape(coverage_statement(kind))}.</small></p>"
        )

    def _show_detail(self, row: int) -> None:
        self.apply_button.setEnabled(0 <= row < len(self.results))
        if not 0 <= row < len(self.results):
            self.detail.clear()
            return
        r = self.results[row]
        from engine.advise.base import Recommendation

        if isinstance(r, Recommendation):
            changes = "<br>".join(html.escape(str(c)) for c in r.changes)
            body = (
                f"<h3>{html.escape(r.title)}</h3><p><b>Why:</b> {html.escape(r.reason)}</p>"
                f"<p><b>Change:</b><br>{changes}</p>"
                + self._effect_table(r.before, r.after, r.units, r.prediction.bands, r.prediction.kind)
                + f"<p><b>Cost / risk:</b> {html.escape(r.cost_risk)}</p>"
                f"<p><small>Seed: {html.escape(r.seed)}. Predicted by an engine run of the changed project."
                "</small></p>" + self._checked_html()
            )
        else:
            cons = "".join(
                f"<li>{'met' if c.satisfied(r.metrics) else '<b>missed</b>'}: "
                f"{html.escape(f'{metric_label(c.metric)} {c.op} {format_number(c.value)}')} "
                f"(predicted {format_number(r.metrics.get(c.metric, float('nan')))})</li>"
                for c in r.goal.constraints
            )
            keys = [
                m
                for m in (
                    "apply_rows_per_s",
                    "end2end_latency_ms",
                    "apply_lpar_busy_pct",
                    "apply_cpu_us_per_row",
                    "outage_held_min",
                    "throughput",
                    "response_time_ms",
                )
                if m in r.metrics
            ]
            body = (
                f"<h3>{html.escape(self.goal_title or r.goal.describe())}</h3>"
                f"<p><b>Best:</b> {html.escape(self.changes_text(r))}</p><ul>{cons}</ul>"
                + "<p>Before: the project as it is; after: the best point.</p>"
                + self._effect_table(
                    {k: r.baseline.get(k, math.nan) for k in keys},
                    {k: r.metrics[k] for k in keys},
                    {**r.prediction.units, "outage_held_min": "min"},
                    r.prediction.bands,
                    r.prediction.kind,
                )
            )
        self.detail.setHtml(body)

    # -- applying ----------------------------------------------------------------------------
    def apply_current(self) -> bool:
        """Apply the selected result to the document as one undoable edit."""
        row = self.list.currentRow()
        if not 0 <= row < len(self.results):
            return False
        r = self.results[row]
        from engine.advise.base import Recommendation, diff_projects
        from engine.errors import QrtuneError

        if isinstance(r, Recommendation):
            changes, text = r.changes, f"Advice: {r.title}"
        else:
            base = self.document.project
            changes = diff_projects(base, r.project)
            text = "Goal: " + self.changes_text(r)
        project = self.document.project
        try:
            for c in changes:
                project = project.with_param(c.node_id, c.param, c.after)
        except (QrtuneError, KeyError) as e:
            self.status.setText(f"Cannot apply: {e}")
            return False
        self.document.push(project, text)
        self.status.setText(f"Applied: {text} (Edit > Undo reverts it).")
        self.applied.emit(text)
        return True
