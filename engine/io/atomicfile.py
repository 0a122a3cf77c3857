"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every file qrtune writes for a user (projects, autosaves, PDF reports, CSV and Parquet
exports, monitor CSV copies, sample projects) goes through :func:`atomic_file` (or
:func:`atomic_write_text` / :func:`atomic_write_bytes`; :func:`atomic_path` for a library
that must create the file itself). The steps:

1. The target must be a regular file or not exist yet: a folder, FIFO, socket or device
   (``/dev/full``) is refused before anything is written. A symbolic link is followed and
   the file it names is replaced.
2. A temporary file is created exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``) in the
   target's folder and written through the descriptor that created it, never reopened by
   name, so a link planted in the folder cannot redirect the write.
3. The byte count on disk is checked against what was written, the file is fsynced and
   given its final permissions (an existing file's mode and owner are kept; a new one gets
   ``0666`` less the user's umask), then renamed over the target and the folder fsynced.
4. When any step fails (a full disk, no permission) the temporary file is removed, the
   previous file is left as it was and :class:`~engine.errors.OutputFileError` says so
   (``cannot write rep.pdf: No space left on device; the previous rep.pdf is unchanged``);
   commands exit 3 on it.

Temporary files are named ``.NAME.qrtune-PID-RANDOM.tmp``. A write that is killed leaves
one behind; the next write into the same folder removes those whose process is gone
(:func:`remove_stale_temporaries`), and temporaries of the older ``mkstemp`` naming
(``.NAME.XXXXXXXX.tmp``, ``.STEM-XXXXXXXX.pdf.tmp``) once they are an hour old.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from engine.errors import OutputFileError
from engine.io.parentwatch import alive

_OURS = re.compile(r"^\..+\.qrtune-(\d+)-[0-9a-f]{8}\.tmp$")
_LEGACY = re.compile(r"^\..+(\.[A-Za-z0-9_]{8}\.tmp|-[A-Za-z0-9_]{8}\.pdf\.tmp)$")
#: Age (s) after which a temporary file of the older naming, which has no process id, is stale.
LEGACY_STALE_AFTER_S = 3600.0
#: Flags of the exclusive create: never an existing file, never through a link, not inherited.
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
#: Bytes buffered before a write reaches the temporary file.
BUFFER_BYTES = 1 << 16

#: The one call that writes bytes to a temporary file (``os.write``'s signature). Tests replace
#: it to simulate a full disk (``OSError(errno.ENOSPC, ...)``) where no small file system can be
#: mounted.
write_chunk = os.write


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


def _kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words."""
    for test, name in (
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "named pipe (FIFO)"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return name
    return "special file"


def writable_target(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the file a symbolic link names.

    Raises
    ------
    OutputFileError
        No file name, the folder does not exist, or the target exists and is not a regular
        file (a folder, FIFO, socket or device such as ``/dev/full``).
    """
    if not str(path):
        raise OutputFileError("cannot write '': no file name given")
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise OutputFileError(f"cannot write {path}: {e.strerror or e}; nothing was written") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputFileError(
            f"cannot write {path}: it is a {_kind(mode)}, not a regular file; nothing was written"
        )
    if not target.parent.is_dir():
        raise OutputFileError(f"cannot write {path}: the folder {target.parent} does not exist")
    return target


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove temporary files that killed writes left in ``folder``; returns those removed.

    Only qrtune's own naming is touched: ``.NAME.qrtune-PID-RANDOM.tmp`` (a file, or the private
    folder of :func:`atomic_path`) whose process is gone, and the older ``mkstemp`` naming when
    over :data:`LEGACY_STALE_AFTER_S` old. Errors (a file removed meanwhile, no permission)
    are ignored: this is housekeeping.
    """
    removed: list[Path] = []
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
            if not stale:
                continue
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
            elif ours and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                continue
            removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _temporary_name(target: Path) -> Path:
    return target.parent / f".{target.name[:200]}.qrtune-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def _failure(path: Path, existed: bool, e: BaseException) -> OutputFileError:
    """The error a failed write of ``path`` raises: what went wrong and that the old file is intact."""
    reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
    kept = f"the previous {path.name} is unchanged" if existed else "nothing was written"
    return OutputFileError(f"cannot write {path}: {reason}; {kept}", reason)


class _Descriptor(io.RawIOBase):
    """The temporary file's descriptor as a raw stream that counts the bytes written."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd
        self.written = 0
        self.abandoned = False

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.abandoned:  # a failed write: what is still buffered goes nowhere
            return len(data)
        n = write_chunk(self.fd, data)
        self.written += n
        return n


