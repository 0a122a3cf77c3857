"""Background work (simulations, sweeps, validation) off the GUI thread, with progress and Cancel.

A task is a plain function ``fn(progress, cancelled) -> result``: it calls
``progress(fraction, text)`` now and then (fraction in 0..1) and returns early
(raising :class:`Cancelled` or returning) once ``cancelled()`` is true. The
function runs in a :class:`QThread`; progress, partial results and the outcome
come back to the GUI thread through queued signals. No process is forked while
a QApplication exists: engines that want processes must use spawn or forkserver.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

#: Python thread switch interval (s) while a task runs (the default is 0.005).
SWITCH_INTERVAL_S = 0.001


class Cancelled(Exception):
    """Raised inside a task when the user pressed Cancel."""


class _Runner(QObject):
    progress = Signal(float, str)
    partial = Signal(object)
    done = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, fn: Callable, stop: threading.Event):
        super().__init__()
        self.fn = fn
        self.stop = stop

    def run(self) -> None:
        try:
            result = self.fn(self._progress, self.stop.is_set, self.partial.emit)
        except Cancelled:
            self.cancelled.emit()
            return
        except Exception as e:  # noqa: BLE001 - shown to the user; never kills the window
            self.failed.emit(f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
            return
        if self.stop.is_set():
            self.cancelled.emit()
        else:
            self.done.emit(result)

    def _progress(self, fraction: float, text: str = "") -> None:
        self.progress.emit(float(fraction), text)


class TaskRunner(QObject):
    """Runs one task at a time in a worker thread.

    Signals
    -------
    started(str)
        A task named by its title started.
    progress(float, str)
        Fraction done (0..1) and a short text.
    partial(object)
        Something the task reported before finishing (a sweep point).
    finished(object)
        The task's result.
    failed(str)
        The task raised; the message says what.
    cancelled()
        The task stopped because Cancel was pressed.
    """

    started = Signal(str)
    progress = Signal(float, str)
    partial = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._thread: QThread | None = None
        self._runner: _Runner | None = None
        self._stop = threading.Event()
        self.title = ""

    def busy(self) -> bool:
        """True while a task runs."""
        return self._thread is not None

    def start(self, title: str, fn: Callable[[Callable, Callable, Callable], Any]) -> bool:
        """Run ``fn(progress, cancelled, partial)`` in the background; False if a task is already running."""
        if self.busy():
            return False
        # The task holds the GIL between engine calls; a short switch interval lets the GUI thread's many
        # small Python callbacks (painting, slots) through quickly, so the window stays responsive.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self.title = title
        self._stop = threading.Event()
        thread = QThread()
        runner = _Runner(fn, self._stop)
        runner.moveToThread(thread)
        thread.started.connect(runner.run)
        runner.progress.connect(self.progress)
        runner.partial.connect(self.partial)
        runner.done.connect(self._on_done)
        runner.failed.connect(self._on_failed)
        runner.cancelled.connect(self._on_cancelled)
        self._thread, self._runner = thread, runner
        self.started.emit(title)
        thread.start()
        return True

    def cancel(self) -> None:
        """Ask the running task to stop (it stops at its next check)."""
        self._stop.set()

    def wait(self, ms: int = 5000) -> bool:
        """Block until the worker thread ends (used at close)."""
        if self._thread is None:
            return True
        return self._thread.wait(ms)

    def _finish(self) -> None:
        thread = self._thread
        self._thread, self._runner = None, None
        if thread is not None:
            thread.quit()
            thread.wait()
            thread.deleteLater()

    def _on_done(self, result) -> None:
        self._finish()
        self.finished.emit(result)

    def _on_failed(self, message: str) -> None:
        self._finish()
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self._finish()
        self.cancelled.emit()
