"""The desktop bundle (`make package` -> dist/qrtune/) runs its smoke test: sample, prediction, PDF report.

Skipped, with the reason, only when no bundle has been built in this checkout.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "qrtune"
EXE = BUNDLE / ("qrtune.exe" if sys.platform == "win32" else "qrtune")


@pytest.mark.skipif(
    not EXE.exists(), reason="no bundle built: run `make package` to build dist/qrtune/ first"
)
def test_bundle_smoke_test_predicts_and_exports_a_pdf(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["QT_QPA_PLATFORM"] = "offscreen"
    out = run([EXE, "--smoke-test", tmp_path], env=env, timeout_s=300, cwd=tmp_path)
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


@pytest.mark.skipif(
    not EXE.exists(), reason="no bundle built: run `make package` to build dist/qrtune/ first"
)
def test_bundle_runs_the_command_line(tmp_path):
    sample = BUNDLE / "_internal" / "sample_runs" / "redpaper-baseline.json"
    out = run([EXE, "predict", sample, "--json"], env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert '"end2end_latency_ms"' in out.stdout and "PySide6" not in out.stderr
