"""A local sweep's pool workers end when the sweep's main process is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.io.parentwatch import alive

ROOT = Path(__file__).resolve().parents[3]
MAIN = """
import os
from engine.studies.sweep import local_executor

if __name__ == "__main__":
    pool = local_executor(2)
    pids = sorted({f.result() for f in [pool.submit(os.getpid) for _ in range(8)]})
    print(" ".join(map(str, pids)), flush=True)
    os.kill(os.getpid(), 9)  # the sweep's main process dies without a word to its pool
"""


def test_workers_exit_when_the_main_process_is_killed(tmp_path):
    script, out = tmp_path / "sweep_main.py", tmp_path / "out.txt"
    script.write_text(MAIN)
    with open(out, "w") as f:  # a file, not a pipe: orphaned workers would hold a pipe open
        proc = subprocess.run(
            [sys.executable, str(script)],
            stdout=f,
            stderr=subprocess.STDOUT,
            timeout=120,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert proc.returncode == -signal.SIGKILL, out.read_text()
    workers = [int(p) for p in out.read_text().split()]
    assert workers
    deadline = time.monotonic() + 15  # a plain forkserver pool's workers were still there after 8 minutes
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in workers if alive(p)]
    for p in left:  # never leave them behind, even when the test fails
        os.kill(p, signal.SIGKILL)
    assert left == []


def test_alive_asks_psutil(monkeypatch):
    """Liveness through psutil (``os.kill(pid, 0)`` terminates the process on Windows)."""
    import psutil

    asked = []
    monkeypatch.setattr(psutil, "pid_exists", lambda pid: asked.append(pid) or pid == 4242)
    assert alive(4242) and not alive(4243) and asked == [4242, 4243]
    assert not alive(0) and not alive(-1) and asked == [4242, 4243]  # never a process group


def test_no_process_is_signalled_to_test_liveness():
    """No ``os.kill`` in the product: liveness asks psutil, termination goes through psutil/multiprocessing."""
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("engine", "app", "packaging")
        for path in (ROOT / folder).rglob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "os.kill(" in line.split("#")[0]
    ]
    assert found == []
