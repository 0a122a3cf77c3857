"""Compiling the kernels (engine.sim.jit): numba's disk cache when it can write one, else in memory."""

import numpy as np

from engine.sim import jit


def _double(x, out):
    for i in range(x.shape[0]):
        out[i] = 2.0 * x[i]


def test_a_kernel_compiles_without_a_cache_where_numba_cannot_write_one(monkeypatch):
    # a read-only install with no per-user cache folder: numba refuses cache=True at decoration
    numba = jit.import_numba()
    real = numba.njit
    asked = []

    def njit(cache=False, nogil=False):
        asked.append((cache, nogil))
        if cache:
            raise RuntimeError("cannot cache function '_double': no locator available for file")
        return real(cache=False, nogil=nogil)

    monkeypatch.setattr(numba, "njit", njit)
    (kernel,) = jit.jit_kernels(_double)
    monkeypatch.undo()  # numba compiles the kernel at its first call with its own njit
    out = np.empty(3)
    kernel(np.arange(3.0), out)
    assert asked == [(True, True), (False, True)]  # both release the GIL while they run
    assert out.tolist() == [0.0, 2.0, 4.0]
    assert kernel is not _double and kernel.py_func is _double  # compiled, not the plain function


def test_compiled_or_plain_compiles_once_per_process():
    first = jit.compiled_or_plain(_double)
    assert jit.compiled_or_plain(_double) is first
    assert first.py_func is _double
