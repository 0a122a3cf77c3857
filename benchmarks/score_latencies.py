"""Per-metric accuracy figures of the Q Replication latencies, from the scorer's comparison.

usage: python benchmarks/score_latencies.py [SCORE.json] [--scenarios calibration.json]

Without ``SCORE.json`` it runs ``../shared/validation/score.py --cmd "qrtune evaluate" --json``
on the scenarios first. Prints, from the scorer's rows:

* the scorer's summary (rates median and p90, trends, relations median);
* END2END_LATENCY median and p90 absolute percentage error;
* CAPTURE_LATENCY and QLATENCY p90;
* APPLY_LATENCY: the share of values within a factor 2 of the measurement or inside the range
  published for the same settings (:func:`engine.validation_summary.published_ranges`).

The 90th percentile is taken as the scorer takes it (:func:`engine.validation_summary.p90`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.validation_summary import median, p90, published_ranges  # noqa: E402

SHARED = ROOT.parent.parent / "shared" if not (ROOT.parent / "shared").is_dir() else ROOT.parent / "shared"
DEFAULT_SCENARIOS = SHARED / "validation" / "calibration.json"


def score_rows(scenarios: Path) -> dict:
    """Run the scorer on ``scenarios`` and return its ``--json`` document."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "score.json"
        cmd = [
            sys.executable,
            str(scenarios.parent / "score.py"),
            "--cmd",
            f"{sys.executable} -m engine evaluate",
        ]
        subprocess.run([*cmd, "--json", str(out), str(scenarios)], check=True, cwd=ROOT, capture_output=True)
        return json.loads(out.read_text())


def within_factor_or_range(row: dict, ranges: dict, factor: float = 2.0) -> bool:
    """True when the prediction is within ``factor`` of the measurement or inside its published range."""
    measured, predicted = row["measured"], row["predicted"]
    if measured > 0 and predicted > 0 and measured / factor <= predicted <= measured * factor:
        return True
    low_high = ranges.get((row["id"], row["metric"]))
    return low_high is not None and low_high[0] <= predicted <= low_high[1]


def figures(doc: dict, scenarios: list[dict]) -> dict:
    """The per-metric figures (fractions, not percent) from a scorer document."""
    rows = doc["rows"]
    ranges = published_ranges(scenarios)

    def apes(metric: str) -> list[float]:
        return [r["ape"] for r in rows if r["metric"] == metric]

    apply_rows = [r for r in rows if r["metric"] == "apply_latency_ms"]
    kept = sum(within_factor_or_range(r, ranges) for r in apply_rows)
    s = doc["summary"]
    return {
        "rates_median": s.get("rate_median_ape"),
        "rates_p90": s.get("rate_p90_ape"),
        "trends": s.get("trend_agreement"),
        "relations_median": s.get("relations_median_ape"),
        "end2end_median": median(apes("end2end_latency_ms")),
        "end2end_p90": p90(apes("end2end_latency_ms")),
        "capture_latency_p90": p90(apes("capture_latency_ms")),
        "qlatency_p90": p90(apes("qlatency_ms")),
        "apply_latency_kept": kept / len(apply_rows) if apply_rows else None,
        "apply_latency_n": len(apply_rows),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("score_json", nargs="?", help="a comparison written by score.py --json")
    ap.add_argument("--scenarios", default=str(DEFAULT_SCENARIOS), help="the published scenarios")
    a = ap.parse_args(argv)
    scenarios_path = Path(a.scenarios)
    doc = json.loads(Path(a.score_json).read_text()) if a.score_json else score_rows(scenarios_path)
    scenarios = json.loads(scenarios_path.read_text())["scenarios"]
    for name, value in figures(doc, scenarios).items():
        text = "n/a" if value is None else (f"{value}" if name.endswith("_n") else f"{100 * value:.1f}%")
        print(f"{name:22} {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
