"""Atomic writes: the user's umask for new files, an existing file's mode kept, stale temporaries removed."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from engine import projectfile, templates
from engine.errors import OutputFileError
from engine.io.atomicfile import (
    LEGACY_STALE_AFTER_S,
    atomic_path,
    atomic_write_bytes,
    atomic_write_text,
    remove_stale_temporaries,
)


@pytest.fixture
def umask():
    """Set the process umask for one test and restore it after."""
    old = os.umask(0o022)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_gets_the_users_umask(tmp_path, umask, mask, expected):
    umask(mask)
    target = tmp_path / "p.json"
    projectfile.save(templates.unidirectional(), target)
    assert _mode(target) == expected


def test_an_existing_files_mode_is_kept(tmp_path, umask):
    target = tmp_path / "shared.json"
    target.write_text("{}")
    os.chmod(target, 0o664)
    umask(0o077)
    atomic_write_text(target, "new")
    assert target.read_text() == "new" and _mode(target) == 0o664


def test_a_file_a_library_writes_gets_the_same_mode(tmp_path, umask):
    umask(0o002)
    target = tmp_path / "r.pdf"
    with atomic_path(target) as tmp:
        assert stat.S_IMODE(os.stat(tmp.parent).st_mode) == 0o700  # a private folder: no link can be planted
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT, 0o600)  # as a PDF writer might
        os.write(fd, b"%PDF")
        os.close(fd)
    assert target.read_bytes() == b"%PDF" and _mode(target) == 0o664


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "p.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(proc.stdout)


def test_stale_temporaries_of_our_naming_are_removed_on_the_next_write(tmp_path):
    dead = tmp_path / f".p.json.qrtune-{_dead_pid()}-0123abcd.tmp"
    alive = tmp_path / f".p.json.qrtune-{os.getpid()}-89abcdef.tmp"  # a write in progress
    legacy_old = tmp_path / ".p.json.ab_cd123.tmp"
    legacy_new = tmp_path / ".q.json.xy_zz999.tmp"
    user_file = tmp_path / ".notes.tmp"
    for p in (dead, alive, legacy_old, legacy_new, user_file):
        p.write_text("x")
    old = time.time() - LEGACY_STALE_AFTER_S - 60
    os.utime(legacy_old, (old, old))
    os.utime(user_file, (old, old))
    atomic_write_text(tmp_path / "other.json", "{}")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([alive.name, legacy_new.name, user_file.name, "other.json"])


def test_remove_stale_temporaries_ignores_a_missing_folder(tmp_path):
    assert remove_stale_temporaries(tmp_path / "nope") == []


def test_a_link_planted_at_the_temporary_name_is_never_written_through(tmp_path, monkeypatch):
    import engine.io.atomicfile as atomicfile

    victim = tmp_path / "secret"
    victim.write_text("mine")
    os.chmod(victim, 0o600)
    monkeypatch.setattr(atomicfile.secrets, "token_hex", lambda n: "0badc0de")
    target = tmp_path / "r.pdf"
    os.symlink(victim, tmp_path / f".r.pdf.qrtune-{os.getpid()}-0badc0de.tmp")
    with pytest.raises(OutputFileError, match="r.pdf: File exists; nothing was written"):
        atomic_write_bytes(target, b"%PDF")
    assert victim.read_text() == "mine" and _mode(victim) == 0o600 and not target.exists()


def test_a_fifo_or_a_folder_is_refused_as_a_target(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputFileError, match=r"named pipe \(FIFO\), not a regular file"):
        atomic_write_text(fifo, "x")
    with pytest.raises(OutputFileError, match="folder, not a regular file"):
        atomic_write_text(tmp_path, "x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_link_to_a_file_replaces_the_file_it_names_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    os.symlink(real, link)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new" and _mode(real) == 0o640


def test_a_write_that_fails_midway_says_the_previous_file_is_unchanged(tmp_path, monkeypatch):
    import errno

    import engine.io.atomicfile as atomicfile

    target = tmp_path / "p.json"
    target.write_text("old")

    def quota_exceeded(fd, data):
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))

    monkeypatch.setattr(atomicfile, "write_chunk", quota_exceeded)
    with pytest.raises(OutputFileError, match="the previous p.json is unchanged"):
        atomic_write_text(target, "new" * 100_000)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]
