"""Every journey walked in the real window on an X display (not offscreen), screenshot per journey.

The walk runs in a child process on Qt's xcb platform (tests/app/x11/drive_journeys.py): on
``DISPLAY`` when one is set, else on an Xvfb started here at 1280x800. Skipped only when there
is no display and no ``Xvfb`` (the reason is printed); CI installs xvfb (.ci/run).
Screenshots land in the test's tmp folder, or in ``$QRTUNE_JOURNEY_SHOTS`` when set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from cli_run import python

DRIVER = Path(__file__).resolve().parent / "x11" / "drive_journeys.py"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def display():
    """An X display: the user's, or a fresh Xvfb 1280x800x24 stopped after the module."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        reason = "no DISPLAY and no Xvfb: install xvfb (apt-get install xvfb xauth) to walk the journeys on X"
        print(reason)
        pytest.skip(reason)
    read, write = os.pipe()
    proc = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    number = b""
    deadline = time.monotonic() + 20
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        chunk = os.read(read, 16)
        if not chunk:
            break
        number += chunk
    os.close(read)
    if not number.strip():
        proc.kill()
        pytest.fail("Xvfb did not report its display number")
    try:
        yield f":{number.decode().strip()}"
    finally:
        proc.terminate()
        proc.wait(10)


def test_every_journey_walks_in_the_real_window(display, tmp_path):
    out = Path(os.environ.get("QRTUNE_JOURNEY_SHOTS") or tmp_path / "journeys")
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    env.pop("QT_SCALE_FACTOR", None)
    done = python(DRIVER, out, "1280x800", env=env, timeout_s=900)
    report = json.loads((out / "journeys.json").read_text()) if (out / "journeys.json").is_file() else None
    assert report is not None, done.stderr[-3000:]
    failed = [
        (r["journey"], [c for c, ok in r["checks"] if not ok], r["error"][-400:])
        for r in report["journeys"]
        if not r["ok"]
    ]
    assert not failed, failed
    assert done.returncode == 0, done.stderr[-2000:]
    assert report["window"][0] <= 1280 and report["window"][1] <= 800  # the window fits the screen asked
    for record in report["journeys"]:
        shot = Path(record["screenshot"])
        assert shot.is_file() and shot.stat().st_size > 20_000, shot  # a real picture of the window
    assert {r["journey"] for r in report["journeys"]} == set(range(1, 15))
