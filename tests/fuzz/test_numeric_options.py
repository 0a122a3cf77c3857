"""Every numeric option of every command, at and around its bounds: exit 0 or one clean line, never exit 1.

The options are read from the parser itself (every option whose type is one of
:mod:`engine.cli.argtypes`' checked numbers), so an option added later is fuzzed too. The
values are the bounds, numbers a hair inside and outside them, the smallest and largest
floats, and text that is almost a number. The calculators (``mq-calc``, ``v8``) take every
value in the everyday suite; the other commands a sample (``QRTUNE_FUZZ_EXAMPLES`` more).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import explain, run_inprocess, verdict  # noqa: E402
from test_fuzz import FUZZ  # noqa: E402

from engine.cli import build_parser  # noqa: E402
from qrtune.cli import SUBCOMMANDS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "sample_runs" / "redpaper-baseline.json")
#: The rest of a command line that lets each command run its option's value through to its work.
BASE_ARGV = {
    "predict": [SAMPLE],
    "simulate": [SAMPLE, "--duration", "20s", "--quiet"],
    "sweep": [SAMPLE, "--set", "qapply.num_apply_agents=1,2", "--no-progress"],
    "advise": [SAMPLE, "--no-store"],
    "compare": [],
    "runs": [],
    "export": ["-o", "{tmp}/out.csv"],
    "report": ["--out", "{tmp}/out.pdf"],
    "fit": ["Redpaper baseline (z196, Tables 2-1..2-3)"],
    "import-monitor": [str(ROOT / "sample_runs" / "monitor-baseline" / "IBMQREP_APPLYMON.csv")],
    "mq-calc": [],
    "v8": [],
}
#: Commands that take a results store.
WITH_STORE = {"predict", "simulate", "sweep", "compare", "runs", "export", "report", "fit", "import-monitor"}
#: Options whose large values are legal and only make the run long (pool size, points per task, seeds).
SLOW_WHEN_LARGE = {
    ("sweep", "--workers"),
    ("sweep", "--seeds"),
    ("sweep", "--batch-size"),
    ("fit", "--budget-s"),
}


def numeric_options() -> list[tuple[str, str, object]]:
    """``(command, option, parse)`` of every checked numeric option (positional ones as ``dest``)."""
    parser = build_parser(SUBCOMMANDS)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = []
    for command, p in sub.choices.items():
        for action in p._actions:
            if hasattr(action.type, "allowed") and hasattr(action.type, "minimum"):
                found.append((command, (action.option_strings or [""])[0], action.type))
    return found


OPTIONS = numeric_options()


def edge_values(parse) -> list[str]:
    """The bounds of ``parse`` and numbers just inside and outside them, extreme floats, odd text."""
    low, high = parse.minimum, parse.maximum
    values = [low, high, low + 1e-14 * max(1.0, abs(low)), high * (1 - 1e-15), low - 1, high * 10, high + 1]
    texts = [repr(float(v)) if isinstance(v, float) else str(v) for v in values]
    return [
        *dict.fromkeys(
            [
                *texts,
                "1e-14",
                "5e-324",
                "1e-300",
                "1e308",
                "-0",
                "0",
                "1",
                "9" * 400,
                "nan",
                "inf",
                "0x10",
                "1_000",
                " 5",
                "1e",
                "",
            ]
        )
    ]


def _argv(command: str, option: str, value: str, tmp: Path) -> list[str]:
    argv = [command, *(a.format(tmp=tmp) for a in BASE_ARGV.get(command, []))]
    argv += [option, value] if option else [value]  # "" option: a positional number (compare's run ids)
    if command in WITH_STORE:
        argv += ["--db", str(tmp / "runs.duckdb")]
    if command == "sweep" and option != "--workers":
        argv += ["--workers", "0"]  # in this process
    return argv


def _check(argv: list[str], tally) -> None:
    outcome = run_inprocess(argv)
    judged = verdict(outcome)
    tally("numeric option", judged, outcome)
    assert judged in ("ok", "clean-error"), explain(outcome)


CALCULATOR_CASES = [
    (command, option, value)
    for command, option, parse in OPTIONS
    if command in ("mq-calc", "v8")
    for value in edge_values(parse)
]


def test_every_numeric_option_is_found():
    names = {(c, o) for c, o, _ in OPTIONS}
    assert {
        ("mq-calc", "--log-growth-pct"),
        ("simulate", "--rate"),
        ("sweep", "--workers"),
        ("v8", "--cpu"),
    } <= names
    assert len(OPTIONS) >= 25


@pytest.mark.parametrize("command, option, value", CALCULATOR_CASES)
def test_calculator_options_at_their_bounds(tally, tmp_path, command, option, value):
    _check(_argv(command, option, value, tmp_path), tally)


@FUZZ
@given(data=st.data())
def test_numeric_options_at_their_bounds(tmp_path_factory, tally, data):
    command, option, parse = data.draw(st.sampled_from(OPTIONS))
    values = edge_values(parse)
    if (command, option) in SLOW_WHEN_LARGE:
        values = [v for v in values if not _is_large(v)]
    value = data.draw(st.sampled_from(values))
    _check(_argv(command, option, value, tmp_path_factory.mktemp("numeric")), tally)


def _is_large(text: str) -> bool:
    try:
        return float(text) > 8
    except ValueError:
        return False
