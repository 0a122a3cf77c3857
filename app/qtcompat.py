"""Work-arounds for defects of the Qt binding that would otherwise crash the workbench.

PySide6 6.12 on Python 3.11: calls that return ``None`` (every void method, e.g.
``QLabel.setText``) or a boolean (``SignalInstance.emit()``) hand back ``None`` /
``True`` without taking a new reference, as if those objects were immortal (they
are from Python 3.12 on). Each such call drops one reference; a session makes
millions, and when a count reaches zero the interpreter aborts
(``Fatal Python error: none_dealloc`` / ``bool_dealloc``), typically at exit.

:func:`guard_singleton_refcounts` measures the defect with a few probe calls and,
only when it is present, gives ``None``, ``True`` and ``False`` a reserve of 2**40
references, which no session can use up (these objects are static and never freed,
so the reserve has no other effect). Python 3.12+ and fixed bindings are untouched.
"""

from __future__ import annotations

import sys

RESERVE = 1 << 40
_applied = False


def binding_drops_references() -> bool:
    """True when probe calls lose references to ``None`` or ``True`` (measured, not assumed)."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(4):
        probe.ping.emit()
        probe.setObjectName("probe")
    return sys.getrefcount(None) < none_before or sys.getrefcount(True) < true_before


def guard_singleton_refcounts() -> bool:
    """Apply the reserve once if needed; returns whether it is applied."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not binding_drops_references():
        return False
    import ctypes

    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += RESERVE
    _applied = True
    return True
