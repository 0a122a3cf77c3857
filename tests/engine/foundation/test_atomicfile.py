"""Atomic writes: the user's umask for new files, an existing file's mode kept, stale temporaries removed."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from engine import templates
from engine.io import projectfile
from engine.io.atomicfile import (
    LEGACY_STALE_AFTER_S,
    atomic_path,
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
