"""Generated hostile inputs: every command ends in exit 0 or a clean one-line error, within 20 s.

The budget is small in ``make test`` (:data:`EXAMPLES`, about 15 s in all) and large in
``make fuzz`` (``QRTUNE_FUZZ_EXAMPLES``, 20,000+ inputs over the four properties). Each
example runs in this process under a 20 s alarm (:func:`harness.run_inprocess`); with
``QRTUNE_FUZZ_MEMORY_GB`` set (``make fuzz``) the whole process may grow by at most that
much, so an example allocating more fails with MemoryError, which counts as a traceback.
The verdict of every example is tallied and printed at the end of the session
(``tests/fuzz/conftest.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strategies as fz  # noqa: E402
from harness import explain, run_inprocess, verdict  # noqa: E402

#: Examples per property: a few in the everyday suite, thousands on demand.
EXAMPLES = int(os.environ.get("QRTUNE_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize="QRTUNE_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _written(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _check(argv: list[str], tally, kind: str) -> None:
    outcome = run_inprocess(argv)
    judged = verdict(outcome)
    tally(kind, judged, outcome)
    assert judged in ("ok", "clean-error"), explain(outcome)


@FUZZ
@given(data=fz.project_files())
def test_project_files(workdir, tally, data):
    path = _written(workdir / "project.json", data)
    _check(["validate", path], tally, "project file (validate)")
    _check(["predict", path, "--db", str(workdir / "runs.duckdb")], tally, "project file (predict)")


@FUZZ
@given(data=fz.scenario_files())
def test_scenario_files(workdir, tally, data):
    _check(["evaluate", _written(workdir / "scenarios.json", data)], tally, "scenario file (evaluate)")


@FUZZ
@given(sample=st.sampled_from(fz.SAMPLE_PATHS), changes=st.lists(fz.set_values(), min_size=1, max_size=3))
def test_set_values(tally, sample, changes):
    argv = ["predict", sample]
    for change in changes:
        argv += ["--set", change]
    _check(argv, tally, "--set value (predict)")


@FUZZ
@given(data=st.data())
def test_argument_lists(workdir, tally, data):
    argv = data.draw(fz.argument_lists(str(workdir / "runs.duckdb")))
    _check(argv, tally, "command line")
