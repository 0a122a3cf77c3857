"""Run every ``benchmarks/bench_*.py`` script in turn and print its figures (``make bench``).

usage: python benchmarks/run_all.py [--only NAME ...]

Each benchmark runs in its own interpreter (the GUI benchmark offscreen) so that one
benchmark's imports and caches do not colour another's figures. The exit status is the
number of benchmarks that failed; their output is shown either way.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmark_scripts(only: list[str] | None = None) -> list[Path]:
    """The benchmark scripts to run, sorted by name.

    Parameters
    ----------
    only : list of str, optional
        Topic names (``evaluate`` for ``bench_evaluate.py``); all scripts when omitted.

    Raises
    ------
    SystemExit
        When a name in ``only`` matches no script (the message lists the available ones).
    """
    scripts = sorted(HERE.glob("bench_*.py"))
    if not only:
        return scripts
    by_topic = {p.stem.removeprefix("bench_"): p for p in scripts}
    unknown = [name for name in only if name not in by_topic]
    if unknown:
        raise SystemExit(f"--only: unknown benchmark {unknown}; available: {sorted(by_topic)}")
    return [by_topic[name] for name in only]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these topics (e.g. sim store)")
    args = ap.parse_args()
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    failed = 0
    for script in benchmark_scripts(args.only):
        print(f"=== {script.name}", flush=True)
        started_s = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)], env=env, cwd=HERE.parent)
        print(f"=== {script.name}: exit {rc}, {time.perf_counter() - started_s:.1f} s wall\n", flush=True)
        failed += rc != 0
    return failed


if __name__ == "__main__":
    sys.exit(main())
