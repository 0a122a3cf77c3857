"""Benchmark of the results store and sweeps; prints the figures (run on demand, not a test).

    .venv/bin/python benchmarks/bench_store.py [--points 1000] [--workers 2]

Goals (issue 6): 100,000 metric rows stored in at most 2 s; comparing two runs out of
10,000 stored in at most 200 ms; a 1,000-point steady-state sweep in at most 10 s on
this machine's two cores. The sweeps use the Q Replication engine on
``sample_runs/redpaper-baseline.json`` (NUM_APPLY_AGENTS x TRANS_BATCH_SZ), on a local pool
as the library runs them, as ``qrtune sweep`` runs them (grouped writes, store file let go
between writes) and in process; ``--synthetic`` sweeps a stand-in that spends
``--synthetic-ms`` of CPU per point instead.
"""

from __future__ import annotations

import argparse
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
    from engine.store import MetricRow, RunBundle, RunRecord, StageMetricRow, engine_version, utc_now

    now = utc_now()
    out = []
    for i in range(n_runs):
        rec = RunRecord(
            0,
            project.name,
            digest,
            f'{{"qapply":{{"num_apply_agents":{i % 64 + 1}}}}}',
            engine_version(),
            "bench",
            None,
            "predict",
            now,
            "ok",
            "qrep",
            "qcapture",
            None,
            None,
            "",
            "",
        )
        out.append(
            RunBundle(
                rec,
                [MetricRow(0, f"metric_{k}", float(i * k), "rows/s") for k in range(N_METRICS)],
                [StageMetricRow(0, f"stage_{k}", 1e4, 0.5, 1.0, "rows/s") for k in range(N_STAGES)],
            )
        )
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
        s.record_metrics_columns(
            ids, names, np.arange(n_rows, dtype=float), np.full(n_rows, "ms", dtype=object)
        )
        t_cols = time.perf_counter() - t
    return {
        "runs": n_runs,
        "metric_rows": got,
        "stage_rows": n_runs * N_STAGES,
        "record_runs_s": t_runs,
        "metric_columns_s": t_cols,
    }


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
    return {
        "stored_runs": 10_000,
        "compare_median_ms": 1000 * statistics.median(warm),
        "compare_max_ms": 1000 * max(warm),
        "open_and_compare_median_ms": 1000 * statistics.median(cold),
    }


