"""Derive ``assets/coefficients/db2v8.json`` from seed 004 (DB2 V8 migration).

The DBM1 below-the-bar growth factors, the CPU change ranges by workload type,
the catalog migration rule of thumb and the page-fix example are read from the
seed's text with regular expressions, so the engine holds none of them.
Run ``python -m engine.calibrate.misc.db2v8 [--seeds DIR]``; none of these figures is in the
calibration file, so the seed is required (a missing one stops the script with a message).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from engine.calibrate.misc import write_coefficients
from engine.calibrate.misc.sources import ROOT, seed_text, seeds_dir

SEED = "004_ffcf34fd6a8d592a.txt"
OUT = ROOT / "assets" / "coefficients" / "db2v8.json"
VERSION = "db2v8-1"


def _pct(s: str) -> float:
    return float(s.replace("+", "")) / 100.0


def derive(seeds: Path) -> dict:
    t = seed_text(seeds, SEED, "the DBM1 growth factors, CPU ranges and catalog migration rule")

    def find(pat):
        m = re.search(pat, t, re.DOTALL)
        if not m:
            raise SystemExit(f"seed {SEED}: {pat!r} not found")
        return m.groups()

    sys_t, user_lo, user_hi = find(r"\+(\d+)% for system, \+(\d+) to (\d+)% for user thread")
    (stack,) = find(r"Stack storage: \+(\d+)%")
    (dsc,) = find(r"Dynamic statement cache: \+(\d+)%")
    (rid,) = find(r"RID pool: (-\d+)%")
    (others,) = find(r"Others: (-\d+)%")
    growth = {
        "system_agents": _pct(sys_t),
        "user_threads": _pct(user_hi),
        "stack_storage": _pct(stack),
        "local_dynamic_statement_cache": _pct(dsc),
        "edm_pool": 0.0,
        "rid_pool": _pct(rid),
        "other": _pct(others),
    }
    ranges = {}
    for key, pat in {
        "online": r"([-+]\d+) to ([-+]\d+)% online transaction\n",
        "online_data_sharing": r"([-+]\d+) to ([-+]\d+)% online transaction in data sharing",
        "batch": r"([-+]\d+) to ([-+]\d+)% batch\n",
        "batch_data_sharing": r"([-+]\d+) to ([-+]\d+)% batch data sharing",
        "drda": r"([-+]\d+) to ([-+]\d+)% batch DRDA",
        "utility": r"([-+]\d+) to ([-+]\d+)% utility",
        "query": r"([-+]\d+) to ([-+]\d+)% query",
    }.items():
        lo, hi = find(pat)
        ranges[key] = [_pct(lo), _pct(hi)]
    ranges["data_sharing"] = ranges["online_data_sharing"]
    fixed_min, per_gb = find(r"= (\d+)min \+ (\d+)min/GB")
    cm_lo, cm_hi = find(r"V7 to V8 Compatibility Mode \(CM\)\*?\*?\n\s*- ([\d.]+) to ([\d.]+) minutes")
    nfm_lo, nfm_hi = find(r"to New Function Mode \(NFM\)\*\*\n\s*- \*?\*?([\d.]+) to ([\d.]+) hours")
    return {
        "version": VERSION,
        "dbm1_growth": growth,
        "user_thread_growth_range": [_pct(user_lo), _pct(user_hi)],
        "cpu_change_range": ranges,
        "catalog": {
            "nfm_fixed_min": float(fixed_min),
            "nfm_min_per_gb": float(per_gb),
            "cm_range_min": [float(cm_lo), float(cm_hi)],
            "nfm_range_h": [float(nfm_lo), float(nfm_hi)],
        },
        # the seed's example skips a pool at 0.003 I/Os per buffer and ranks those from 1.9 up
        "page_fix": {"min_intensity": 1.0},
        "fit": {"method": "read from the seed text", "source": f"seed {SEED}"},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", default=None, help="seed folder (default: $QRTUNE_SEEDS or ../shared/seeds)")
    a = ap.parse_args(argv)
    coeffs = derive(seeds_dir(a.seeds))
    write_coefficients(OUT, coeffs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
