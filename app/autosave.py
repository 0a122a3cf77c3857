"""Autosave of unsaved edits and their recovery after a crash.

While a document has unsaved edits, :class:`Autosaver` writes it (atomically)
a couple of seconds after each change into the application data folder as
``<session>.autosave.json``: the project in the current file format plus the
original path, the writing process (its id and start, :mod:`engine.io.processid`) and the
time. Saving the document or closing it normally removes the file. At start, :func:`scan`
lists autosaves whose process is gone (a process id now used by another process counts as
gone): those are edits a crash would have lost. A recovered autosave is taken over by the
new session (:meth:`Autosaver.take_over`) and replaced atomically by its next write, so
there is never a moment without a copy of the edits on disk. A write that fails (a full
disk) is reported through :attr:`Autosaver.failed`. An autosave
that cannot be read (damaged, truncated, nested too deep) is set aside: renamed to
``<name>.damaged`` so it is never read again, and reported, so one bad file can never
stop the workbench from starting.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine import projectfile
from engine.errors import ProjectFileError, QrtuneError, one_line
from engine.io import jsonfile
from engine.io.atomicfile import atomic_write_text
from engine.io.datadir import user_data_root
from engine.io.processid import still_running, this_process_start
from engine.model import Project, build_project

AUTOSAVE_FORMAT = "qrtune-autosave/1"
SUFFIX = ".autosave.json"
#: Appended to an autosave that cannot be read: it is kept for the user but never read again.
DAMAGED_SUFFIX = ".damaged"


def default_directory() -> Path:
    """``autosave`` in the user data folder (:func:`engine.io.datadir.user_data_root`, beside the results store)."""
    return user_data_root() / "autosave"


@dataclass(frozen=True)
class AutosaveEntry:
    """One recoverable autosave file."""

    file: Path
    original_path: str
    saved_at: float
    pid: int
    project_name: str
    pid_started: str | None = None

    def load(self) -> Project:
        """The autosaved project; raises QrtuneError when the file is damaged."""
        data = jsonfile.read_json(self.file, ProjectFileError)
        if not isinstance(data, dict) or not isinstance(data.get("project"), dict):
            raise ProjectFileError(f"{self.file}: no project in the autosave")
        return build_project(projectfile.migrate(data["project"]))

    def set_aside(self) -> Path:
        """Rename the file to ``<name>.damaged`` (see :func:`set_aside`)."""
        return set_aside(self.file)

    def discard(self) -> None:
        """Delete the autosave file."""
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass


def set_aside(file: Path) -> Path:
    """Rename a damaged autosave to ``<name>.damaged`` (numbered if that exists); returns the new path.

    Raises
    ------
    OSError
        The file cannot be renamed.
    """
    target = file.with_name(file.name + DAMAGED_SUFFIX)
    n = 1
    while target.exists():
        n += 1
        target = file.with_name(f"{file.name}{DAMAGED_SUFFIX}-{n}")
    file.rename(target)
    return target


@dataclass(frozen=True)
class Scan:
    """What :func:`scan` found: recoverable autosaves (newest first) and damaged ones set aside."""

    entries: list
    set_aside: list


def _entry(f: Path) -> AutosaveEntry | None:
    """The entry of autosave ``f``; None when it is another program's file; ProjectFileError when damaged."""
    meta = jsonfile.read_json(f, ProjectFileError)
    if not isinstance(meta, dict) or meta.get("format") != AUTOSAVE_FORMAT:
        return None
    project = meta.get("project")
    original = meta.get("original_path", "")
    started = meta.get("pid_started")
    try:
        return AutosaveEntry(
            f,
            original if isinstance(original, str) else "",
            float(meta.get("saved_at", 0)),
            int(meta.get("pid", 0)),
            str(project.get("name", "?"))[:200],
            started if isinstance(started, str) else None,
        )
    except (ValueError, TypeError, AttributeError, OverflowError):
        raise ProjectFileError(f"{f}: not a readable autosave") from None


def scan(directory: Path | None = None) -> Scan:
    """Autosaves left by processes that are no longer running, newest first; damaged ones set aside."""
    directory = directory or default_directory()
    out, damaged = [], []
    if not directory.is_dir():
        return Scan(out, damaged)
    for f in directory.glob(f"*{SUFFIX}"):
        try:
            entry = _entry(f)
        except QrtuneError:
            try:
                damaged.append(set_aside(f))
            except OSError:
                pass  # cannot rename: it is skipped each start, never read into the window
            continue
        if entry is not None and not still_running(entry.pid, entry.pid_started):
            out.append(entry)
    return Scan(sorted(out, key=lambda e: e.saved_at, reverse=True), damaged)