def _make_durable(fd: int, expected_bytes: int | None, mode: int, owner: tuple[int, int] | None) -> None:
    """Check the size, fsync, set mode (and owner) of the temporary file open as ``fd``.

    Raises
    ------
    OSError
        The size on disk differs from ``expected_bytes``, or fsync fails.
    """
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"the temporary file became a {_kind(st.st_mode)}")
    if expected_bytes is not None and st.st_size != expected_bytes:
        raise OSError(f"only {st.st_size:,} of {expected_bytes:,} bytes reached the disk")
    os.fsync(fd)
    os.fchmod(fd, mode)
    if owner is not None and (st.st_uid, st.st_gid) != owner:
        with contextlib.suppress(OSError):  # only root may give a file away; others keep their own
            os.fchown(fd, *owner)


def _owner(target: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(target)
    except OSError:
        return None
    return st.st_uid, st.st_gid


def _replace(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` over ``target``, refusing a target that became something other than a file."""
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(target).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise OSError(f"{target} became a {_kind(mode)}")
    os.replace(tmp, target)


def _prepare_target(path: str | os.PathLike) -> tuple[Path, bool, int, tuple[int, int] | None]:
    """Check ``path`` can be replaced and clear its folder's stale temporaries.

    Returns
    -------
    tuple
        The target path, whether it exists, the mode the new file takes, and its owner to keep.

    Raises
    ------
    OutputFileError
        As :func:`writable_target`.
    """
    target = writable_target(path)
    existed = target.exists()
    mode, owner = target_mode(target), _owner(target)
    remove_stale_temporaries(target.parent)
    return target, existed, mode, owner


@contextlib.contextmanager
def atomic_file(
    path: str | os.PathLike, text: bool = False, encoding: str = "utf-8", newline: str | None = None
) -> Iterator[IO]:
    """Yield a file to write; when the block ends normally it replaces ``path`` (see the module notes).

    Parameters
    ----------
    path : path
        The file to write.
    text : bool
        Yield a text file (``encoding``, ``newline`` as :func:`open`) instead of a binary one.

    Raises
    ------
    OutputFileError
        The target cannot be written (not a regular file, no folder, a full disk, no
        permission); the previous file is unchanged and no temporary file is left.
    """
    target, existed, mode, owner = _prepare_target(path)
    tmp = _temporary_name(target)
    try:
        fd = os.open(tmp, _CREATE_FLAGS, 0o600)
    except OSError as e:
        raise _failure(Path(path), existed, e) from None
    raw = _Descriptor(fd)
    stream = io.BufferedWriter(raw, BUFFER_BYTES)
    f = io.TextIOWrapper(stream, encoding=encoding, newline=newline, write_through=False) if text else stream
    try:
        yield f
        f.flush()
        _make_durable(fd, raw.written, mode, owner)
        _replace(tmp, target)
    except BaseException as e:
        raw.abandoned = True
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, OutputFileError):
            raise _failure(Path(path), existed, e) from None
        raise
    finally:
        raw.abandoned = True
        with contextlib.suppress(OSError, ValueError):
            f.close()
        os.close(fd)
    _fsync_folder(target.parent)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a path for a library that creates the file itself (DuckDB's ``COPY``); it then replaces ``path``.

    The yielded path lies in a private folder (mode 700, created exclusively in the target's
    folder), so nobody else can plant a link under that name. On leaving the block the file
    is opened without following links, checked to be a regular file, fsynced, given
    :func:`target_mode` and renamed over ``path``; if the block raises, nothing changes.

    Raises
    ------
    OutputFileError
        As :func:`atomic_file`.
    """
    target, existed, mode, owner = _prepare_target(path)
    private = _temporary_name(target)
    try:
        os.mkdir(private, 0o700)
    except OSError as e:
        raise _failure(Path(path), existed, e) from None
    inner = private / target.name
    try:
        yield inner
        fd = os.open(inner, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            _make_durable(fd, None, mode, owner)
        finally:
            os.close(fd)
        _replace(inner, target)
    except BaseException as e:
        if isinstance(e, OSError) and not isinstance(e, OutputFileError):
            raise _failure(Path(path), existed, e) from None
        raise
    finally:
        shutil.rmtree(private, ignore_errors=True)
    _fsync_folder(target.parent)


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
    """Write ``data`` to ``path`` atomically (see :func:`atomic_file`).

    Raises
    ------
    OutputFileError
        The file cannot be written; ``path`` is left as it was.
    """
    with atomic_file(path) as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))
