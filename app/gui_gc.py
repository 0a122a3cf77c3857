"""Cyclic garbage collected in the GUI thread only.

Python's collector runs in whichever thread happens to allocate when a generation fills up.
When that is a worker thread (a simulation compiling its numba kernels, a sweep, an export)
and the garbage holds Qt objects, they are destroyed outside their thread and the process
can crash. :class:`GuiCollector` turns the automatic collector off and collects on a timer in
the GUI thread instead, generation by generation when its count passes Python's threshold
(what pyqtgraph's ``GarbageCollector`` does, without importing pyqtgraph before the window
shows); the window starts it once per process.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

_collector = None


class GuiCollector(QObject):
    """Collects cyclic garbage every ``interval_s`` seconds on a GUI-thread timer.

    Parameters
    ----------
    interval_s : float
        Seconds between checks of the generations' counts.
    """

    def __init__(self, interval_s: float = 1.0):
        super().__init__(QCoreApplication.instance())
        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(int(interval_s * 1000))

    def check(self) -> None:
        """Collect the generations whose counts passed their thresholds (the youngest first)."""
        count = gc.get_count()
        for generation in range(3):
            if count[generation] <= self.threshold[generation]:
                break
            gc.collect(generation)


def collect_in_gui_thread(interval_s: float = 1.0) -> None:
    """Start collecting cyclic garbage on a GUI-thread timer every ``interval_s`` seconds (once per process).

    Must be called from the GUI thread after the QApplication exists.
    """
    global _collector
    if _collector is None:
        _collector = GuiCollector(interval_s)
