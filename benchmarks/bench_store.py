"""Benchmark of the results store and sweeps; prints the figures (run on demand, not a test).

    .venv/bin/python benchmarks/bench_store.py [--points 1000] [--workers 2]

Goals (issue 6): 100,000 metric rows stored in at most 2 s; comparing two runs out of
10,000 stored in at most 200 ms; a 1,000-point steady-state sweep in at most 10 s on
this machine's two cores. The sweep uses the Q Replication engine on
``sample_runs/redpaper-baseline.json`` when it exists; until then it uses a synthetic
predictor that spends ``--synthetic-ms`` of CPU per point (the engine's own goal is
1 ms per scenario) and says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

N_METRICS = 30
N_STAGES = 8


def synthetic_predict(settings: dict):
    """A stand-in engine: busy CPU for QRTUNE_SYNTHETIC_MS, then a 30-metric, 8-stage prediction."""
    import os

    from engine.perf.result import Prediction, StageResult

    end = time.perf_counter() + float(os.environ.get("QRTUNE_SYNTHETIC_MS", "1")) / 1000.0
    x = 0.0
    while time.perf_counter() < end:
        x += 1.0
    agents = settings["qapply"]["num_apply_agents"]
    batch = settings["qcapture"]["trans_batch_sz"]
    metrics = {f"metric_{k}": float(agents * batch + k) for k in range(N_METRICS)}
    stages = tuple(StageResult(f"stage_{k}", 1000.0 * (k + 1), 0.5, "rows/s", 1.0) for k in range(N_STAGES))
    return Prediction("qrep", metrics, {k: "rows/s" for k in metrics}, stages, "stage_0", (), "synthetic")


def _bundles(n_runs: int, project, digest: str):
    from engine.store import RunBundle, RunRecord, engine_version, utc_now

    now = utc_now()
    out = []
    for i in range(n_runs):
        rec = RunRecord(0, project.name, digest, '{"qapply":{"num_apply_agents":%d}}' % (i % 64 + 1),
                        engine_version(), "bench", None, "predict", now, "ok", "qrep", "qcapture", None, None, "", "")
        out.append(RunBundle(rec, [(f"metric_{k}", float(i * k), "rows/s") for k in range(N_METRICS)],
                             [(f"stage_{k}", 1e4, 0.5, 1.0, "rows/s") for k in range(N_STAGES)]))
    return out


def bench_metric_rows(tmp: Path, project) -> dict:
    import numpy as np

    from engine.store import Store, project_hash

    n_rows = 100_000
    n_runs = -(-n_rows // N_METRICS)
    bundles = _bundles(n_runs, project, project_hash(project))
    with Store.open(tmp / "rows.duckdb") as s:
        t = time.perf_counter()
        s.record_runs(bundles)
        t_runs = time.perf_counter() - t
        got = s.con.execute("SELECT count(*) FROM metrics").fetchall()[0][0]
    with Store.open(tmp / "cols.duckdb") as s:
        ids = np.arange(n_rows) // N_METRICS
        names = np.array([f"metric_{k % N_METRICS}" for k in range(n_rows)], dtype=object)
        t = time.perf_counter()
        s.record_metrics_columns(ids, names, np.arange(n_rows, dtype=float), np.full(n_rows, "ms", dtype=object))
        t_cols = time.perf_counter() - t
    return {"runs": n_runs, "metric_rows": got, "stage_rows": n_runs * N_STAGES,
            "record_runs_s": t_runs, "metric_columns_s": t_cols}


def bench_compare(tmp: Path, project) -> dict:
    from engine.compare import compare_runs
    from engine.store import Store, project_hash

    db = tmp / "compare.duckdb"
    with Store.open(db) as s:
        s.record_runs(_bundles(10_000, project, project_hash(project)))
    warm, cold = [], []
    with Store.open(db, read_only=True) as s:
        for k in range(20):
            t = time.perf_counter()
            cmp = compare_runs(s, [1 + 37 * k, 9_000 - 11 * k])
            warm.append(time.perf_counter() - t)
    assert len(cmp.metrics) == N_METRICS
    for k in range(5):
        t = time.perf_counter()
        with Store.open(db, read_only=True) as s:
            compare_runs(s, [5 + k, 9_999 - k])
        cold.append(time.perf_counter() - t)
    return {"stored_runs": 10_000, "compare_median_ms": 1000 * statistics.median(warm),
            "compare_max_ms": 1000 * max(warm), "open_and_compare_median_ms": 1000 * statistics.median(cold)}


def bench_sweep(tmp: Path, project, points: int, workers: int, synthetic_ms: float) -> dict:
    import os

    from engine.store import Store
    from engine.sweep import n_points, parse_axes, run_sweep

    real = importlib.util.find_spec("engine.perf.qrep") is not None
    predictor = "engine.perf:predict_settings" if real else "bench_store:synthetic_predict"
    os.environ["QRTUNE_SYNTHETIC_MS"] = str(synthetic_ms)
    n_agents = max(1, points // 10)
    axes = parse_axes([f"qapply.num_apply_agents=1..{n_agents}", "qcapture.trans_batch_sz=1..10"], project)
    with Store.open(tmp / "sweep.duckdb") as s:
        t = time.perf_counter()
        result = run_sweep(project, axes, s, workers=workers, predictor=predictor, progress=False)
        elapsed = time.perf_counter() - t
        failed = result.n_failed
    return {"points": n_points(axes), "workers": workers, "engine": "qrep" if real else
            f"synthetic ({synthetic_ms:g} ms CPU per point; engine.perf.qrep not present yet)",
            "elapsed_s": elapsed, "failed": failed, "points_per_s": n_points(axes) / elapsed}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--synthetic-ms", type=float, default=1.0)
    args = ap.parse_args()
    from engine import projectfile

    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = bench_metric_rows(tmp, project)
        print(f"store {rows['metric_rows']:,} metric rows ({rows['runs']:,} runs, {rows['stage_rows']:,} stage rows) "
              f"with record_runs: {rows['record_runs_s']:.3f} s   [goal <= 2 s]")
        print(f"store 100,000 metric rows as columns: {rows['metric_columns_s']:.3f} s")
        cmp = bench_compare(tmp, project)
        print(f"compare two runs out of {cmp['stored_runs']:,}: median {cmp['compare_median_ms']:.1f} ms, "
              f"max {cmp['compare_max_ms']:.1f} ms; open read-only + compare {cmp['open_and_compare_median_ms']:.1f} ms"
              "   [goal <= 200 ms]")
        sw = bench_sweep(tmp, project, args.points, args.workers, args.synthetic_ms)
        print(f"sweep {sw['points']:,} points on {sw['workers']} workers ({sw['engine']}): {sw['elapsed_s']:.2f} s, "
              f"{sw['points_per_s']:.0f} points/s, {sw['failed']} failed   [goal <= 10 s]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
