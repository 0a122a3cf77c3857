"""Live prediction: the steady-state engine re-run on every document change.

The steps are those of :func:`engine.predict.predict_project`, taken one at a time so that the
scenario of an edit can be compared with the last one before the engine runs again:
:attr:`LivePredictor.prediction` is the engine's answer for the scenario (reused while the
scenario is unchanged), :attr:`LivePredictor.shown` the project's prediction emitted from it.

The steady-state engine answers in about a millisecond, so it runs synchronously
in the GUI thread right after the change; edits that leave the engine's
settings unchanged (moving a node, renaming it) reuse the last prediction.
The first prediction of a kind imports its engine (and its numeric libraries,
which can take a second): that one is deferred to the event loop, so the window
paints first and shows "loading" meanwhile.
"""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import QrtuneError
from engine.model import Project
from engine.perf import ENGINE_MODULES
from engine.predict import as_project_sees_it, predict_settings, scenario_and_unread_params


class LivePredictor(QObject):
    """Predicts the document's project whenever it changes.

    Signals
    -------
    predicted(object, object)
        ``(project, prediction)`` after a successful prediction.
    failed(object, str)
        ``(project, message)``: the engine cannot predict this project; the message says why.
    """

    predicted = Signal(object, object)
    failed = Signal(object, str)
    loading = Signal(str)

    #: Delay (ms) before importing an engine for the first time.
    LOAD_DELAY_MS = 30

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.settings: dict | None = None
        self.prediction = None
        #: The last prediction emitted: the project's (unread knobs ignored, bands for a V8 migration).
        self.shown = None
        self.error = ""
        self.last_predict_ms = 0.0
        self.enabled = True
        self._load_pending = False
        document.project_changed.connect(self._changed)

    def _changed(self, old: Project, new: Project) -> None:
        self.update(new)

    def update(self, project: Project | None = None, wait: bool = False) -> None:
        """Predict ``project`` (default: the document's) and emit the outcome.

        With ``wait`` an engine not imported yet is imported now instead of on the next event-loop turn.
        """
        if not self.enabled:
            return
        project = project or self.document.project
        try:
            settings, unread = scenario_and_unread_params(project)
        except QrtuneError as e:
            self._fail(project, str(e))
            return
        if settings == self.settings and self.prediction is not None:
            self._emit(project, unread)
            return
        module = ENGINE_MODULES.get(settings.get("kind", ""))
        if not wait and module and module not in sys.modules:
            if not self._load_pending:
                self._load_pending = True
                QTimer.singleShot(self.LOAD_DELAY_MS, self._load_engine)
            self.loading.emit(f"Loading the {settings.get('kind')} engine...")
            return
        start = time.perf_counter()
        try:
            prediction = predict_settings(settings)
        except QrtuneError as e:
            self._fail(project, str(e), settings)
            return
        except Exception as e:  # noqa: BLE001 - an engine bug must not take the window down
            self._fail(project, f"The engine failed on these settings: {type(e).__name__}: {e}", settings)
            return
        self.last_predict_ms = (time.perf_counter() - start) * 1000.0
        self.settings, self.prediction, self.error = settings, prediction, ""
        self._emit(project, unread)

    def _emit(self, project: Project, unread: dict) -> None:
        self.shown = as_project_sees_it(project, unread, self.prediction)
        self.predicted.emit(project, self.shown)

    def _load_engine(self) -> None:
        self._load_pending = False
        self.update(wait=True)

    def _fail(self, project: Project, message: str, settings: dict | None = None) -> None:
        self.settings, self.prediction, self.shown, self.error = settings, None, None, message
        self.failed.emit(project, message)
