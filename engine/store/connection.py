"""Opening a store file: the default location, the one-writer lock, waiting for it.

DuckDB lets one process write a file at a time; while it holds the file, any
other process (even read-only) fails to open it. :func:`connect` turns that
into a :class:`~engine.store.errors.StoreLockedError` naming the file and the
process holding it, after waiting up to ``wait_s`` seconds for the lock.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from engine.io.datadir import user_data_root
from engine.store.errors import StoreError, StoreLockedError, StoreMissingError

#: File name of the default store inside the user data directory.
DEFAULT_FILE_NAME = "runs.duckdb"

#: Environment variable that overrides the default store path (tests, scripted use).
ENV_DB = "QRTUNE_DB"


def default_db_path() -> Path:
    """The default store file: ``$QRTUNE_DB`` if set, else ``runs.duckdb`` in the user data dir.

    The user data directory is :func:`engine.io.datadir.user_data_root` (``~/.local/share/qrtune``
    on Linux). The folder is not created here; :func:`connect` creates it (and no other) when writing.
    """
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    return user_data_root() / DEFAULT_FILE_NAME


def _ensure_folder(path: Path) -> None:
    """Create the store's folder only when it is qrtune's default folder; a ``--db`` path's must exist.

    Raises
    ------
    StoreError
        The folder does not exist and is not the default one (a typo in ``--db`` must not
        create a tree of folders, once even at the file-system root).
    """
    folder = path.parent
    if folder.is_dir():
        return
    if folder.exists() or folder.resolve() != user_data_root().resolve():
        raise StoreError(
            f"cannot create the results store {path}: the folder {folder} does not exist "
            "(qrtune creates only its default folder); create it first or choose another --db"
        )
    folder.mkdir(parents=True, exist_ok=True)


def _lock_holder(message: str) -> str:
    m = re.search(r"\(PID (\d+)\)", message)
    return f" (process {m.group(1)})" if m else ""


def connect(path: str | os.PathLike, read_only: bool = False, wait_s: float = 0.0):
    """Open the DuckDB file at ``path``.

    Parameters
    ----------
    path : str or PathLike
        Store file; for a writable open its folder must exist, except qrtune's default
        folder, which is created.
    read_only : bool
        Open for reading only; the file must exist.
    wait_s : float
        Seconds to keep retrying while another process holds the file (0: fail at once).

    Returns
    -------
    duckdb.DuckDBPyConnection

    Raises
    ------
    StoreLockedError
        Another process still holds the file after ``wait_s`` seconds.
    StoreError
        A read-only open of a file that does not exist, a missing folder other than the default
        one, or a file that is not a DuckDB database.
    """
    import duckdb

    path = Path(path)
    if read_only and not path.exists():
        raise StoreMissingError(
            f"no results store at {path}; record a run first (e.g. qrtune predict --db {path})"
        )
    if not read_only:
        _ensure_folder(path)
    deadline = time.monotonic() + max(0.0, wait_s)
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as e:
            text = str(e)
            if "lock" not in text.lower():
                raise StoreError(f"cannot open the results store {path}: {text}") from None
            if time.monotonic() >= deadline:
                waited = f" after waiting {wait_s:g} s" if wait_s > 0 else ""
                raise StoreLockedError(
                    f"the results store {path} is in use by another process{_lock_holder(text)}{waited}; "
                    "DuckDB allows one writer per file: wait for that process to finish "
                    "(or pass --wait SECONDS), or choose another file with --db"
                ) from None
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.5)
        except duckdb.Error as e:
            raise StoreError(f"cannot open the results store {path}: {e}") from None


__all__ = ["DEFAULT_FILE_NAME", "ENV_DB", "connect", "default_db_path"]
