"""Benchmark of sweep reports (``qrtune report --sweep ID``); prints the figures (run on demand, not a test).

    .venv/bin/python benchmarks/bench_report_sweep.py

Figures: for sweeps of 16 points (NUM_APPLY_AGENTS 1..16), 48 points (x TRANS_BATCH_SZ 1,3,5),
2,048 points on one knob (TRANS_BATCH_SZ 1..2048) and 2,048 points on two (NUM_APPLY_AGENTS
1..128 x TRANS_BATCH_SZ 1..16) of the baseline: the time to read the sweep back and build the
content, the time to write the PDF (without the validation page), and its pages and size.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SWEEPS = (
    ("16 points, one knob", ["qapply.num_apply_agents=1..16"]),
    ("48 points, two knobs", ["qapply.num_apply_agents=1..16", "qcapture.trans_batch_sz=1,3,5"]),
    ("2,048 points, one knob", ["qcapture.trans_batch_sz=1..2048"]),
    ("2,048 points, two knobs", ["qapply.num_apply_agents=1..128", "qcapture.trans_batch_sz=1..16"]),
)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.report import ensure_application, write_pdf
    from engine import projectfile
    from engine.report.sweep import build_sweep_report, sweep_section
    from engine.store import Store
    from engine.studies.sweep import parse_axes, run_sweep

    ensure_application()
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    with tempfile.TemporaryDirectory(prefix="qrtune-bench-report-") as tmp:
        db = Path(tmp) / "runs.duckdb"
        print(f"{'sweep':<26} {'read+build':>11} {'write PDF':>10} {'pages':>6} {'size':>9}")
        for label, axes_text in SWEEPS:
            with Store.open(db) as store:
                result = run_sweep(project, parse_axes(axes_text, project), store, progress=False)
            t0 = time.perf_counter()
            with Store.open(db, read_only=True) as store:
                report = build_sweep_report(sweep_section(store, result.sweep_id), validation=False)
            t1 = time.perf_counter()
            out = Path(tmp) / f"sweep-{result.sweep_id}.pdf"
            pages = write_pdf(report, out)
            t2 = time.perf_counter()
            print(
                f"{label:<26} {1000 * (t1 - t0):>8.0f} ms {t2 - t1:>8.2f} s {pages:>6} "
                f"{out.stat().st_size / 1024:>6.0f} KB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
