"""Type checking of the engine: mypy's error count (configured in pyproject.toml) may only shrink.

tests/mypy_baseline.json holds the count of errors when the check was introduced or last lowered;
a change that adds type errors fails here. After fixing some, lower the baseline to the new count
(the failure message of a grown count, or ``python -m mypy``'s last line, gives it).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).with_name("mypy_baseline.json")


def mypy_error_count() -> int:
    """Errors ``python -m mypy`` reports with the repository's configuration (0 when it finds none).

    Raises
    ------
    AssertionError
        mypy did not run (not installed, or a crash): its output is in the message.
    """
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    last = (out.stdout.strip().splitlines() or [""])[-1]
    if last.startswith("Success:"):
        return 0
    found = re.match(r"Found (\d+) errors? in \d+ files?", last)
    assert found and out.returncode == 1, (out.stdout + out.stderr)[-3000:]
    return int(found.group(1))


@pytest.mark.slow
def test_mypy_errors_in_the_engine_do_not_grow():
    baseline = json.loads(BASELINE.read_text())["errors"]
    count = mypy_error_count()
    assert count <= baseline, (
        f"mypy finds {count} errors in engine/, more than the baseline's {baseline}: "
        "run `python -m mypy` and fix the new ones"
    )
