"""The results store: one DuckDB file holding runs, their metrics, stages and time series.

:class:`Store` is one connection (:class:`~engine.store.base.StoreBase`) with one mixin per
concern: runs and projects (:mod:`engine.store.runs`), sweeps (:mod:`engine.store.sweeps`),
monitor imports (:mod:`engine.store.monitor`) and fits (:mod:`engine.store.fits`). See the
package docstring of :mod:`engine.store` for the API tour and ``docs/store.md`` for the tables.
"""

from __future__ import annotations

from engine.store.base import StoreBase
from engine.store.fits import FitsMixin
from engine.store.monitor import MonitorMixin
from engine.store.runs import RunsMixin
from engine.store.sweeps import SweepsMixin


class Store(RunsMixin, SweepsMixin, MonitorMixin, FitsMixin, StoreBase):
    """An open results store (one DuckDB file); open with :meth:`Store.open`.

    A writable store holds the file's lock until closed, so keep it open only as long as
    needed (DuckDB allows one writing process per file).
    """


__all__ = ["Store"]
