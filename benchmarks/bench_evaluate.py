"""Benchmark: cost of ``qrtune evaluate`` per Q Replication scenario.

usage: python benchmarks/bench_evaluate.py [--repeat N]

Prints two figures:

* in-process: median time of :func:`engine.evaluate.evaluate_scenario` per published qrep
  scenario (each scenario timed ``--repeat`` times, after a warm-up);
* marginal CLI cost: ``qrtune evaluate`` run on a file of the qrep scenarios and on a file
  with them repeated 20 times; (t_big - t_small) / (extra scenarios), median of 5 pairs.

Goal (issue 3): at most 1 ms per scenario (median, marginal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.evaluate import evaluate_scenario


def qrep_scenarios() -> list[dict]:
    doc = json.loads((ROOT / "assets" / "validation" / "calibration.json").read_text())
    return [
        {k: v for k, v in s.items() if not k.startswith("measured")}
        for s in doc["scenarios"]
        if s["kind"] == "qrep"
    ]


def in_process(scenarios: list[dict], repeat: int) -> float:
    for s in scenarios:
        evaluate_scenario(s)
    per = []
    for s in scenarios:
        t0 = time.perf_counter()
        for _ in range(repeat):
            evaluate_scenario(s)
        per.append((time.perf_counter() - t0) / repeat)
    return statistics.median(per)


def cli_time(path: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "engine", "evaluate", str(path)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def marginal_cli(scenarios: list[dict], times: int = 20, pairs: int = 5) -> float:
    with tempfile.TemporaryDirectory() as d:
        small, big = Path(d) / "small.json", Path(d) / "big.json"
        many = [dict(s, id=f"{s['id']}#{i}") for i in range(times) for s in scenarios]
        small.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": scenarios}))
        big.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": many}))
        cli_time(small)
        out = []
        for _ in range(pairs):
            out.append((cli_time(big) - cli_time(small)) / (len(many) - len(scenarios)))
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=50)
    a = ap.parse_args()
    scenarios = qrep_scenarios()
    ip = in_process(scenarios, a.repeat)
    mc = marginal_cli(scenarios)
    print(f"qrep scenarios: {len(scenarios)}")
    print(f"in-process evaluate_scenario: median {1000 * ip:.3f} ms per scenario")
    print(f"qrtune evaluate marginal cost: median {1000 * mc:.3f} ms per scenario (goal <= 1 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
