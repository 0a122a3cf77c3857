"""``qrtune import-config CAPPARMS APPLYPARMS SENDQUEUES RECVQUEUES [SUBS TARGETS] --out PROJECT``.

Builds a project from exports of the Q Replication control tables of a running system
(IBMQREP_CAPPARMS, IBMQREP_APPLYPARMS, IBMQREP_SENDQUEUES, IBMQREP_RECVQUEUES, and optionally
IBMQREP_SUBS and IBMQREP_TARGETS), in any form and release ``qrtune import-monitor`` reads: one
flow per queue map, each knob as the tables set it under its IBM name (COMMIT_INTERVAL,
MEMORY_LIMIT, NUM_APPLY_AGENTS, MAX_MESSAGE_SIZE ...). What the tables do not hold (the machines,
the workload) keeps the product's defaults and is listed for you to fill in.
"""

from __future__ import annotations

import json
import sys

from engine.cli.import_monitor import release_argument
from engine.monitor.layouts import PLATFORMS


def register(sub) -> None:
    p = sub.add_parser(
        "import-config",
        help="build a project from exports of the control tables (CAPPARMS, APPLYPARMS, SENDQUEUES, RECVQUEUES)",
        description=__doc__,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="an export of each control table")
    p.add_argument("--out", metavar="PROJECT", required=True, help="project file to write (.json)")
    p.add_argument("--name", help="the project's name (default: from the queue managers)")
    p.add_argument(
        "--release", type=release_argument, help="release whose column order headerless files have"
    )
    p.add_argument("--platform", choices=PLATFORMS, help="luw or zos (default: by the cells)")
    p.add_argument("--json", action="store_true", help="print the queue maps and what is not known as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from engine import projectfile
    from engine.io.controltables import import_config

    done = import_config(args.files, args.name or "", release=args.release, platform=args.platform)
    projectfile.save(done.project, args.out)
    maps = [
        {
            "queue_map": m.name,
            "sendq": (m.send or {}).get("SENDQ"),
            "recvq": (m.receive or {}).get("RECVQ"),
            "subscriptions": m.subscriptions,
        }
        for m in done.queue_maps
    ]
    if args.json:
        out = {
            "project": args.out,
            "name": done.project.name,
            "queue_maps": maps,
            "not_known": list(done.not_known),
        }
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"wrote {args.out}: {done.project.name!r}, {len(maps)} queue map(s)")
    for m in maps:
        print(
            f"  {m['queue_map']}: {m['sendq'] or '?'} -> {m['recvq'] or '?'}, {m['subscriptions']} subscription(s)"
        )
    print("not in the control tables (the project keeps the defaults; fill them in):")
    for item in done.not_known:
        print(f"  {item}")
    return 0
