"""Fuzz session set-up: a private store and data folder, a memory cap on demand, and the tally of verdicts.

The tally (inputs tried per kind and verdict: ok, clean-error, traceback, hang) is printed
in pytest's terminal summary and, when ``QRTUNE_FUZZ_REPORT`` names a file, written there as
JSON (``make fuzz`` does), with the first few failing command lines.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import VERDICTS  # noqa: E402

_TALLY: Counter = Counter()
_FAILURES: list[str] = []


def _address_space_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.fixture(scope="session", autouse=True)
def _fuzz_environment(tmp_path_factory):
    """Commands use a store and data folder of their own; with QRTUNE_FUZZ_MEMORY_GB the process is capped."""
    home = tmp_path_factory.mktemp("fuzz-home")
    saved = {k: os.environ.get(k) for k in ("QRTUNE_DB", "XDG_DATA_HOME")}
    os.environ["QRTUNE_DB"] = str(home / "default.duckdb")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    limit_gb = os.environ.get("QRTUNE_FUZZ_MEMORY_GB")
    previous = resource.getrlimit(resource.RLIMIT_AS)
    if limit_gb:  # each example may grow the (already warm) process by at most this much
        import engine.perf  # noqa: F401 - warm the big imports before measuring the base
        import qrtune.cli  # noqa: F401

        cap = _address_space_bytes() + int(float(limit_gb) * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (cap, previous[1]))
    yield
    resource.setrlimit(resource.RLIMIT_AS, previous)
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def tally():
    """``tally(kind, verdict, outcome)``: count one input."""

    def count(kind: str, verdict: str, outcome) -> None:
        _TALLY[(kind, verdict)] += 1
        if verdict not in ("ok", "clean-error") and len(_FAILURES) < 20:
            _FAILURES.append(
                f"{verdict}: qrtune {' '.join(a[:60] for a in outcome.argv)} -> "
                f"{outcome.stderr.strip().splitlines()[-1:] or ['(nothing on stderr)']}"
            )

    return count


def pytest_terminal_summary(terminalreporter):
    if not _TALLY:
        return
    kinds = sorted({k for k, _ in _TALLY})
    totals = {v: sum(n for (_, verdict), n in _TALLY.items() if verdict == v) for v in VERDICTS}
    terminalreporter.section("fuzz inputs")
    for kind in kinds:
        counts = ", ".join(f"{v} {_TALLY[(kind, v)]}" for v in VERDICTS)
        terminalreporter.write_line(f"{kind:<28} {sum(_TALLY[(kind, v)] for v in VERDICTS):>7}: {counts}")
    terminalreporter.write_line(
        f"{'total':<28} {sum(totals.values()):>7}: " + ", ".join(f"{v} {totals[v]}" for v in VERDICTS)
    )
    for line in _FAILURES:
        terminalreporter.write_line(line[:300])
    report = os.environ.get("QRTUNE_FUZZ_REPORT")
    if report:
        Path(report).write_text(
            json.dumps(
                {
                    "inputs": sum(totals.values()),
                    "totals": totals,
                    "by_kind": {k: {v: _TALLY[(k, v)] for v in VERDICTS} for k in kinds},
                    "failures": _FAILURES,
                },
                indent=1,
            )
        )
