"""Agreement of ``qrtune simulate --rate R`` with ``qrtune predict`` at R, as a user runs the two commands.

Goal (issue 32, item 5): at 50% and 80% of the steady-state capacity, on the samples with an open
workload, the simulated throughput within 2% of the steady state's and END2END_LATENCY,
CAPTURE_LATENCY and QLATENCY within 25% (APPLY_LATENCY is printed too). The simulation is not
tuned to it: it evaluates the steady-state cost model at the rate it simulates and queues,
batches and commits on its own (:mod:`engine.sim`).

For each sample and load the benchmark runs the command-line entry point three times, in this
process (``engine.cli.main``, exactly what ``qrtune`` runs):

* ``qrtune predict PROJECT --json`` (the project drives the pipeline to its maximum): the capacity;
* ``qrtune predict PROJECT --set SOURCE.offered_rows_per_s=R --json``: the steady state at R;
* ``qrtune simulate PROJECT --rate R --duration 5m --seed 11 --json --quiet``: the simulation;
  its IBMQREP_APPLYMON rows after a warm-up, weighted by TRANS_APPLIED as a monitor reader
  would average them (:func:`engine.sim.agreement.monitor_row_averages`).

Prints one row per (sample, load): steady-state and simulated figures and the relative
difference, marked ``*`` where it misses the goal; then the count of figures within the goal.

Usage: ``.venv/bin/python benchmarks/bench_sim_agreement.py [--duration 5m] [--loads 0.5,0.8] [--all]``
(``--all``: every Q Replication sample, not only the six of the goal).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The samples of the goal: open workloads of every kind of flow the simulation runs.
GOAL_SAMPLES = (
    "redpaper-baseline",
    "redpaper-bidirectional",
    "zos-to-linux-bindings",
    "zos-to-linux-client",
    "four-queue-maps",
    "qsg-shared-capture-queue",
)
#: Goal per figure: relative difference allowed (None: printed, not part of the goal).
GOALS = {
    "rows_per_s": 0.02,
    "END2END_LATENCY": 0.25,
    "CAPTURE_LATENCY": 0.25,
    "QLATENCY": 0.25,
    "APPLY_LATENCY": None,
}
SHORT = {
    "rows_per_s": "rows/s",
    "CAPTURE_LATENCY": "CAPTURE ms",
    "QLATENCY": "Q ms",
    "APPLY_LATENCY": "APPLY ms",
    "END2END_LATENCY": "END2END ms",
}
#: ``qrtune predict --json`` metric compared with each figure.
STEADY_METRIC = {
    "rows_per_s": "apply_rows_per_s",
    "END2END_LATENCY": "end2end_latency_ms",
    "CAPTURE_LATENCY": "capture_latency_ms",
    "QLATENCY": "qlatency_ms",
    "APPLY_LATENCY": "apply_latency_ms",
}


def qrtune(*argv: str) -> dict:
    """Run ``qrtune ARGV`` through its entry point in this process; its JSON output.

    Raises
    ------
    RuntimeError
        The command exited with a non-zero status (its error line in the message).
    """
    from engine.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    if status != 0:
        raise RuntimeError(err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else status)
    return json.loads(out.getvalue())


def rate_knob(path: Path) -> str:
    """``NODE_ID.offered_rows_per_s`` of the project's first source (``--set`` target of the rate)."""
    from engine import projectfile

    project = projectfile.load(path)
    node = next(n for n in project.nodes if "offered_rows_per_s" in n.params)
    return f"{node.id}.offered_rows_per_s"


def qrep_samples(everything: bool) -> list[Path]:
    """The goal's samples, or with ``everything`` every sample of kind ``qrep``."""
    from engine import projectfile
    from engine.scenario import project_to_scenario

    paths = sorted((ROOT / "sample_runs").glob("*.json"))
    if not everything:
        return [p for p in paths if p.stem in GOAL_SAMPLES]
    return [p for p in paths if project_to_scenario(projectfile.load(p)).get("kind") == "qrep"]


def compare(path: Path, load: float, duration: str, warm_up_s: float) -> tuple[dict, dict]:
    """Steady-state and simulated figures of ``path`` at ``load`` of its capacity."""
    from engine.sim.agreement import monitor_row_averages

    capacity = qrtune("predict", str(path), "--json")["metrics"]["apply_rows_per_s"]
    rate = load * capacity
    steady = qrtune("predict", str(path), "--set", f"{rate_knob(path)}={rate:.6g}", "--json")["metrics"]
    sim = qrtune(
        "simulate",
        str(path),
        "--rate",
        f"{rate:.6g}",
        "--duration",
        duration,
        "--seed",
        "11",
        "--json",
        "--quiet",
    )
    simulated = monitor_row_averages(sim["monitor"]["IBMQREP_APPLYMON"], warm_up_s)
    return {k: steady.get(m) for k, m in STEADY_METRIC.items()}, simulated


def _cell(steady: dict, sim: dict, key: str) -> tuple[str, bool | None]:
    ref, value = steady.get(key), sim[key]
    if not ref:
        return f"{'n/a':>8} {value:9.4g} {'':>8}", False
    err = value / ref - 1.0
    goal = GOALS[key]
    ok = None if goal is None else abs(err) <= goal
    return f"{ref:8.4g} {value:9.4g} {100 * err:+7.1f}%{'*' if ok is False else ' '}", ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default="5m", help="simulated time per run (default 5m)")
    ap.add_argument(
        "--warm-up", type=float, default=60.0, help="seconds left out of the averages (default 60)"
    )
    ap.add_argument("--loads", default="0.5,0.8", help="shares of capacity (default 0.5,0.8)")
    ap.add_argument("--all", action="store_true", help="every Q Replication sample")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    head = "  ".join(f"{SHORT[k] + ' steady/sim/diff':>28}" for k in GOALS)
    print(f"{'sample':<34} load  {head}")
    within = total = 0
    for path in qrep_samples(args.all):
        for load in loads:
            try:
                steady, sim = compare(path, load, args.duration, args.warm_up)
            except RuntimeError as e:
                print(f"{path.stem:<34} {load:4.0%}  not compared: {e}")
                continue
            cells = [_cell(steady, sim, k) for k in GOALS]
            within += sum(ok is True for _, ok in cells)
            total += sum(ok is not None for _, ok in cells)
            print(f"{path.stem:<34} {load:4.0%}  " + "  ".join(f"{text:>28}" for text, _ in cells))
    print(
        f"\n{within} of {total} figures within the goal (throughput 2%; END2END, CAPTURE and Q latency 25%); "
        "* marks a miss"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
