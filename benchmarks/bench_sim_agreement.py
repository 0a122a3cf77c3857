"""Agreement of the simulation with the steady-state engine on every Q Replication sample.

Goal (issue 13, item 6): at 50% and 80% of the steady-state capacity, the simulated throughput
within 2% of the steady state's and each latency (CAPTURE_LATENCY, QLATENCY, APPLY_LATENCY,
END2END_LATENCY) within 25%. The simulation is not tuned to it: it draws its service times
from the steady-state engine's cost model and queues on its own (:mod:`engine.sim.agreement`).

Prints one row per (sample, load): steady-state and simulated figures and the relative
difference, marked ``*`` where it misses the goal; then the count of figures within the goal.

Usage: ``.venv/bin/python benchmarks/bench_sim_agreement.py [--duration S] [--loads 0.5,0.8]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Goal per figure: relative difference allowed.
GOALS = {
    "rows_per_s": 0.02,
    "CAPTURE_LATENCY": 0.25,
    "QLATENCY": 0.25,
    "APPLY_LATENCY": 0.25,
    "END2END_LATENCY": 0.25,
}
SHORT = {
    "rows_per_s": "rows/s",
    "CAPTURE_LATENCY": "CAPTURE ms",
    "QLATENCY": "Q ms",
    "APPLY_LATENCY": "APPLY ms",
    "END2END_LATENCY": "END2END ms",
}


def qrep_samples() -> list[Path]:
    """Sample projects of kind ``qrep``."""
    from engine.io import projectfile
    from engine.scenario import project_to_scenario

    return [
        p
        for p in sorted((ROOT / "sample_runs").glob("*.json"))
        if project_to_scenario(projectfile.load(p)).get("kind") == "qrep"
    ]


def _cell(agreement, key: str) -> tuple[str, bool]:
    steady, sim = agreement.steady.get(key), agreement.simulated[key]
    err = agreement.relative_error(key)
    if err is None:
        return f"{'n/a':>8} {sim:9.4g} {'':>8}", False
    ok = abs(err) <= GOALS[key]
    return f"{steady:8.4g} {sim:9.4g} {100 * err:+7.1f}%{' ' if ok else '*'}", ok


def main() -> int:
    from engine.errors import QrtuneError
    from engine.io import projectfile
    from engine.scenario import project_to_scenario
    from engine.sim.agreement import compare_at_load

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=300.0, help="simulated seconds per run (default 300)")
    ap.add_argument(
        "--warm-up", type=float, default=60.0, help="seconds left out of the averages (default 60)"
    )
    ap.add_argument("--loads", default="0.5,0.8", help="shares of capacity (default 0.5,0.8)")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    head = "  ".join(f"{SHORT[k] + ' steady/sim/diff':>28}" for k in GOALS)
    print(f"{'sample':<34} load  {head}")
    within = total = 0
    for path in qrep_samples():
        project = projectfile.load(path)
        settings = project_to_scenario(project)
        for load in loads:
            try:
                a = compare_at_load(settings, project, load, args.duration, args.warm_up)
            except QrtuneError as e:
                print(f"{path.stem:<34} {load:4.0%}  not compared: {e}")
                continue
            cells = [_cell(a, k) for k in GOALS]
            within += sum(ok for _, ok in cells)
            total += len(cells)
            print(f"{path.stem:<34} {load:4.0%}  " + "  ".join(f"{text:>28}" for text, _ in cells))
    print(f"\n{within} of {total} figures within the goal (throughput 2%, latencies 25%); * marks a miss")
    return 0


if __name__ == "__main__":
    sys.exit(main())
