"""Errors of the results store and of monitor imports, as users see them."""

from __future__ import annotations

from engine.errors import InputFileError, QrtuneError


class StoreError(QrtuneError):
    """The store file cannot be used: missing, not a store, or from a newer qrtune."""


class StoreMissingError(StoreError, InputFileError):
    """No store file where one is read."""


class NotAStoreError(StoreError, InputFileError):
    """``--db`` names something that is not a DuckDB results store: a JSON file, a folder, a device."""


class DamagedStoreError(StoreError, InputFileError):
    """The store file is damaged (its tables use blocks past its end): qrtune neither reads nor writes it."""


class StoreLockedError(StoreError):
    """Another process holds the store file's write lock (DuckDB allows one writer per file)."""


class StoreNeedsMigrationError(StoreError):
    """A read-only open of a store written by an older qrtune: open it once for writing to migrate it."""


class UnknownRunError(StoreError):
    """A run id names no run in the store."""


class MonitorImportError(InputFileError):
    """A monitor-table CSV export cannot be imported; the message names file and line."""


class FitError(QrtuneError):
    """Coefficients cannot be fitted (no imported intervals, too few to hold some out ...)."""


__all__ = [
    "DamagedStoreError",
    "FitError",
    "MonitorImportError",
    "NotAStoreError",
    "StoreError",
    "StoreLockedError",
    "UnknownRunError",
]
