"""The workbench main window: canvas, palette, inspector, live results, runs and the analysis views.

Layout: the central tabs hold the topology canvas, the simulation, sweep,
compare and validation views; docks hold the node palette, the inspector, the
live results and the run history. The dock layout and window geometry are kept
in QSettings between sessions. Every edit goes through :class:`app.document.Document`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import dialogs, style
from app.autosave import Autosaver, recover
from app.autosave import scan as scan_autosaves
from app.canvas import CanvasView, NodePalette, TopologyScene
from app.document import Document
from app.gui_gc import collect_in_gui_thread
from app.history import RunHistory
from app.launchers import TaskLaunchers
from app.live import LivePredictor
from app.menus import add_menu
from app.panels.inspector import Inspector
from app.stages import node_loads
from app.worker import TaskRunner
from engine import templates
from engine.errors import OutputFileError, QrtuneError, one_line
from engine.model import Project

MAX_RECENT = 8
SAMPLE_RUNS = Path(__file__).resolve().parents[1] / "sample_runs"
TEMPLATE_TITLES = {
    "unidirectional": "Unidirectional",
    "bidirectional": "Bidirectional",
    "peer-to-peer": "Peer-to-peer",
    "db2-mirror-pair": "Db2 Mirror pair",
    "mq-mover": "MQ buffer pool and channel",
    "db2-v8-migration": "DB2 V8 migration",
}


def _add_actions(menu, actions) -> None:
    """Add ``actions`` to ``menu`` in order; None adds a separator."""
    for action in actions:
        if action is None:
            menu.addSeparator()
        else:
            menu.addAction(action)


class MainWindow(TaskLaunchers, QMainWindow):
    """The workbench.

    Parameters
    ----------
    project : Project, optional
        Start on this project (default: the unidirectional template).
    settings : QSettings, optional
        Where recent files and the layout are kept (tests pass an isolated file).
    db_path : str, optional
        Run store file (default: ``$QRTUNE_DB`` or the user data folder).
    autosave_dir : Path, optional
        Autosave folder (default: the application data folder).
    """

    def __init__(
        self,
        project: Project | None = None,
        settings: QSettings | None = None,
        db_path: str | None = None,
        autosave_dir: Path | None = None,
    ):
        super().__init__()
        collect_in_gui_thread()  # background tasks must never destroy Qt objects (see app.gui_gc)
        self.settings = settings or QSettings("qrtune", "qrtune")
        self.document = Document(project or templates.unidirectional("Untitled"), parent=self)
        self.history = RunHistory(db_path, self)
        self.tasks = TaskRunner(self)
        self.last_message = ""
        self.confirm_discard = self._ask_discard  # replaced in tests
        #: Fit the window to the screen when it is first shown (:meth:`fit_to_screen`).
        self.fit_on_show = True
        self.setObjectName("qrtune-main")
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowTabbedDocks)

        # canvas and central tabs
        self.scene = TopologyScene(self.document, self)
        self.view = CanvasView(self.scene)
        self.banner = QLabel()
        self.banner.setTextFormat(Qt.PlainText)  # messages quote project files: never rich text
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            f"background:{style.ERROR_BACKGROUND}; color:{style.ERROR_TEXT}; padding:6px; "
            f"border:1px solid {style.ERROR_BORDER};"
        )
        self.banner.hide()
        self.banner_timer = QTimer(self, singleShot=True, interval=10000, timeout=self.banner.hide)
        canvas_page = QWidget()
        cl = QVBoxLayout(canvas_page)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.banner)
        self.summary = QLabel("No prediction yet")  # the results headline, above the canvas
        self.summary.setTextFormat(Qt.RichText)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet(f"padding:4px 6px; border-bottom:1px solid {style.GRID};")
        self.summary.setToolTip("The live prediction; the Results tab (Ctrl+2) has every chart and figure")
        cl.addWidget(self.summary)
        cl.addWidget(self.view, 1)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(False)  # at 150% every tab stays visible, elided if need be
        self.tabs.setElideMode(Qt.ElideRight)
        self.tabs.addTab(canvas_page, "Topology")
        self._results = None  # the Results tab's charts (pyqtgraph) are built when first shown
        self._last_result: tuple = ("message", "No prediction yet")
        results_page = QWidget()
        QVBoxLayout(results_page).setContentsMargins(0, 0, 0, 0)
        self.tabs.addTab(results_page, "Results")
        self.setCentralWidget(self.tabs)
        self._lazy_views: dict[str, QWidget] = {}
        for name in ("Simulation", "Sweep", "Compare", "Validation", "Monitor"):
            holder = QWidget()
            QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
            self.tabs.addTab(holder, name)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.tabs.tabBarClicked.connect(
            lambda i: self.tabs.tabText(i) == "Validation" and self.open_validation()
        )

        # docks
        self.palette = NodePalette()
        self.inspector = Inspector(self.document)
        self.palette_dock = self._dock("Node palette", "palette", self.palette, Qt.LeftDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", "inspector", self.inspector, Qt.RightDockWidgetArea)
        from app.panels.runs import RunsPanel

        self.runs = RunsPanel(self.history, lambda: self.document.project.name)
        self.runs_dock = self._dock("Runs", "runs", self.runs, Qt.LeftDockWidgetArea)
        self.tabifyDockWidget(self.palette_dock, self.runs_dock)  # each gets the whole height
        self.palette_dock.raise_()
        from app.panels.advisor import AdvisorPanel

        self.advisor = AdvisorPanel(self.document, self.history.ensure_store)
        self.advisor.recorded.connect(self.history.notify)
        self.advisor_dock = self._dock("Advisor", "advisor", self.advisor, Qt.RightDockWidgetArea)
        self.tabifyDockWidget(self.inspector_dock, self.advisor_dock)
        self.inspector_dock.raise_()

        # status bar: modified indicator, predict time, progress and Cancel
        self.modified_label = QLabel()
        self.predict_label = QLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.tasks.cancel)
        sb = self.statusBar()
        sb.addPermanentWidget(self.predict_label)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)
        sb.addPermanentWidget(self.modified_label)

        # wiring
        self.live = LivePredictor(self.document, self)
        self.live.predicted.connect(self._predicted)
        self.live.failed.connect(self._predict_failed)
        self.live.loading.connect(self._loading)
        self.scene.message.connect(self.show_message)
        self.scene.node_selected.connect(self.inspector.show_node)
        self.scene.properties_requested.connect(self.show_properties)
        self.palette.kind_activated.connect(self.add_kind_at_centre)
        self.runs.compare_requested.connect(self.compare_runs)
        self.document.modified_changed.connect(self._update_title)
        self.document.path_changed.connect(lambda _: self._update_title())
        self.document.project_changed.connect(self._project_changed)
        self.tasks.started.connect(self._task_started)
        self.tasks.progress.connect(self._task_progress)
        self.tasks.partial.connect(self._task_partial)
        self.tasks.finished.connect(self._task_finished)
        self.tasks.failed.connect(self._task_failed)
        self.tasks.cancelled.connect(self._task_cancelled)
        self._task_kind = ""
        self.autosaver = Autosaver(self.document, autosave_dir, parent=self)
        self.autosaver.failed.connect(self.show_message)

        self._build_actions()
        self._build_menus()
        self._restore_layout()
        self._update_title()
        self.live.update()  # the first one for a kind is deferred while its engine imports
        QTimer.singleShot(0, self.view.fit_to_view)

    # -- construction helpers ----------------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{name}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcuts(shortcut if isinstance(shortcut, list) else [QKeySequence(shortcut)])
        a.setStatusTip(tip or text)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        K = QKeySequence
        self.act_open = self._action("&Open...", lambda: self.open_dialog(), K.Open)
        self.act_save = self._action("&Save", lambda: self.save(), K.Save)
        self.act_save_as = self._action("Save &As...", lambda: self.save_as(), K.SaveAs)
        self.act_export_report = self._action(
            "Export &Report...",
            lambda: self.export_report(),
            "Ctrl+E",
            "Write a PDF report of the project: settings, results, charts",
        )
        self.act_quit = self._action("&Quit", self.close, K.Quit)
        self.act_undo = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcuts(K.Undo)
        self.act_redo = self.document.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts([K(K.Redo), K("Ctrl+Y")])
        self.addAction(
            self.act_undo
        )  # the window's actions are the shortcut list's (Help > Keyboard Shortcuts)
        self.addAction(self.act_redo)
        self.act_delete = self._action("&Delete", self.scene.delete_selected, [K(K.Delete), K("Backspace")])
        self.act_select_all = self._action("Select &All", self._select_all, K.SelectAll)
        self.act_zoom_in = self._action(
            "Zoom &In", lambda: self.view.zoom_by(1.25), [K(K.ZoomIn), K("Ctrl+=")]
        )
        self.act_zoom_out = self._action("Zoom &Out", lambda: self.view.zoom_by(0.8), K.ZoomOut)
        self.act_fit = self._action("&Fit to View", self.view.fit_whole, "Ctrl+0")
        self.act_actual = self._action("Actual &Size", self.view.reset_zoom, "Ctrl+1")
        self.act_predict = self._action(
            "&Predict and Record",
            self.predict_and_record,
            "F5",
            "Predict the project and keep the run in the history",
        )
        self.act_simulate = self._action("&Simulate...", lambda: self.show_view("Simulation"), "F6")
        self.act_sweep = self._action("S&weep...", lambda: self.show_view("Sweep"), "F7")
        self.act_validate = self._action("&Validation", self.open_validation, "F8")
        self.act_topology = self._action("&Topology", lambda: self.show_view("Topology"), "Ctrl+Shift+T")
        self.act_results = self._action("&Results", lambda: self.show_view("Results"), "Ctrl+2")
        self.act_start_page = self._action(
            "S&tart Page...",
            lambda: self.show_start_page(),
            tip="The questions qrtune answers, each opening the sample project that answers it",
        )
        self.act_cancel = self._action("&Cancel Background Task", self.tasks.cancel, "Esc")
        self.act_cancel.setShortcutContext(Qt.WindowShortcut)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = add_menu(self, mb, "&File")
        new_menu = add_menu(self, file_menu, "&New from Template")
        for key, title in TEMPLATE_TITLES.items():
            a = QAction(title, self)
            if key == "unidirectional":
                a.setShortcut(QKeySequence.New)
            a.triggered.connect(lambda _=False, k=key: self.new_from_template(k))
            new_menu.addAction(a)
        act_tables = QAction("New from &Control Tables...", self)
        act_tables.setStatusTip(
            "A project from exports of IBMQREP_CAPPARMS, APPLYPARMS, SENDQUEUES, RECVQUEUES (and SUBS, TARGETS)"
        )
        act_tables.triggered.connect(lambda: self.new_from_control_tables())
        file_menu.addAction(act_tables)
        file_menu.addAction(self.act_open)
        self.recent_menu = add_menu(self, file_menu, "Open &Recent")
        self.act_monitor_sample = QAction("Open Sample &Monitor Exports", self)
        self.act_monitor_sample.setStatusTip(
            "Journey 8: the Redpaper baseline with three days of CAPMON, CAPQMON "
            "and APPLYMON exports (sample_runs/monitor-baseline)"
        )
        self.act_monitor_sample.triggered.connect(lambda: self.open_monitor_sample())
        file_menu.addAction(self.act_monitor_sample)
        file_menu.addAction(self.act_start_page)
        self._fill_recent_menu()
        _add_actions(
            file_menu, (None, self.act_save, self.act_save_as, self.act_export_report, None, self.act_quit)
        )
        _add_actions(
            add_menu(self, mb, "&Edit"),
            (self.act_undo, self.act_redo, None, self.act_delete, self.act_select_all),
        )
        view = add_menu(self, mb, "&View")
        _add_actions(
            view,
            (
                self.act_zoom_in,
                self.act_zoom_out,
                self.act_fit,
                self.act_actual,
                None,
                self.act_topology,
                self.act_results,
            ),
        )
        view.addSeparator()
        for dock in (self.palette_dock, self.inspector_dock, self.runs_dock, self.advisor_dock):
            view.addAction(dock.toggleViewAction())
        _add_actions(
            add_menu(self, mb, "&Run"),
            (self.act_predict, self.act_simulate, self.act_sweep, self.act_validate, None, self.act_cancel),
        )
        from app.help import build_help_menu

        self.help_actions = build_help_menu(self)

    # -- lazy analysis views (pyqtgraph-heavy, built on first use) ------------------------------------
    def view_widget(self, name: str) -> QWidget:
        """The Simulation, Sweep, Compare or Validation view, built on first use."""
        if name in self._lazy_views:
            return self._lazy_views[name]
        if name == "Simulation":
            from app.panels.simulation import SimulationView

            w = SimulationView(self.document)
            w.run_requested.connect(self.simulate)
        elif name == "Sweep":
            from app.panels.sweep import SweepView

            w = SweepView()
            w.set_project(self.document.project)
            w.run_requested.connect(self.sweep)
            w.export_requested.connect(self.export_sweep_report)
        elif name == "Compare":
            from app.panels.compare import CompareView

            w = CompareView()
        elif name == "Validation":
            from app.panels.validation import ValidationView

            w = ValidationView()
            w.run_requested.connect(self.validate)
        elif name == "Monitor":
            from app.panels.monitor import MonitorView

            w = MonitorView(lambda: self.document.project, self.history.ensure_store)
            w.recorded.connect(self.history.notify)
        else:
            raise KeyError(name)
        index = [self.tabs.tabText(i) for i in range(self.tabs.count())].index(name)
        self.tabs.widget(index).layout().addWidget(w)
        self._lazy_views[name] = w
        return w

    def _tab_changed(self, index: int) -> None:
        name = self.tabs.tabText(index)
        if name == "Results":
            self.results  # noqa: B018 - built on first use
        elif name != "Topology":
            self.view_widget(name)

    @property
    def results(self):
        """The Results tab's :class:`app.panels.results.ResultsPanel`, built (with the last prediction) on first use."""
        if self._results is None:
            from app.panels.results import ResultsPanel

            self._results = ResultsPanel()
            index = [self.tabs.tabText(i) for i in range(self.tabs.count())].index("Results")
            self.tabs.widget(index).layout().addWidget(self._results)
            kind, *data = self._last_result
            if kind == "prediction":
                self._results.show_prediction(data[1], data[0])
            else:
                self._results.show_message(data[0])
        return self._results

    def open_validation(self) -> bool:
        """Show the Validation view and, the first time, score the engine at once (no empty plot to press)."""
        view = self.show_view("Validation")
        if view.checks or self.tasks.busy():
            return False
        return self.validate()

    def show_view(self, name: str) -> QWidget:
        """Bring the tab ``name`` (Topology, Results, Simulation, Sweep, Compare, Validation, Monitor) to the front."""
        index = [self.tabs.tabText(i) for i in range(self.tabs.count())].index(name)
        self.tabs.setCurrentIndex(index)
        if name == "Results":
            return self.results
        return self.tabs.widget(index) if name == "Topology" else self.view_widget(name)

    # -- document ------------------------------------------------------------------------
    def _update_title(self) -> None:
        name = Path(self.document.path).name if self.document.path else "unsaved"
        self.setWindowTitle(f"{self.document.project.name} ({name})[*] - qrtune")
        self.setWindowModified(self.document.is_modified())
        self.modified_label.setText("\u25cf Modified" if self.document.is_modified() else "Saved")
        self.modified_label.setStyleSheet(
            f"color:{style.MODIFIED if self.document.is_modified() else style.GOOD};"
        )

    def _project_changed(self, old: Project, new: Project) -> None:
        if old is None or old.name != new.name:
            self._update_title()
            QTimer.singleShot(0, self.runs.refresh)  # "This project only" follows the open project
        if "Sweep" in self._lazy_views and (
            old is None or {n.id for n in old.nodes} != {n.id for n in new.nodes}
        ):
            self._lazy_views["Sweep"].set_project(new)

    def _loading(self, message: str) -> None:
        self._last_result = ("message", message)
        self.summary.setText(message)
        if self._results is not None:
            self._results.show_message(message)

    def _predicted(self, project: Project, prediction) -> None:
        from app.panels.headlines import summary_headline

        self._last_result = ("prediction", project, prediction)
        if self._results is not None:
            self._results.show_prediction(prediction, project)
        self.summary.setText(summary_headline(prediction))
        self.scene.set_loads(node_loads(project, prediction))
        self.inspector.show_prediction(project, prediction)
        self.predict_label.setText(f"predict {self.live.last_predict_ms:.1f} ms")

    def _predict_failed(self, project: Project, message: str) -> None:
        self._last_result = ("message", message)
        if self._results is not None:
            self._results.show_message(message)
        self.summary.setText(f"<b>No prediction</b>: {message}")
        self.scene.set_loads(None)
        self.inspector.show_prediction(project, None)
        self.predict_label.setText("no prediction")

    def show_message(self, text: str) -> None:
        """Show a message the user must read (a refused link) over the canvas and in the status bar."""
        self.last_message = text
        self.banner.setText(text)
        self.banner.show()
        self.banner_timer.start()
        self.statusBar().showMessage(text, 10000)

    def show_properties(self, node_id: str) -> None:
        """Show node ``node_id``'s knobs in the inspector and give it the keyboard (Enter or Properties on the canvas)."""
        self.inspector.show_node(node_id)
        self.inspector_dock.show()
        self.inspector_dock.raise_()
        self.inspector.setFocus()
        self.inspector.focusNextChild()  # its first field

    def add_kind_at_centre(self, kind_id: str) -> None:
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        self.scene.add_kind_at(kind_id, centre)

    def _select_all(self) -> None:
        for item in self.scene.nodes.values():
            item.setSelected(True)

    # -- files ------------------------------------------------------------------------------
    def _ask_discard(self) -> bool:
        """Ask whether unsaved edits may be dropped; saving first is offered."""
        self.inspector.flush()  # a value still in its field counts as an edit
        if not self.document.is_modified():
            return True
        answer = dialogs.ask(
            self,
            "Unsaved changes",
            f"Save the changes to {self.document.project.name}?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
            QMessageBox.Save,
        )
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    def new_from_template(self, key: str) -> bool:
        """Start a new unsaved project from ``engine.templates.TEMPLATES[key]``."""
        if not self.confirm_discard():
            return False
        self._replace_project(templates.TEMPLATES[key](), None)
        return True

    def new_from_control_tables(self, paths: list[str] | None = None) -> bool:
        """Start a new unsaved project from exports of the control tables (one flow per queue map)."""
        if paths is None:
            paths, _ = QFileDialog.getOpenFileNames(
                self,
                "New from control tables: IBMQREP_CAPPARMS, APPLYPARMS, SENDQUEUES, RECVQUEUES (SUBS, TARGETS)",
                self._last_dir(),
                "Control table exports (*.del *.csv *.txt *.ixf);;All files (*)",
            )
        if not paths or not self.confirm_discard():
            return False
        from engine.io.controltables import import_config

        try:
            done = import_config(paths)
        except QrtuneError as e:
            dialogs.show_warning(self, "Cannot build a project from these tables", one_line(str(e)))
            return False
        self._replace_project(done.project, None)
        self.show_message(
            f"{len(done.queue_maps)} queue map(s) from the control tables; not in them, still the defaults: "
            + "; ".join(done.not_known)
        )
        return True

    def open_dialog(self) -> bool:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open project", self._last_dir(), "qrtune projects (*.json)"
        )
        return self.open_project(path) if path else False

    def open_project(self, path: str, ask: bool = True) -> bool:
        """Open ``path``; on error show the message and keep the current project."""
        if ask and not self.confirm_discard():
            return False
        from engine import projectfile

        try:
            project = projectfile.load(path)
        except Exception as e:  # noqa: BLE001 - any file the window cannot open is a message, never a crash
            text = one_line(
                str(e) if isinstance(e, QrtuneError) else f"{path}: cannot open: {type(e).__name__}: {e}"
            )
            self.show_message(text)
            if ask:
                dialogs.show_warning(self, "Cannot open project", text)
            return False
        self._replace_project(project, str(Path(path).resolve()))
        self._add_recent(str(Path(path).resolve()))
        from app.workload_mix import mix_problems

        problems = mix_problems(project)
        if problems:
            self.show_message("The workload mix disagrees: " + "; ".join(problems))
        return True

    def _replace_project(self, project: Project, path: str | None) -> None:
        """Work on ``project`` (from ``path``, None for a new one): what was shown of the last one goes."""
        self.autosaver.discard()
        self.document.reset(project, path)
        self._clear_results()
        self.view.fit_to_view()

    def _clear_results(self) -> None:
        """Another project is open: no view keeps a result of the last one (a task of it is cancelled)."""
        if self.tasks.busy():
            self.tasks.cancel()
        self.advisor.reset()
        for name, view in self._lazy_views.items():
            if name == "Sweep":
                view.reset(self.document.project)
            elif name in ("Simulation", "Compare", "Monitor"):
                view.clear()

    def show_start_page(self):
        """The start page (:mod:`app.start_page`): each journey linked to the sample that answers it."""
        from app.start_page import show_start_page

        return show_start_page(self)

    def open_monitor_sample(self, ask: bool = True) -> bool:
        """Open the baseline sample and import its monitor exports in the background (journey 8)."""
        folder = SAMPLE_RUNS / "monitor-baseline"
        files = sorted(str(f) for f in folder.glob("IBMQREP_*.csv"))
        if not files:
            self.show_message(
                f"No sample monitor exports in {folder}: run {folder / 'build.py'} to make them."
            )
            return False
        if not self.open_project(str(SAMPLE_RUNS / "redpaper-baseline.json"), ask=ask):
            return False
        view = self.show_view("Monitor")
        return view.run(files)

    def save(self) -> bool:
        """Save to the current file (asks for one if never saved)."""
        if not self.document.path:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self, path: str | None = None) -> bool:
        if path is None:
            path = self._ask_save_path(
                "Save project", f"{self.document.project.name}.json", "qrtune projects (*.json)"
            )
            if not path:
                return False
        return self._save_to(path)

    def _save_to(self, path: str) -> bool:
        self.inspector.flush()  # typed, then Ctrl+S with the cursor still in the field
        refused = self.inspector.refused_edits()
        if refused:  # saving the old value and marking the project clean would lose what was typed
            text = one_line(f"Not saved: {refused[0]}; correct the value (or undo it) and save again")
            self.show_message(text)
            return False
        try:
            self.document.save(path)
        except (OSError, QrtuneError) as e:
            text = one_line(
                str(e) if isinstance(e, OutputFileError) else f"Cannot save {path}: {e.strerror or e}"
            )
            self.show_message(text)
            dialogs.show_error(self, "Cannot save project", text)
            return False
        self._add_recent(str(Path(path).resolve()))
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def _last_dir(self) -> str:
        recent = self.recent_files()
        return str(Path(recent[0]).parent) if recent else str(Path.cwd())

    def _ask_save_path(self, title: str, file_name: str, file_filter: str) -> str:
        """The file the user picks in a save dialog proposing ``file_name`` in the last folder ("" if cancelled)."""
        path, _ = QFileDialog.getSaveFileName(
            self, title, str(Path(self._last_dir()) / file_name), file_filter
        )
        return path

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: str) -> None:
        files = [path] + [f for f in self.recent_files() if f != path]
        self.settings.setValue("recent_files", files[:MAX_RECENT])
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            a = QAction(f"&{i + 1} {Path(f).name}", self)
            a.setStatusTip(f)
            a.triggered.connect(lambda _=False, p=f: self.open_project(p))
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(files))

    def offer_recovery(self, ask: bool = True) -> bool:
        """Offer to recover the newest autosave a crashed session left; True if one was recovered."""
        found = scan_autosaves(self.autosaver.directory)
        for path in found.set_aside:
            self.show_message(f"An autosave that could not be read was set aside as {path}")
        if not found.entries:
            return False
        entry = found.entries[0]
        if ask:
            from datetime import datetime

            when = datetime.fromtimestamp(entry.saved_at).strftime("%Y-%m-%d %H:%M")
            answer = dialogs.ask(
                self,
                "Recover unsaved changes",
                f"qrtune closed without saving changes to {entry.project_name} "
                f"({entry.original_path or 'never saved'}), autosaved {when}. Recover them?",
                QMessageBox.Yes | QMessageBox.Discard | QMessageBox.Ignore,
                QMessageBox.Yes,
            )
            if answer == QMessageBox.Discard:
                entry.discard()
                return False
            if answer != QMessageBox.Yes:
                return False
        try:
            recover(self.document, entry)
            self.autosaver.take_over(entry.file)  # the old copy stays until the new one is on disk
        except Exception as e:  # noqa: BLE001 - a damaged autosave must never stop the window
            where = entry.file
            with contextlib.suppress(OSError):
                where = entry.set_aside()
            self.show_message(one_line(f"Cannot recover the autosave (set aside as {where}): {e}"))
            return False
        self._clear_results()
        self.view.fit_to_view()
        return True

    # -- layout ------------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:  # the whole screen's available room, up to 1400 x 900 (1280 x 800 and 150% scaling fit)
            screen = self.screen().availableGeometry() if self.screen() is not None else None
            self.resize(
                min(1400, screen.width()) if screen else 1400, min(900, screen.height()) if screen else 900
            )
        self._layout_restored = state is not None and self.restoreState(state)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not getattr(self, "_default_sized", False) and not self._layout_restored:
            self._default_sized = True
            self._default_dock_sizes()
        QTimer.singleShot(0, self._hide_stray_dock_tab_bars)
        if self.fit_on_show:  # the window manager adds its frame after the first show
            self.fit_on_show = False
            for delay_ms in (0, 250, 1000):
                QTimer.singleShot(delay_ms, self.fit_to_screen)

    def fit_to_screen(self) -> None:
        """Shrink and move the window so all of it, the window manager's title bar and frame included,
        is inside the screen's available room (no status bar, progress or Cancel below the screen)."""
        screen = self.screen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        room, frame, inner = screen.availableGeometry(), self.frameGeometry(), self.geometry()
        frame_w, frame_h = frame.width() - inner.width(), frame.height() - inner.height()
        width = min(inner.width(), room.width() - frame_w)
        height = min(inner.height(), room.height() - frame_h)
        if (width, height) != (inner.width(), inner.height()):
            self.resize(width, height)
        x = min(max(frame.x(), room.left()), room.right() + 1 - (width + frame_w))
        y = min(max(frame.y(), room.top()), room.bottom() + 1 - (height + frame_h))
        if (x, y) != (frame.x(), frame.y()):
            self.move(x, y)  # move() places the frame's top-left corner

    def _hide_stray_dock_tab_bars(self) -> None:
        """Hide the spare tab bar Qt leaves over the central area after a second pair of docks is
        tabified (a duplicate of the Inspector / Advisor tabs; its edge showed through the gaps
        between the Results panel's charts)."""
        central = self.centralWidget().geometry()
        for bar in self.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly):
            if bar.isVisible() and bar.geometry().intersects(central):
                bar.hide()

    def _default_dock_sizes(self) -> None:
        """Narrow side docks so the canvas gets the room (first run, no saved layout): a sixth of the
        width on the left, a quarter on the right."""
        width = self.width()
        self.resizeDocks(
            [self.palette_dock, self.inspector_dock],
            [max(140, width // 6), max(220, width // 4)],
            Qt.Horizontal,
        )

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    def closeEvent(self, event) -> None:
        self.inspector.flush()
        if not self.confirm_discard():
            event.ignore()
            return
        if self.tasks.busy():
            self.tasks.cancel()
            self.tasks.wait(10000)
        if self.advisor.tasks.busy():
            self.advisor.tasks.cancel()
            self.advisor.tasks.wait(10000)
        if "Monitor" in self._lazy_views:
            self._lazy_views["Monitor"].shutdown()
        self.save_layout()
        self.autosaver.discard()
        event.accept()

    # -- runs --------------------------------------------------------------------------------
    def predict_and_record(self) -> int | None:
        """Predict now and record the run in the store; returns the run id."""
        self.live.settings = None  # force a fresh prediction
        self.live.update(wait=True)
        if self.live.shown is None:
            self.show_message(self.live.error or "No prediction")
            return None
        try:
            run_id = self.history.record_prediction(
                self.document.project,
                self.live.shown,
                settings=self.live.settings,
                label=self.document.changes_label(),
            )
        except Exception as e:  # noqa: BLE001 - a locked store must not lose the prediction on screen
            self.show_message(f"The run was not recorded: {e}")
            return None
        self.statusBar().showMessage(f"Recorded run #{run_id}", 4000)
        return run_id

    def compare_runs(self, run_ids: list) -> bool:
        """Show ``run_ids`` side by side in the Compare view."""
        view = self.show_view("Compare")
        try:
            cmp = self.history.compare(run_ids)
        except Exception as e:  # noqa: BLE001 - shown to the user, never a crash
            view.show_message(f"Cannot compare runs {run_ids}: {e}")
            return False
        view.show_comparison(cmp)
        return True

    # -- smoke test -------------------------------------------------------------------------------
    def smoke_views(self) -> dict:
        """The main widgets to screenshot, by name (the analysis views are tabs of the window)."""
        return {
            "main_window": self,
            "canvas": self.view,
            "inspector": self.inspector_dock,
            "results": self.results,
            "runs": self.runs_dock,
        }