def bench_sweep(
    tmp: Path,
    project,
    points: int,
    workers: int,
    synthetic_ms: float | None,
    name: str,
    cli_mode: bool = False,
) -> dict:
    """One sweep of ``points`` points; ``cli_mode``: as ``qrtune sweep`` runs it (grouped writes every
    0.5 s, the store file let go in between so the workbench can use it)."""
    import os

    from engine.store import Store
    from engine.studies.sweep import n_points, parse_axes, run_sweep

    predictor = "engine.predict:predict_settings" if synthetic_ms is None else "bench_store:synthetic_predict"
    if synthetic_ms is not None:
        os.environ["QRTUNE_SYNTHETIC_MS"] = str(synthetic_ms)
    n_agents = max(1, points // 10)
    axes = parse_axes([f"qapply.num_apply_agents=1..{n_agents}", "qcapture.trans_batch_sz=1..10"], project)
    extra = {"flush_interval_s": 0.5, "release_between_writes": True} if cli_mode else {}
    with Store.open(tmp / f"sweep-{name}.duckdb") as s:
        t = time.perf_counter()
        result = run_sweep(project, axes, s, workers=workers, predictor=predictor, progress=False, **extra)
        elapsed = time.perf_counter() - t
        failed = result.n_failed
        stored = s.count_runs()
    return {
        "points": n_points(axes),
        "workers": workers,
        "stored": stored,
        "engine": f"qrep {result.coefficients_version}"
        if synthetic_ms is None
        else f"synthetic ({synthetic_ms:g} ms CPU per point)",
        "elapsed_s": elapsed,
        "failed": failed,
        "points_per_s": n_points(axes) / elapsed,
    }


def bench_release(tmp: Path, project, n: int = 50) -> dict:
    """Cost of letting go of the store file and taking it back (what a CLI sweep does per write)."""
    from engine.store import Store

    with Store.open(tmp / "sweep-pool.duckdb") as s:  # a store holding a 1,000-point sweep
        t = time.perf_counter()
        for _ in range(n):
            s.release()
            s.count_runs()
        return {"release_reopen_ms": 1000 * (time.perf_counter() - t) / n}


def bench_monitor_week(tmp: Path) -> dict:
    """A week of IBMQREP_APPLYMON at a 10 s MONITOR_INTERVAL (60,480 rows): parse, store, read back, intervals."""
    from datetime import datetime, timedelta

    import numpy as np

    from engine.calibrate.fit import intervals_from_monitor
    from engine.monitor.importer import load_monitor_rows, parse_file, write_parsed
    from engine.sim.monitor import APPLYMON_COLUMNS
    from engine.store import Store

    n = 60_480
    rng = np.random.default_rng(1)
    cols = [*APPLYMON_COLUMNS, "MONITOR_INTERVAL"]
    lines = [",".join(cols)]
    t0 = datetime(2024, 1, 1)
    for i in range(n):
        ts = (t0 + timedelta(seconds=10 * (i + 1))).strftime("%Y-%m-%d-%H.%M.%S.%f")
        lines.append(
            f"{ts},RECVQ.A.B,2024-01-01-00.00.00.000000,{rng.integers(100_000, 1_000_000)},0,"
            f"{rng.uniform(600, 700):.3f},575.1,80.2,17.7,{rng.integers(400_000, 500_000)},"
            f"{rng.integers(80_000, 90_000)},0,0.000,{ts},10000"
        )
    path = tmp / "IBMQREP_APPLYMON.csv"
    path.write_text("\n".join(lines) + "\n")
    out = {"rows": n}
    t = time.perf_counter()
    parsed = parse_file(path)
    out["parse_s"] = time.perf_counter() - t
    out["cells"] = int(parsed.value.size)
    with Store.open(tmp / "monitor.duckdb") as s:
        t = time.perf_counter()
        write_parsed(s, [parsed], "week")
        out["write_s"] = time.perf_counter() - t
        t = time.perf_counter()
        tables = load_monitor_rows(s, "week")
        out["load_s"] = time.perf_counter() - t
    t = time.perf_counter()
    out["intervals"] = len(intervals_from_monitor(tables))
    out["intervals_s"] = time.perf_counter() - t
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--synthetic", action="store_true", help="sweep a synthetic predictor instead of the engine"
    )
    ap.add_argument(
        "--synthetic-ms", type=float, default=1.0, help="CPU per point of the synthetic predictor"
    )
    args = ap.parse_args()
    from engine import projectfile

    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows = bench_metric_rows(tmp, project)
        print(
            f"store {rows['metric_rows']:,} metric rows ({rows['runs']:,} runs, {rows['stage_rows']:,} stage rows) "
            f"with record_runs: {rows['record_runs_s']:.3f} s   [goal <= 2 s]"
        )
        print(f"store 100,000 metric rows as columns: {rows['metric_columns_s']:.3f} s")
        cmp = bench_compare(tmp, project)
        print(
            f"compare two runs out of {cmp['stored_runs']:,}: median {cmp['compare_median_ms']:.1f} ms, "
            f"max {cmp['compare_max_ms']:.1f} ms; open read-only + compare {cmp['open_and_compare_median_ms']:.1f} ms"
            "   [goal <= 200 ms]"
        )
        synthetic = args.synthetic_ms if args.synthetic else None
        for name, workers, cli_mode, label in (
            ("pool", args.workers, False, f"local pool of {args.workers}"),
            (
                "cli",
                args.workers,
                True,
                (
                    f"local pool of {args.workers}, as qrtune sweep (writes every 0.5 s, "
                    "file let go in between)"
                ),
            ),
            ("inproc", 0, False, "in process"),
        ):
            sw = bench_sweep(tmp, project, args.points, workers, synthetic, name, cli_mode)
            print(
                f"sweep {sw['points']:,} points, {label} ({sw['engine']}): {sw['elapsed_s']:.2f} s, "
                f"{sw['points_per_s']:.0f} points/s, {sw['stored']:,} stored, {sw['failed']} failed   "
                "[goal <= 10 s]"
            )
        mon = bench_monitor_week(tmp)
        print(
            f"import a week of IBMQREP_APPLYMON ({mon['rows']:,} rows, {mon['cells']:,} cells): parse "
            f"{mon['parse_s']:.2f} s, store {mon['write_s']:.2f} s, read back {mon['load_s']:.2f} s, "
            f"{mon['intervals']:,} intervals {mon['intervals_s']:.2f} s"
        )
        rel = bench_release(tmp, project)
        print(f"release + reopen of a store holding a 1,000-point sweep: {rel['release_reopen_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
