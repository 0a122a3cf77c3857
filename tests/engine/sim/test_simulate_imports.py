"""``qrtune simulate`` imports only what it uses (each heavy library costs a tenth of a second)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CODE = f"""
import contextlib, io, sys
sys.path.insert(0, {str(ROOT)!r})
from engine.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["simulate", {str(ROOT / "sample_runs" / "redpaper-baseline.json")!r}, "--duration", "20s"])
print(status, *sorted(m for m in ("networkx", "scipy.linalg", "pandas", "duckdb") if m in sys.modules))
import scipy.linalg
print(scipy.linalg.cython_blas.__name__)
"""


def test_simulate_imports_no_graph_library_and_no_scipy_linear_algebra():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True, cwd=ROOT)
    # numba is loaded without its BLAS probe; scipy.linalg still imports afterwards
    assert out.stdout.split("\n")[:2] == ["0", "scipy.linalg.cython_blas"]
