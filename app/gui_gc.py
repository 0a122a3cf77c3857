"""Cyclic garbage collected in the GUI thread only.

Python's collector runs in whichever thread happens to allocate when a generation fills up.
When that is a worker thread (a simulation compiling its numba kernels, a sweep, an export)
and the garbage holds Qt objects, they are destroyed outside their thread and the process
can crash. pyqtgraph's :class:`~pyqtgraph.util.garbage_collector.GarbageCollector` turns the
automatic collector off and collects on a timer in the GUI thread instead; the window starts
it once per process.
"""

from __future__ import annotations

_collector = None


def collect_in_gui_thread(interval_s: float = 1.0) -> None:
    """Start collecting cyclic garbage on a GUI-thread timer every ``interval_s`` seconds (once per process).

    Must be called from the GUI thread after the QApplication exists.
    """
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=interval_s)
