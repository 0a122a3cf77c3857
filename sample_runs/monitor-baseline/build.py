"""Regenerate the sample monitor exports of the Redpaper baseline (journey 8) with the simulator.

Run: ``.venv/bin/python sample_runs/monitor-baseline/build.py`` (about 3 minutes).

Three days of IBMQREP_CAPMON, IBMQREP_CAPQMON and IBMQREP_APPLYMON rows at a 10-minute
MONITOR_INTERVAL, simulated by :func:`engine.sim.simulate` on ``sample_runs/redpaper-baseline.json``
with a daily OLTP cycle (hourly steps, 4,000 rows/s at night to 28,000 rows/s in the afternoon)
and one incident: the MQ channel stopped on the second day from 14:00 to 14:20 (see README.md).
Nothing here is measured: the files let a user walk journey 8 (import, overlay, fit, held-out
error) without a system of her own.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

DAYS = 3
INTERVAL_MS = 600_000
SEED = 8
#: Offered rows/s from each hour of the day (a weekday OLTP cycle).
HOURLY_ROWS_PER_S = (
    4000,
    4000,
    4000,
    4000,
    4000,
    5000,
    8000,
    14000,
    20000,
    25000,
    26000,
    25000,
    22000,
    26000,
    28000,
    28000,
    26000,
    20000,
    14000,
    10000,
    8000,
    6000,
    5000,
    4000,
)
#: The incident: the channel stops on day 2 at 14:00 for 20 minutes.
INCIDENT = "channel-stop@38h+20m"


def build(out: Path = HERE, days: int = DAYS) -> dict[str, int]:
    """Simulate and write the three CSV files into ``out``; returns the rows written per table."""
    from engine import projectfile
    from engine.io.atomicfile import atomic_write_text
    from engine.sim import profiles, simulate
    from engine.sim.events import parse_event

    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    for node in project.nodes:
        if node.kind in ("qcapture", "qapply"):
            project = project.with_param(node.id, "monitor_interval_ms", INTERVAL_MS)
    steps = [[3600.0 * h, float(HOURLY_ROWS_PER_S[h % 24])] for h in range(24 * days)]
    profile = profiles.from_dict({"kind": "steps", "steps": steps})
    result = simulate(
        project,
        86400.0 * days,
        SEED,
        profile=profile,
        events=[parse_event(INCIDENT)],
        progress=lambda f: print(f"\r{f * 100:5.1f}%", end="", file=sys.stderr),
    )
    print(file=sys.stderr)
    written = {}
    for table in result.monitor:
        atomic_write_text(out / f"{table}.csv", result.monitor_csv(table))
        written[table] = len(result.monitor_rows[table])
    return written


if __name__ == "__main__":
    print(build())
