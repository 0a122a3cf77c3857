"""``python -m engine.calibrate.mq_components [--components FILE]``: refit mq_components.json."""

import argparse
import sys

from engine.calibrate.mq_components import DEFAULT_COMPONENTS, OUTPUT, build, load_records, write


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.calibrate.mq_components", description=__doc__)
    ap.add_argument(
        "--components", default=str(DEFAULT_COMPONENTS), help="component measurements (JSON list)"
    )
    a = ap.parse_args(argv)
    try:
        records = load_records(a.components)
    except (OSError, ValueError) as exc:
        print(f"--components: cannot read {a.components}: {exc}", file=sys.stderr)
        return 1
    doc = build(records)
    write(doc)
    for group, e in doc["groups"].items():
        print(
            f"{group:24s} {e['values']:4d} values  median {100 * e['median_error']:5.1f}%  p90 {100 * e['p90_error']:5.1f}%"
        )
    print(f"{doc['records']['represented']} of {doc['records']['total']} records represented; wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
