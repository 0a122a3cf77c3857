"""A folder on a full disk, for the tests that a failed write loses nothing.

:func:`full_disk_folder` mounts a real 3 MB tmpfs there when this process may (root with
``mount``); elsewhere (CI without privileges) it simulates the full disk by making
:data:`engine.io.atomicfile.write_chunk` raise ``ENOSPC``, the error a full disk gives. A
test that only a real file system can exercise (DuckDB writes Parquet itself) asks
:attr:`FullDisk.real` and skips, visibly, otherwise.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: Size of the small file system (MB).
TMPFS_MB = 3


@dataclass
class FullDisk:
    """A folder, and how its disk is made full."""

    folder: Path
    real: bool
    monkeypatch: object

    def fill(self) -> None:
        """Use up the free space: a filler file until ENOSPC (real), or every write failing (simulated)."""
        if self.real:
            chunk = b"\0" * 65536
            with open(self.folder / "filler", "wb", buffering=0) as f:
                try:
                    while True:
                        f.write(chunk)
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
            return
        import engine.io.atomicfile as atomicfile

        def no_space(fd, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        self.monkeypatch.setattr(atomicfile, "write_chunk", no_space)


def _mount(folder: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def full_disk_folder(tmp_path: Path, monkeypatch):
    """Yield a :class:`FullDisk` under ``tmp_path`` (not yet full: write the previous files, then ``fill()``)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    real = _mount(folder)
    try:
        yield FullDisk(folder, real, monkeypatch)
    finally:
        if real:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
