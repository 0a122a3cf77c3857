"""Bounded work on large legal inputs; prints the figures (run on demand, not a test).

    .venv/bin/python benchmarks/bench_bounds.py [--quick]

Figures, each command run as a user runs it (``python -m qrtune``, its own process) with the
wall time and the process's peak resident memory:

- ``qrtune validate`` of a legal project file just under the 16 MB limit (the baseline's seven
  nodes repeated with new ids; the JSON nesting check scans 1 MB at a time);
- ``qrtune report`` (PDF) of a legal 1,001-node project (143 copies of the baseline's flow);
- ``qrtune report --sweep`` of a 10,240-point sweep (NUM_APPLY_AGENTS 1..128 x TRANS_BATCH_SZ
  1..80; ``--quick`` skips it: the sweep alone takes minutes).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "sample_runs" / "redpaper-baseline.json"
#: The file size limit of project files (engine.io.jsonfile.MAX_FILE_BYTES).
LIMIT_BYTES = 16 * 1024 * 1024


def copies_of_baseline(n_copies: int, description_bytes: int = 0) -> dict:
    """The baseline project with its nodes and links repeated ``n_copies`` times under new ids."""
    doc = json.loads(BASELINE.read_text())
    nodes, links = [], []
    for k in range(n_copies):
        for node in doc["nodes"]:
            n = copy.deepcopy(node)
            n["id"], n["label"] = f"{node['id']}-{k}", f"{node['label']} {k}"
            n["position"] = [node["position"][0], node["position"][1] + 300.0 * k]
            nodes.append(n)
        for link in doc["links"]:
            links.append(
                {
                    **link,
                    "id": f"{link['id']}-{k}",
                    "source": f"{link['source']}-{k}",
                    "target": f"{link['target']}-{k}",
                }
            )
    return {**doc, "nodes": nodes, "links": links, "description": "x" * description_bytes}


#: Runs qrtune's entry point, then prints the process's own peak resident memory (KB) on stderr.
_MEASURED = (
    "import resource, sys\n"
    "from qrtune.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(argv: list[str]) -> tuple[float, float, int, str]:
    """Run ``qrtune ARGV`` in its own process: (wall s, its peak RSS MB, exit code, its last error line)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    wall = time.perf_counter() - t0
    lines = proc.stderr.strip().splitlines()
    peak_kb = float(lines[-1]) if lines and lines[-1].isdigit() else float("nan")
    return wall, peak_kb / 1024, proc.returncode, " ".join(lines[:-1])[-200:]


def _print(what: str, figures: tuple) -> None:
    wall, rss, code, last = figures
    print(f"{what}: {wall:.1f} s, peak {rss:.0f} MB, exit {code} {last}")


def main() -> int:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory(prefix="qrtune-bench-bounds-") as tmp:
        tmp = Path(tmp)
        big = copies_of_baseline(142)  # 994 nodes, indented deep enough to fill the file
        indent = 1
        while len(json.dumps(big, indent=indent + 1)) < LIMIT_BYTES - 65536:
            indent += 1
        path = tmp / "big.json"
        path.write_text(json.dumps(big, indent=indent))
        _print(
            f"validate of a legal {path.stat().st_size / 2**20:.1f} MB project", run(["validate", str(path)])
        )

        project = tmp / "p1001.json"
        project.write_text(json.dumps(copies_of_baseline(143), indent=1))
        out = tmp / "p1001.pdf"
        figures = run(["report", str(project), "--out", str(out), "--no-validation"])
        _print(
            f"report of a 1,001-node project ({out.stat().st_size / 2**20 if out.exists() else 0:.1f} MB PDF)",
            figures,
        )

        if not quick:
            db = tmp / "runs.duckdb"
            t0 = time.perf_counter()
            sweep = ["sweep", str(BASELINE), "--set", "qapply.num_apply_agents=1..128"]
            sweep += ["--set", "qcapture.trans_batch_sz=1..80", "--db", str(db), "--yes", "--no-progress"]
            subprocess.run(
                [sys.executable, "-m", "engine", *sweep], cwd=ROOT, capture_output=True, check=True
            )
            print(f"(10,240-point sweep recorded in {time.perf_counter() - t0:.0f} s)")
            out = tmp / "sweep.pdf"
            figures = run(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"])
            pages = f"{out.stat().st_size / 2**20 if out.exists() else 0:.1f} MB PDF"
            _print(f"report --sweep of 10,240 points ({pages})", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
