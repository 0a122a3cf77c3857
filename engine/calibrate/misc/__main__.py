"""``python -m engine.calibrate.misc [--calibration FILE] [--seeds DIR]``: rebuild the coefficient files.

mirror.json needs only the calibration file (default: the committed
``assets/validation/calibration.json``); mq.json and db2v8.json also read seed
tables. When the seed documents cannot be found, mirror.json is still rebuilt,
the other two are left as committed, the reason is printed and the exit status is 2.
"""

import argparse
import sys

from engine.calibrate.misc import db2v8, mirror, mq
from engine.calibrate.misc.sources import MissingInputError


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.calibrate.misc", description=__doc__)
    ap.add_argument("--calibration", default=None, help="default: assets/validation/calibration.json")
    ap.add_argument("--seeds", default=None, help="seed folder (default: $QRTUNE_SEEDS or ../shared/seeds)")
    a = ap.parse_args(argv)
    cal = ["--calibration", a.calibration] if a.calibration else []
    seeds = ["--seeds", a.seeds] if a.seeds else []
    status = 0
    for name, run, args in (
        ("mq.json", mq.main, cal + seeds),
        ("db2v8.json", db2v8.main, seeds),
        ("mirror.json", mirror.main, cal),
    ):
        try:
            run(args)
        except MissingInputError as e:
            print(f"{name} not rebuilt: {e}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    raise SystemExit(main())
