"""Autosave of unsaved edits and their recovery after a crash.

While a document has unsaved edits, :class:`Autosaver` writes it (atomically)
a couple of seconds after each change into the application data folder as
``<session>.autosave.json``: the project in the current file format plus the
original path, the writing process id and the time. Saving the document or
closing it normally removes the file. At start, :func:`find_recoverable` lists
autosaves whose process is gone: those are edits a crash would have lost.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from engine import projectfile
from engine.datadir import user_data_root
from engine.errors import QrtuneError
from engine.model import Project

AUTOSAVE_FORMAT = "qrtune-autosave/1"
SUFFIX = ".autosave.json"


def default_directory() -> Path:
    """``autosave`` in the user data folder (:func:`engine.datadir.user_data_root`, beside the results store)."""
    return user_data_root() / "autosave"


@dataclass(frozen=True)
class AutosaveEntry:
    """One recoverable autosave file."""

    file: Path
    original_path: str
    saved_at: float
    pid: int
    project_name: str

    def load(self) -> Project:
        """The autosaved project; raises QrtuneError when the file is damaged."""
        data = json.loads(self.file.read_text(encoding="utf-8"))
        return projectfile.loads(json.dumps(data["project"]), str(self.file))

    def discard(self) -> None:
        """Delete the autosave file."""
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def find_recoverable(directory: Path | None = None) -> list[AutosaveEntry]:
    """Autosaves left by processes that are no longer running, newest first.

    Damaged files are skipped (and kept, so nothing is deleted silently).
    """
    directory = directory or default_directory()
    out = []
    if not directory.is_dir():
        return out
    for f in directory.glob(f"*{SUFFIX}"):
        try:
            meta = json.loads(f.read_text(encoding="utf-8"))
            if meta.get("format") != AUTOSAVE_FORMAT:
                continue
            pid = int(meta.get("pid", 0))
            entry = AutosaveEntry(f, meta.get("original_path", ""), float(meta.get("saved_at", 0)), pid,
                                  meta.get("project", {}).get("name", "?"))
        except (OSError, ValueError, TypeError, AttributeError):
            continue
        if not _alive(pid):
            out.append(entry)
    return sorted(out, key=lambda e: e.saved_at, reverse=True)


class Autosaver(QObject):
    """Keeps an autosave of ``document`` while it has unsaved edits.

    Parameters
    ----------
    document : app.document.Document
    directory : Path, optional
        Where autosaves go (default :func:`default_directory`).
    delay_ms : int
        Quiet time after an edit before writing.
    """

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
        self.directory.mkdir(parents=True, exist_ok=True)
        data = {
            "format": AUTOSAVE_FORMAT,
            "pid": os.getpid(),
            "saved_at": time.time(),
            "original_path": self.document.path,
            "project": json.loads(projectfile.dumps(self.document.project)),
        }
        try:
            projectfile.atomic_write_text(self.file, json.dumps(data, indent=1))
        except OSError:
            return None  # autosave is best effort; the next change tries again
        self.writes += 1
        return self.file

    def discard(self) -> None:
        """Remove this session's autosave (after a save or a normal close)."""
        try:
            self.file.unlink()
        except FileNotFoundError:
            pass


def recover(document, entry: AutosaveEntry) -> None:
    """Load ``entry`` into ``document`` as an unsaved edit of its original file.

    The original file (when it still opens) becomes the clean state, so undo goes
    back to it and Save writes the recovered version over it.

    Raises
    ------
    QrtuneError
        The autosave cannot be read.
    """
    recovered = entry.load()
    base = recovered
    path = entry.original_path if entry.original_path and Path(entry.original_path).is_file() else ""
    if path:
        try:
            base = projectfile.load(path)
        except QrtuneError:
            base = recovered
    document.reset(base, path)
    document.push(recovered, "Recover unsaved changes")
    if base is recovered:
        # nothing on disk to compare with: still unsaved
        document.undo_stack.resetClean()
    entry.discard()
