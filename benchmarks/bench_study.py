"""A simulation study on a local Dask cluster with 1 and with 2 workers: wall time and runs per second.

    python benchmarks/bench_study.py [--runs 1000] [--duration 10m] [--workers 1,2]
    python benchmarks/bench_study.py --runs 40 --workers 2 --against-local   # Dask vs --workers 2

With ``--against-local`` each worker count is also run on the local process pool (``--workers N``)
and on a Dask cluster whose nannies lack qrtune's allocator setting (``MALLOC_MMAP_THRESHOLD_``,
see engine/studies/cluster.py), and the ratios Dask / local are printed.

The study: the baseline sample at 30,000 rows/s, NUM_APPLY_AGENTS 8 and 16 x (no outage,
a 1-minute channel stop at 2 minutes) x seeds, so that --runs runs are made (10 simulated minutes each by
default). Each worker count gets a fresh ``distributed.LocalCluster`` (one single-threaded worker
process per worker) and a fresh store; the figures printed are the wall time of ``run_study``
(cluster start-up excluded) and the study's catch-up time percentiles, which must agree between
the worker counts (same seeds, same numbers).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _plan(n_runs: int, duration: str):
    from engine import projectfile
    from engine.sim import parse_duration_s
    from engine.studies.study import StudyPlan, parse_scenarios
    from engine.studies.sweep import parse_axes

    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    axes = tuple(parse_axes(["qapply.num_apply_agents=8,16"], project))
    scenarios = parse_scenarios(["none", "channel-stop@2m+1m"])
    n_seeds = max(1, n_runs // (2 * len(scenarios)))
    return project, StudyPlan(
        axes, scenarios, tuple(range(n_seeds)), parse_duration_s(duration, "--duration"), 30_000.0
    )


def _warm_up() -> None:
    from engine.studies.study import run_study_points

    project, plan = _plan(1, "10s")
    run_study_points(project, plan, [0])


def bench(n_workers: int, n_runs: int, duration: str, pool: str = "dask") -> dict:
    """One study on ``pool``: ``dask`` (qrtune's worker setting), ``dask-plain`` (Dask's own), ``local``."""
    import contextlib

    import dask.config
    from distributed import Client, LocalCluster

    from engine.store import Store
    from engine.studies.cluster import nanny_config
    from engine.studies.study_run import run_study

    project, plan = _plan(n_runs, duration)
    if pool == "local":
        from engine.studies.sweep import local_executor

        with (
            tempfile.TemporaryDirectory() as tmp,
            Store.open(Path(tmp) / "study.duckdb") as store,
            local_executor(n_workers) as executor,
        ):
            for f in [executor.submit(_warm_up) for _ in range(n_workers)]:  # as the Dask workers are
                f.result()
            t0 = time.perf_counter()
            result = run_study(project, plan, store, progress=False, executor=executor)
            wall_s = time.perf_counter() - t0
        return _row(pool, n_workers, result, wall_s)
    with (
        dask.config.set(nanny_config()) if pool == "dask" else contextlib.nullcontext(),
        tempfile.TemporaryDirectory() as tmp,
        LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
        Store.open(Path(tmp) / "study.duckdb") as store,
    ):
        client.run(
            _warm_up
        )  # each worker imports the engine and compiles the kernels before the clock starts
        t0 = time.perf_counter()
        result = run_study(project, plan, store, progress=False, executor=client.get_executor())
        wall_s = time.perf_counter() - t0
    return _row(pool, n_workers, result, wall_s)


def _row(pool: str, n_workers: int, result, wall_s: float) -> dict:
    outage = next(r for r in result.distribution if r["scenario"] != "no-outage")
    return {
        "pool": pool,
        "workers": n_workers,
        "runs": result.n_runs,
        "failed": result.n_failed,
        "wall_s": round(wall_s, 1),
        "runs_per_s": round(result.n_runs / wall_s, 3),
        "catch_up_s_p50": outage["catch_up_s"].percentiles[50],
        "catch_up_s_p95": outage["catch_up_s"].percentiles[95],
        "not_caught_up": outage["catch_up_s"].n_missing,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--duration", default="10m")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--against-local", action="store_true", help="also the local pool and plain Dask workers")
    args = ap.parse_args()
    rows = []
    for w in args.workers.split(","):
        rows.append(bench(int(w), args.runs, args.duration))
        print(json.dumps(rows[-1]), flush=True)
        if args.against_local:
            dask_row = rows[-1]
            for pool in ("local", "dask-plain"):
                row = bench(int(w), args.runs, args.duration, pool)
                print(json.dumps(row), flush=True)
                print(
                    f"{pool} {w} workers: Dask (qrtune worker setting) / {pool} = "
                    f"{dask_row['wall_s'] / row['wall_s']:.2f}x",
                    flush=True,
                )
    if args.against_local:
        return 0
    if len(rows) > 1:
        print(
            f"speed-up {rows[0]['workers']} -> {rows[-1]['workers']} workers: "
            f"{rows[0]['wall_s'] / rows[-1]['wall_s']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
