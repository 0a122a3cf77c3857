"""Compiling the simulation's kernels with numba: loaded once per process, cached on disk.

A kernel is written as plain Python over numpy arrays and scalars (the reference the tests
run) and compiled with numba when numba is installed (``cache=True``: the machine code is
kept next to the module, or in numba's per-user cache folder for a read-only install; when no
cache can be written numba compiles once per process). A compiled kernel releases the GIL while
it runs (``nogil=True``), so the run's accumulating thread works meanwhile
(:class:`engine.sim.run._OneBehind`). numba is imported without its probe of SciPy's BLAS
(:func:`import_numba`), which the kernels do not use.
"""

from __future__ import annotations

import importlib.abc
import sys
import threading


class RefuseScipyLinalg(importlib.abc.MetaPathFinder):
    """Refuses ``scipy.linalg`` to one thread (the one importing numba), as if SciPy had no BLAS."""

    def __init__(self):
        self.thread = threading.get_ident()

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "scipy.linalg" and threading.get_ident() == self.thread:
            raise ModuleNotFoundError("scipy.linalg not needed by the simulation's kernels", name=fullname)
        return None


def import_numba():
    """numba with its compiled-code registries, imported without probing SciPy's BLAS.

    numba looks for ``scipy.linalg.cython_blas`` when it first loads its array functions
    (``numba.np.arraymath``), only to offer ``np.dot`` and ``np.linalg`` in compiled code;
    importing ``scipy.linalg`` costs about 0.15 s of CPU, a tenth of a short simulation.
    The kernels use no linear algebra, so the importing thread is refused ``scipy.linalg``
    until numba has loaded (other threads import it as usual). When ``scipy.linalg`` was
    already imported, numba finds it.

    Raises
    ------
    ImportError
        numba is not installed.
    """
    if "numba.np.arraymath" not in sys.modules:
        refuse = RefuseScipyLinalg()
        sys.meta_path.insert(0, refuse)
        try:
            import numba.np.arraymath  # noqa: F401 - the module probing BLAS
        finally:
            sys.meta_path.remove(refuse)
    import numba

    return numba


def jit_kernels(*functions) -> list | None:
    """``functions`` compiled with numba, or None without numba.

    The machine code is cached next to the module (or, in a read-only install, in numba's
    per-user cache folder); when no cache can be written numba compiles once per process.
    Compilation itself happens at the first call, so a kernel's helpers can be rebound to
    their compiled versions before it runs.
    """
    try:
        numba = import_numba()
    except ImportError:  # pragma: no cover - numba is a declared dependency
        return None
    try:
        return [numba.njit(cache=True, nogil=True)(f) for f in functions]
    except RuntimeError:
        return [numba.njit(cache=False, nogil=True)(f) for f in functions]


#: Plain-Python kernel -> the kernel to run (compiled with numba, or itself without numba).
_KERNELS: dict = {}


def compiled_or_plain(function):
    """``function`` compiled with numba (once per process), or ``function`` itself without numba."""
    kernel = _KERNELS.get(function)
    if kernel is None:
        compiled = jit_kernels(function)
        kernel = _KERNELS[function] = compiled[0] if compiled else function
    return kernel
