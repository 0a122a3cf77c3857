"""The sentence a user reads under a two-way project's system figures: are both systems modelled alike?

The Q Replication engine solves a bidirectional or peer-to-peer project's first flow and mirrors
it for the partner system (:mod:`engine.perf.qrep.systems`); :func:`symmetry_note` says so, and
names the settings of the second flow that this leaves out (:func:`engine.scenario.flow_differences`).
"""

from __future__ import annotations

import math

from engine.perf.qrep.systems import system_nodes
from engine.scenario import flow_differences


def symmetry_note(project) -> str:
    """A sentence for a two-way ``project``: both systems are modelled alike, and what that leaves out.

    The engine solves the first flow and mirrors it, so a second flow set up differently
    (another workload, more apply agents) is not modelled; the note names the settings
    that differ. Returns "" for other topologies.
    """
    nodes = system_nodes(project)
    if len(nodes) < 2:
        return ""
    first, second = nodes[0][1], nodes[1][1]
    diffs = flow_differences(project)
    if not diffs:
        return (
            f"{first} and {second} are set up alike: each originates the same workload and applies "
            "the other's, so their figures are equal."
        )
    ab, ba = f"{first} -> {second}", f"{second} -> {first}"
    shown = ", ".join(f"{path} ({_fmt(b)} vs {_fmt(a)})" for path, a, b in diffs[:6])
    more = f" and {len(diffs) - 6} more" if len(diffs) > 6 else ""
    return (
        f"Flow {ba} differs from flow {ab} in {shown}{more}; the engine models both directions with the "
        f"{ab} settings (it mirrors the first flow), so these differences are not used."
    )


def _fmt(value) -> str:
    if value is None:
        return "not set"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)
