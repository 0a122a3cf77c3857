"""Time to validate meshed Q Replication topologies (issue 17, item 1).

usage: python benchmarks/bench_topology.py [--per-layer N ...] [--timeout-s S]

A mesh has ``N`` nodes in each of the seven positions of a flow (source Db2, Q Capture,
sending queue manager, channel, receiving queue manager, Q Apply, target Db2) and every
node linked to every node of the next position: ``7 N`` nodes, ``6 N**2`` links and
``N**7`` complete flows. N = 5 is the 35-node / 150-link file of the issue, N = 8 the
56-node / 384-link one. Each size runs ``qrtune validate`` in its own interpreter and
prints the wall time (or "timeout" after ``--timeout-s``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LAYERS = ("source_db2", "qcapture", "queue_manager", "channel", "queue_manager", "qapply", "target_db2")


def mesh_project(per_layer: int, topology: str = "unidirectional") -> dict:
    """A project file's plain data: ``per_layer`` nodes per flow position, consecutive positions fully linked.

    Parameters
    ----------
    per_layer : int
        Nodes in each of the seven positions of a flow.
    topology : str
        The project's topology type.

    Returns
    -------
    dict
        A ``format_version`` 2 project document.
    """
    layers = [[f"p{pos}-{kind}-{i}" for i in range(per_layer)] for pos, kind in enumerate(LAYERS)]
    nodes = [
        {"id": node_id, "kind": kind, "label": node_id, "position": [100.0 * pos, 60.0 * i], "params": {}}
        for pos, (kind, ids) in enumerate(zip(LAYERS, layers))
        for i, node_id in enumerate(ids)
    ]
    links = [
        {"id": f"l{a}-{b}", "source": a, "target": b}
        for upstream, downstream in zip(layers, layers[1:])
        for a in upstream
        for b in downstream
    ]
    return {
        "format_version": 2,
        "name": f"mesh {per_layer}",
        "topology": topology,
        "description": "",
        "nodes": nodes,
        "links": links,
    }


def time_validate(per_layer: int, timeout_s: float) -> str:
    """Wall time of ``qrtune validate`` on a mesh, in seconds as text (or ``timeout``)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mesh.json"
        path.write_text(json.dumps(mesh_project(per_layer)))
        t0 = time.perf_counter()
        try:
            subprocess.run(
                [sys.executable, "-m", "engine", "validate", str(path)],
                capture_output=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"timeout (> {timeout_s:g} s)"
        return f"{time.perf_counter() - t0:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-layer", type=int, nargs="*", default=[5, 8, 20])
    parser.add_argument("--timeout-s", type=float, default=60.0)
    args = parser.parse_args()
    for n in args.per_layer:
        print(
            f"mesh {n} per position ({7 * n} nodes, {6 * n * n} links): validate "
            f"{time_validate(n, args.timeout_s)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
