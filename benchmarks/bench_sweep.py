"""Speed and memory of large sweeps (``qrtune sweep``): points per second and the main process's memory.

Goals (issue 36, item 6): a 100,000-point sweep of ``sample_runs/redpaper-baseline.json`` in at most
60 s on two cores with the main process's memory flat in the number of points; a million-point
sweep runs, resumable, within 1 GB.

Each case runs :func:`engine.studies.sweep.run_sweep` with two local workers into a fresh store in
a temporary folder, as ``qrtune sweep PROJECT --set ... --workers 2 --db runs.duckdb --yes`` does
(the command's write interval, the store let go between writes).
A thread samples this (the main) process's resident memory every 0.2 s; the figures are the
wall time, points per second, the main process's CPU time, its resident memory before the
sweep and at its peak, and the growth per point (what a longer sweep would add): the highest
resident memory of the last fifth of the sweep against that of the second fifth, per point
between them, and the same for the lowest (the floor). Peaks are compared with peaks because
every store write lifts the resident set by tens of MB for a moment (DuckDB writing its
checkpoint as the file is let go); a peak against a floor would count that lift as growth. The
machine's load average is printed with each line: other work on the machine stretches the wall
time.

``--resume`` runs the largest case in two parts: interrupted (the first run is stopped after a
third of its points) and resumed by the same call, and checks every point is stored once.

Measured 2 December 2026 (two cores): 100,000 points in 42.8 s (2,336 points/s, main CPU 10.7 s, load
2.0), resident memory 100 -> 171 MB at its peak, floors growing 0.005 KB/point, peaks 0.420 KB/point:
the lift of a write grows with the store until ~50,000 points, then stays. ``--points 300000 --resume``
(load 12 then 6): interrupted after 100,609 points (peak 168 MB), resumed for the other 199,391 in
376 s (main CPU 49.2 s), peak 191 MB, peaks growing 0.023 and floors 0.009 KB/point between its second
and last fifths. A million points was not run here (no quiet slot); with floors and peaks flat past
60,000 points it would peak near 200 MB (an extrapolation).

Usage: ``.venv/bin/python benchmarks/bench_sweep.py [--points 10000,100000] [--million] [--resume]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Pages of the resident set reported by /proc/self/statm, bytes each.
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """This process's resident memory, MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE_BYTES / 2**20


class MemorySampler(threading.Thread):
    """Samples :func:`rss_mb` every ``every_s`` with the number of points recorded so far."""

    def __init__(self, recorded, every_s: float = 0.2):
        super().__init__(daemon=True)
        self.recorded, self.every_s = recorded, every_s
        self.samples: list[tuple[int, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.every_s):
            self.samples.append((self.recorded(), rss_mb()))

    def growth_kb_per_point(self, total: int, pick=max) -> float | None:
        """Resident memory added per point recorded between the second fifth of the sweep and its last, KB.

        ``pick`` of the samples of each window is compared (``max``: the peaks, ``min``: the
        floors): each store write lifts the resident set by tens of MB for a moment (DuckDB
        writing its checkpoint), so a peak is compared with a peak and a floor with a floor.
        None when the run recorded no point in one of the windows (an interrupted part).
        """
        second = [mb for n, mb in self.samples if total / 5 <= n < 2 * total / 5]
        last = [mb for n, mb in self.samples if n >= 4 * total / 5]
        if not second or not last:
            return None
        # the windows' middles are 0.6 x total points apart
        return (pick(last) - pick(second)) * 1024 / (0.6 * total)


def axes_for(points: int) -> list[str]:
    """Two axes of the baseline whose product is ``points`` (NUM_APPLY_AGENTS x TRANS_BATCH_SZ)."""
    agents = 100 if points >= 100 else points
    return [f"qapply.num_apply_agents=1..{agents}", f"qcapture.trans_batch_sz=1..{max(1, points // agents)}"]


def run_case(points: int, db: Path, stop_after: int | None = None) -> dict:
    """One sweep of ``points`` points into ``db``; the figures."""
    from engine import projectfile
    from engine.cli.sweep import FLUSH_INTERVAL_S
    from engine.store import Store
    from engine.studies import sweep

    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    axes = sweep.parse_axes(axes_for(points), project)
    total = sweep.n_points(axes)
    recorded = [0]
    before = rss_mb()
    sampler = MemorySampler(lambda: recorded[0])
    sampler.start()
    t0, c0 = time.perf_counter(), time.process_time()
    with Store.open(db) as store:
        recorded[0] = store.count_runs()  # a resumed sweep's points already stored count towards its fifths
        original = store.record_point_columns

        def counting(points):
            recorded[0] += points.n
            if stop_after is not None and recorded[0] >= stop_after:
                original(points)
                raise KeyboardInterrupt  # as Ctrl-C would stop it
            return original(points)

        store.record_point_columns = counting
        try:
            result = sweep.run_sweep(
                project,
                axes,
                store,
                workers=2,
                progress=False,
                flush_interval_s=FLUSH_INTERVAL_S,
                release_between_writes=True,
            )
        except KeyboardInterrupt:
            result = None
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sampler.stop.set()
    sampler.join()
    return {
        "points": total,
        "run": result.n_run if result else recorded[0],
        "skipped": result.n_skipped if result else 0,
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_before_mb": before,
        "rss_peak_mb": max([mb for _, mb in sampler.samples] + [rss_mb()]),
        "growth_kb_per_point": sampler.growth_kb_per_point(total),
        "floor_growth_kb_per_point": sampler.growth_kb_per_point(total, min),
        "load": os.getloadavg()[0],
    }


def _kb(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def show(label: str, r: dict) -> None:
    rate = r["run"] / r["wall_s"] if r["wall_s"] else 0.0
    print(
        f"{label:<34} {r['run']:>9,} run {r['skipped']:>9,} skipped  {r['wall_s']:7.1f} s  {rate:7.0f} points/s  "
        f"main CPU {r['cpu_s']:6.1f} s  RSS {r['rss_before_mb']:6.0f} -> {r['rss_peak_mb']:6.0f} MB  "
        f"growth {_kb(r['growth_kb_per_point'])} KB/point (floor {_kb(r['floor_growth_kb_per_point'])})  "
        f"(load {r['load']:.1f})",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", default="10000,100000", help="sweep sizes (default 10000,100000)")
    ap.add_argument("--million", action="store_true", help="also a 1,000,000-point sweep")
    ap.add_argument("--resume", action="store_true", help="run the largest case interrupted, then resumed")
    args = ap.parse_args()
    sizes = [int(x) for x in args.points.split(",")] + ([1_000_000] if args.million else [])
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="qrtune-bench-sweep-") as tmp:
        for k, points in enumerate(sizes):
            db = Path(tmp) / f"sweep-{k}.duckdb"
            if args.resume and points == max(sizes):
                show(f"{points:,} points, interrupted", run_case(points, db, stop_after=points // 3))
                show(f"{points:,} points, resumed", run_case(points, db))
            else:
                show(f"{points:,} points", run_case(points, db))
    return 0


if __name__ == "__main__":
    sys.exit(main())