def find_recoverable(directory: Path | None = None) -> list[AutosaveEntry]:
    """Autosaves left by processes that are no longer running, newest first (see :func:`scan`)."""
    return scan(directory).entries


class Autosaver(QObject):
    """Keeps an autosave of ``document`` while it has unsaved edits.

    Parameters
    ----------
    document : app.document.Document
    directory : Path, optional
        Where autosaves go (default :func:`default_directory`).
    delay_ms : int
        Quiet time after an edit before writing.

    Signals
    -------
    failed(str)
        An autosave could not be written (a full disk, no permission): the message says so
        and that the edits are only in the window until a write succeeds.
    """

    failed = Signal(str)

    def __init__(self, document, directory: Path | None = None, delay_ms: int = 2000, parent=None):
        super().__init__(parent)
        self.document = document
        self.directory = directory or default_directory()
        self.file = self.directory / f"{uuid.uuid4().hex[:12]}{SUFFIX}"
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.save_now)
        self.writes = 0
        document.project_changed.connect(self._changed)
        document.modified_changed.connect(self._modified_changed)

    def _changed(self, old, new) -> None:
        # the undo stack updates its clean state after the project changed: check when the timer fires
        self.timer.start()

    def _modified_changed(self, modified: bool) -> None:
        if modified:
            self.timer.start()
        else:
            self.timer.stop()
            self.discard()

    def save_now(self) -> Path | None:
        """Write the autosave now if there are unsaved edits; return its path."""
        if not self.document.is_modified():
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            data = {
                "format": AUTOSAVE_FORMAT,
                "pid": os.getpid(),
                "pid_started": this_process_start(),
                "saved_at": time.time(),
                "original_path": self.document.path,
                "project": json.loads(projectfile.dumps(self.document.project)),
            }
            atomic_write_text(self.file, json.dumps(data, indent=1, allow_nan=False))
        except (OSError, QrtuneError) as e:  # the next change tries again; the user is told meanwhile
            reason = getattr(e, "reason", None) or getattr(e, "strerror", None) or str(e)
            self.failed.emit(
                one_line(
                    f"Autosave failed: {reason}. Edits since the last autosave are only in this window; save them."
                )
            )
            return None
        self.writes += 1
        return self.file

    def take_over(self, file: Path) -> None:
        """Continue the recovered autosave ``file``: the next write replaces it atomically.

        This session's own autosave (if any) is removed. When the document has unsaved
        edits it is written at once; ``file`` stays on disk until that write is complete
        (and stays when the write fails), so the edits are never only in memory.
        """
        if file != self.file:
            self.discard()
        self.file = Path(file)
        if self.document.is_modified():
            self.save_now()
        else:
            self.discard()

    def discard(self) -> None:
        """Remove this session's autosave (after a save or a normal close)."""
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass


def _loads_as_project(path: str) -> Project | None:
    """The project in ``path`` when it is a project file that loads, else None."""
    if not path or not Path(path).is_file():
        return None
    try:
        return projectfile.load(path)
    except Exception:  # noqa: BLE001 - whatever the file is, it is not a project to save over
        return None


def recover(document, entry: AutosaveEntry) -> None:
    """Load ``entry`` into ``document`` as an unsaved edit of its original file.

    The autosave file is not removed: the window's :class:`Autosaver` takes it over
    (:meth:`Autosaver.take_over`) and replaces it with its next write.

    The original path is kept only when that file is a project that loads: it then becomes
    the clean state, so undo goes back to it and Save writes the recovered version over it.
    Otherwise (gone, not a project, damaged, an autosave naming some other file) the
    recovered document is untitled, so Save asks where to write and overwrites nothing.

    Raises
    ------
    QrtuneError
        The autosave cannot be read.
    """
    recovered = entry.load()
    base = _loads_as_project(entry.original_path)
    path = entry.original_path if base is not None else ""
    document.reset(base if base is not None else recovered, path)
    document.push(recovered, "Recover unsaved changes")
    if base is None:
        # nothing on disk to compare with: still unsaved
        document.undo_stack.resetClean()
