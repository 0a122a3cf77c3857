"""Benchmark of the advisor and goal seeking; prints the figures (run on demand, not a test).

    .venv/bin/python benchmarks/bench_advise.py [--skip-exhaustive]

Figures: the advisor on each sample project; the journeys' goals (fewest apply agents,
smallest buffer pool for a 20-minute outage); a two-knob goal exhaustive and by coordinate
search; a three-knob goal of 320,000 points by coordinate search, checked against an
exhaustive search of a 1,600-point sub-grid. Engine runs are counted once per point
(memoised). Goals (issue 9): exact on small grids; large grids in far fewer engine runs than
points.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


TWO_KNOBS = (
    "max apply_rows_per_s subject to apply_lpar_busy_pct<=90 over qapply.num_apply_agents=1..32 "
    "qcapture.trans_batch_sz=1..10"
)


def _seek(project, text, method="auto"):
    from engine.advise.goals import goal_from_text
    from engine.advise.goalseek import seek

    goal = goal_from_text(text, project)
    r = seek(project, goal, method=method)
    return goal, r


def _line(label, goal, r):
    values = " ".join(f"{n}={v}" for n, v in r.changes())
    print(
        f"  {label:<44} {r.method:<11} {r.evaluations:>6} runs / {goal.n_points:>8,} points "
        f"{r.elapsed_s * 1000:>8.0f} ms  {'ok' if r.feasible else 'INFEASIBLE'}  {values}  "
        f"objective {r.objective_value:.6g}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-exhaustive", action="store_true", help="skip the 1,600-point exhaustive check")
    a = ap.parse_args(argv)

    from engine import projectfile
    from engine.advise import advise

    samples = ROOT / "sample_runs"
    print("advisor (every rule, each checked with an engine run of its changed project)")
    for name in (
        "redpaper-baseline",
        "redpaper-bidirectional",
        "dw2005-zos-unidirectional",
        "mirror-active-passive",
        "mq-buffer-pool-mover",
    ):
        path = samples / f"{name}.json"
        if not path.exists():
            continue
        project = projectfile.load(path)
        advise(project)  # warm imports
        t0 = time.perf_counter()
        advice = advise(project)
        dt = time.perf_counter() - t0
        print(
            f"  {name:<30} {len(advice.checked):>2} rules, {len(advice.recommendations)} recommended, "
            f"{dt * 1000:7.0f} ms"
        )

    base = projectfile.load(samples / "redpaper-baseline.json")
    print("\ngoal seeking on redpaper-baseline")
    _seek(base, "fewest-agents:40000")  # warm
    for label, text, method in (
        ("fewest agents holding 40,000 rows/s", "fewest-agents:40000", "auto"),
        ("fewest agents holding 60,000 rows/s", "fewest-agents:60000", "auto"),
        ("smallest BUFFPOOL for a 20-minute outage", "outage-pool:20", "auto"),
        ("max rate, agents 1..32 x batch 1..10", TWO_KNOBS, "exhaustive"),
        ("  same, coordinate search", TWO_KNOBS, "coordinate"),
    ):
        goal, r = _seek(base, text, method)
        _line(label, goal, r)

    mirror = samples / "mirror-active-passive.json"
    if mirror.exists():
        mp = projectfile.load(mirror)
        for label, text in (("Db2 Mirror: fewest job sets back to baseline", "mirror-baseline"),):
            goal, r = _seek(mp, text)
            _line(label, goal, r)
            goal, r = _seek(mp, text, "exhaustive")
            _line("  same, exhaustive", goal, r)

    big = (
        "max apply_rows_per_s subject to apply_lpar_busy_pct<=90, end2end_latency_ms<=1000 over "
        "qapply.num_apply_agents=1..64 qcapture.trans_batch_sz=1..50 channel.batchsz=10..1000:10"
    )
    goal, r = _seek(base, big)
    _line("3 knobs: agents x batch x BATCHSZ", goal, r)
    if not a.skip_exhaustive:
        sub = (
            "max apply_rows_per_s subject to apply_lpar_busy_pct<=90, end2end_latency_ms<=1000 over "
            "qapply.num_apply_agents=1..16 qcapture.trans_batch_sz=1..10 channel.batchsz=50..500:50"
        )
        g_ex, r_ex = _seek(base, sub, "exhaustive")
        _line("1,600-point sub-grid, exhaustive", g_ex, r_ex)
        g_co, r_co = _seek(base, sub, "coordinate")
        _line("1,600-point sub-grid, coordinate", g_co, r_co)
        gap = (r_ex.objective_value - r_co.objective_value) / r_ex.objective_value * 100
        print(f"  coordinate search within {gap:.3f}% of the exhaustive optimum on the sub-grid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
