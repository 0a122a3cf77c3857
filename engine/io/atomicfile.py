"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every file qrtune writes for a user (projects, autosaves, PDF reports, CSV and JSON
exports) goes through :func:`atomic_path` (or :func:`atomic_write_text` /
:func:`atomic_write_bytes`): the content is written to a hidden temporary file in the
same folder, flushed to disk, given its final permissions and renamed over the target.

Permissions are those any other program would give: an existing file keeps its mode;
a new one gets ``0666`` less the user's umask (``mkstemp`` alone gives ``0600``).

Temporary files are named ``.NAME.qrtune-PID-RANDOM.tmp``. A write that is killed leaves
one behind; the next write into the same folder removes those whose process is gone
(:func:`remove_stale_temporaries`), and temporaries of the older ``mkstemp`` naming
(``.NAME.XXXXXXXX.tmp``, ``.STEM-XXXXXXXX.pdf.tmp``) once they are an hour old.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from engine.io.parentwatch import alive

_OURS = re.compile(r"^\..+\.qrtune-(\d+)-[0-9a-f]{8}\.tmp$")
_LEGACY = re.compile(r"^\..+(\.[A-Za-z0-9_]{8}\.tmp|-[A-Za-z0-9_]{8}\.pdf\.tmp)$")
#: Age (s) after which a temporary file of the older naming, which has no process id, is stale.
LEGACY_STALE_AFTER_S = 3600.0


def current_umask() -> int:
    """The process's umask (read from /proc where possible; ``os.umask`` is not thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def target_mode(path: Path) -> int:
    """The permission bits ``path`` gets: its current ones when it exists, else ``0666 & ~umask``."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove temporary files that killed writes left in ``folder``; returns those removed.

    Only qrtune's own naming is touched: ``.NAME.qrtune-PID-RANDOM.tmp`` whose process is
    gone, and the older ``mkstemp`` naming when over :data:`LEGACY_STALE_AFTER_S` old.
    Errors (a file removed meanwhile, no permission) are ignored: this is housekeeping.
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(".tmp")):
            continue
        ours = _OURS.match(name)
        try:
            stale = (
                (not alive(int(ours.group(1))))
                if ours
                else (_LEGACY.match(name) is not None and now - entry.stat().st_mtime > LEGACY_STALE_AFTER_S)
            )
            if stale and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block ends normally it replaces ``path``.

    The caller (or a library such as a PDF writer) creates and writes the temporary file.
    On leaving the block it is fsynced, given :func:`target_mode` and renamed over ``path``;
    if the block raises, it is removed and ``path`` is untouched.

    Raises
    ------
    OSError
        The folder cannot be written (nothing is left behind).
    """
    path = Path(path)
    folder = path.parent
    mode = target_mode(path)
    remove_stale_temporaries(folder)
    tmp = folder / f".{path.name[:200]}.qrtune-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    # a folder that is missing or not writable raises OSError here, before any writer starts
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.unlink(tmp)  # the writer creates it (some, such as DuckDB's COPY, refuse an existing file)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable where the platform allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, with the permissions of :func:`target_mode`.

    Raises
    ------
    OSError
        The file cannot be written; ``path`` is left as it was.
    """
    with atomic_path(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))
