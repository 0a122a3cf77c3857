"""The desktop bundle (`make package` -> dist/qrtune/) runs its smoke test: sample, prediction, PDF report.

Skipped, with the reason, only when no bundle has been built in this checkout.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_run import run

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "qrtune"
EXE = BUNDLE / ("qrtune.exe" if sys.platform == "win32" else "qrtune")


needs_bundle = pytest.mark.skipif(
    not EXE.exists() and not os.environ.get("QRTUNE_REQUIRE_BUNDLE"),
    reason="no bundle built: run `make package` to build dist/qrtune/ first",
)
"""Skipped without a bundle, unless ``QRTUNE_REQUIRE_BUNDLE`` is set (CI builds one and sets it)."""
SAMPLES = BUNDLE / "_internal" / "sample_runs"
MONITOR = SAMPLES / "monitor-baseline"


def _bundle_env() -> dict:
    """The user's environment without this checkout's Python settings, Qt offscreen."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


@needs_bundle
def test_bundle_smoke_test_predicts_and_exports_a_pdf(tmp_path):
    out = run([EXE, "--smoke-test", tmp_path], env=_bundle_env(), timeout_s=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "smoke test passed" in out.stdout
    assert "dask loaded: False" in out.stdout  # Dask stays out of the bundle's start-up path
    pdf = tmp_path / "smoke-report.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    assert shutil.which("pdftotext"), "pdftotext is missing: apt-get install poppler-utils"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    e2e = re.search(r"END2END_LATENCY ([\d.,]+) ms", out.stdout).group(1)
    assert re.search(rf"END2END_LATENCY\s+{re.escape(e2e)}\s+ms", text)  # the number the bundle predicted
    assert "NUM_APPLY_AGENTS" in text and "Redpaper baseline" in text


@needs_bundle
def test_bundle_lists_every_command_of_the_command_line():
    from engine.cli import build_parser
    from qrtune.cli import SUBCOMMANDS

    here = set(build_parser(SUBCOMMANDS)._subparsers._group_actions[0].choices)
    out = run([EXE, "--help"], env=_bundle_env(), cwd=BUNDLE.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    listed = set(re.findall(r"^    ([a-z][a-z0-9-]+)", out.stdout, flags=re.M))
    assert listed == here  # every command of the checkout's command line
    assert {"gui", "predict", "report", "simulate", "sweep", "import-monitor"} <= listed


@needs_bundle
@pytest.mark.parametrize(
    "argv, expect",
    [
        (["predict", SAMPLES / "redpaper-baseline.json", "--json"], '"end2end_latency_ms"'),
        (["simulate", SAMPLES / "redpaper-baseline.json", "--duration", "20s", "--db", "r.duckdb"], "run 1"),
        (
            ["sweep", SAMPLES / "redpaper-baseline.json", "--set", "qapply.num_apply_agents=4,8"]
            + ["--workers", "2", "--db", "r.duckdb"],
            "2 predicted now",
        ),
        (["report", SAMPLES / "redpaper-baseline.json", "--out", "rep.pdf"], "wrote rep.pdf"),
        (
            ["import-monitor", MONITOR / "IBMQREP_APPLYMON.csv", MONITOR / "IBMQREP_CAPMON.csv"]
            + ["--project", SAMPLES / "redpaper-baseline.json", "--db", "r.duckdb"],
            "imported 864 rows from 2 file(s)",
        ),
    ],
    ids=["predict", "simulate", "sweep", "report", "import-monitor"],
)
def test_bundle_command_works_from_another_folder(tmp_path, argv, expect):
    out = run([EXE, *argv], env=_bundle_env(), cwd=tmp_path, timeout_s=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert expect in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


@needs_bundle
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the X display (Xvfb) is Linux's")
def test_bundle_opens_the_workbench_window_on_x(tmp_path):
    """``qrtune gui SAMPLE`` on an X display (Xvfb) shows the project's window within 60 s."""
    xvfb, xwininfo = shutil.which("Xvfb"), shutil.which("xwininfo")
    assert xvfb and xwininfo, "Xvfb and xwininfo are needed: apt-get install xvfb xauth x11-utils"
    display = f":{150 + os.getpid() % 100}"
    server = subprocess.Popen([xvfb, display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
    env = {**_bundle_env(), "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "HOME": str(tmp_path)}
    gui = None
    try:
        time.sleep(1)
        gui = subprocess.Popen([EXE, "gui", SAMPLES / "redpaper-baseline.json"], env=env, cwd=tmp_path)
        deadline, titles = time.monotonic() + 60, ""
        while time.monotonic() < deadline and gui.poll() is None:
            titles = run([xwininfo, "-root", "-tree"], env=env).stdout
            if "Redpaper baseline" in titles and "- qrtune" in titles:
                break
            time.sleep(1)
        assert gui.poll() is None, f"the workbench exited with {gui.returncode}"
        assert "(redpaper-baseline.json) - qrtune" in titles
    finally:
        if gui is not None:
            gui.terminate()
            gui.wait(20)
        server.terminate()
        server.wait(10)
