"""Opening a store file: the default location, the one-writer lock, waiting for it.

DuckDB lets one process write a file at a time; while it holds the file, any
other process (even read-only) fails to open it. :func:`connect` turns that
into a :class:`~engine.store.errors.StoreLockedError` naming the file and the
process holding it, after waiting up to ``wait_s`` seconds for the lock.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path

from engine.io.datadir import user_data_root
from engine.store.errors import (
    DamagedStoreError,
    NotAStoreError,
    StoreError,
    StoreLockedError,
    StoreMissingError,
)

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


#: Where DuckDB's main header has its magic bytes.
_MAGIC_OFFSET, _MAGIC = 8, b"DUCK"
#: Bytes before DuckDB's first block: a main header and two database headers of 4 KiB.
_HEADERS_BYTES = 3 * 4096


def _kind_of(mode: int) -> str:
    return (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a named pipe"
        if stat.S_ISFIFO(mode)
        else "a device or special file"
    )


def _what_it_looks_like(head: bytes) -> str:
    text = head.lstrip()[:1]
    if text in (b"{", b"["):
        return "it holds JSON (a project or a monitor export?)"
    if not head:
        return "it is empty"
    return "it has no DuckDB header"


#: How long a file too short for DuckDB's header may take to grow: another qrtune creating the
#: same store writes its headers within milliseconds of creating the file.
_CREATION_WAIT_S = 3.0


def _read_head(path: Path) -> bytes:
    """The first bytes of ``path``, waiting up to :data:`_CREATION_WAIT_S` seconds while the file
    is shorter than DuckDB's magic bytes (a store another process is creating at this moment).

    Raises
    ------
    NotAStoreError
        The file cannot be read.
    """
    wanted = _MAGIC_OFFSET + len(_MAGIC)
    deadline = time.monotonic() + _CREATION_WAIT_S
    while True:
        try:
            with open(path, "rb") as f:
                head = f.read(wanted)
        except OSError as e:
            raise NotAStoreError(f"the results store {path} cannot be read: {e.strerror or e}") from None
        if len(head) >= wanted or time.monotonic() >= deadline:
            return head
        time.sleep(0.05)


def check_store_file(path: str | os.PathLike) -> None:
    """Refuse, before any work, a ``--db`` that is not a usable DuckDB results store.

    A missing file is fine (it is created). Cheap: reads DuckDB's magic bytes only (a damaged
    store is found when it is opened, :func:`check_blocks`).

    Raises
    ------
    NotAStoreError
        An empty name, a folder, FIFO or device, or a file without DuckDB's header (a JSON file).
    """
    if not str(path):
        raise NotAStoreError(
            "--db '': give a results store file name, or leave --db out for the default store"
        )
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise NotAStoreError(f"the results store {path} cannot be read: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise NotAStoreError(
            f"--db {path} is {_kind_of(st.st_mode)}, not a DuckDB results store; choose a file"
        )
    head = _read_head(path)
    if head[_MAGIC_OFFSET : _MAGIC_OFFSET + len(_MAGIC)] != _MAGIC:
        raise NotAStoreError(
            f"--db {path} is not a DuckDB results store: {_what_it_looks_like(head)}; "
            "qrtune leaves it alone: choose another file (e.g. runs.duckdb)"
        )


def check_blocks(con, path: str | os.PathLike) -> None:
    """Refuse a store whose tables use blocks past the end of its file (truncated, half copied).

    DuckDB reads a block only when a query needs it, so such a file opens and even takes new
    rows, and fails later (or is left unreadable). The tables' storage info lists every block in
    use; the file must reach past the last one.

    Raises
    ------
    DamagedStoreError
        The file is too short, or its storage information cannot be read.
    """
    import duckdb

    try:
        tables = [
            r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE NOT temporary").fetchall()
        ]
        if not tables:
            return
        used = " UNION ALL ".join(
            f"SELECT max(block_id) AS block FROM pragma_storage_info('{t.replace(chr(39), chr(39) * 2)}')"
            for t in tables
        )
        last_block = con.execute(f"SELECT max(block) FROM ({used})").fetchall()[0][0]
        block_bytes = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    except duckdb.Error as e:
        raise DamagedStoreError(
            f"the results store {path} is damaged: {str(e).splitlines()[0][:200]}"
        ) from None
    if last_block is None or last_block < 0:
        return
    needed = _HEADERS_BYTES + (int(last_block) + 1) * int(block_bytes)
    size = os.stat(path).st_size
    if size < needed:
        raise DamagedStoreError(
            f"the results store {path} is damaged: {size:,} bytes where its tables need {needed:,} "
            "(truncated or half copied); qrtune will not read or write it: restore it from a copy, "
            "or choose another file with --db"
        )


def check_store_writable(path: str | os.PathLike) -> None:
    """Refuse, before any work, a store that cannot be written (see also :func:`check_store_file`).

    Raises
    ------
    NotAStoreError, DamagedStoreError
        As :func:`check_store_file`.
    StoreError
        The file or its folder cannot be written (no permission, a read-only file system, a
        missing folder other than qrtune's default one).
    """
    check_store_file(path)
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        if folder.exists() or folder.resolve() != user_data_root().resolve():
            raise StoreError(f"cannot write the results store {path}: the folder {folder} does not exist")
        return
    target, what = (path, "file") if path.exists() else (folder, "folder")
    if not os.access(target, os.W_OK):
        raise StoreError(f"cannot write the results store {path}: no permission to write its {what}")


def _lock_holder(message: str) -> str:
    m = re.search(r"\(PID (\d+)\)", message)
    return f" (process {m.group(1)})" if m else ""


#: Seconds between two reports of :func:`connect`'s ``on_wait`` while it waits for the lock.
WAIT_REPORT_S = 5.0

STORAGE_COMPATIBILITY_VERSION = "v1.2.0"
"""DuckDB's on-disk format a new store is created in, so the DuckDB CLI and Python package of 1.3
(the lowest qrtune allows, ``duckdb>=1.3``) or any later release open a store a newer DuckDB created
(``duckdb -readonly runs.duckdb``). It is DuckDB 1.2's, not 1.3's: in the 1.3 format DuckDB 2.0.1
keeps a text column's NULLs inside its dictionary segments ("Empty Validity"), which DuckDB 1.3.0
reads as all NULL (every run's ``bottleneck`` came back NULL); the 1.2 format stores them apart
and 1.3.0 reads every value (.ci/lowest-versions compares every table). Stores created before
keep their format."""

_CONFIG = {"storage_compatibility_version": STORAGE_COMPATIBILITY_VERSION}


def connect(
    path: str | os.PathLike,
    read_only: bool = False,
    wait_s: float = 0.0,
    on_wait: Callable[[float, str], None] | None = None,
):
    """Open the DuckDB file at ``path``.

    Parameters
    ----------
    path : str or PathLike
        Store file; for a writable open its folder must exist, except qrtune's default
        folder, which is created.
    read_only : bool
        Open for reading only; the file must exist.
    wait_s : float
        Seconds to keep retrying while another process holds the file (0: fail at once;
        ``math.inf``: until it is free).
    on_wait : callable, optional
        Called every :data:`WAIT_REPORT_S` seconds while waiting, with the seconds waited so far
        and who holds the file (`` (process 1234)`` or ""), so a long wait is never silent.

    Returns
    -------
    duckdb.DuckDBPyConnection

    Raises
    ------
    StoreLockedError
        Another process still holds the file after ``wait_s`` seconds.
    StoreError
        A read-only open of a file that does not exist, a missing folder other than the default
        one, or a file that is not a DuckDB database or is damaged (:func:`check_store_file`).
    """
    import duckdb

    check_store_file(path)
    path = Path(path)
    if read_only and not path.exists():
        raise StoreMissingError(
            f"no results store at {path}; record a run first (e.g. qrtune predict --db {path})"
        )
    if not read_only:
        _ensure_folder(path)
    start = time.monotonic()
    deadline = start + max(0.0, wait_s)
    delay, reported = 0.05, start
    while True:
        try:
            # the same configuration on every connection: DuckDB refuses a second connection to a file
            # open in this process with another one
            return duckdb.connect(str(path), read_only=read_only, config=dict(_CONFIG))
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
            if on_wait is not None and time.monotonic() - reported >= WAIT_REPORT_S:
                reported = time.monotonic()
                on_wait(reported - start, _lock_holder(text))
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.5)
        except duckdb.Error as e:
            raise StoreError(f"cannot open the results store {path}: {e}") from None


__all__ = [
    "DEFAULT_FILE_NAME",
    "ENV_DB",
    "check_blocks",
    "check_store_file",
    "check_store_writable",
    "connect",
    "default_db_path",
]
