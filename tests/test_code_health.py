"""Code health gates that run with the suite: small functions (cyclomatic complexity <= 25) in the product
(engine/, app/ and packaging/, where the qrtune command lives)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MAX_COMPLEXITY = 25


def test_no_function_of_the_product_is_above_complexity_25():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--select",
            "C901",
            "--output-format",
            "concise",
            "--config",
            f"lint.mccabe.max-complexity={MAX_COMPLEXITY}",
            "engine",
            "app",
            "packaging",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
