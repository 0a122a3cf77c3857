"""Named goals of the journeys, and the one entry point that reads a goal as a user writes it.

``fewest-agents[:RATE]``
    The fewest NUM_APPLY_AGENTS (1..64) that hold RATE rows/s (default 60,000) with
    END2END_LATENCY under 1 s and the Q Apply LPAR under 90% busy, with the workload offered
    at RATE (journey 2). "Hold" allows 0.1% short of RATE for the solver's tolerance.
``mirror-baseline[:job_sets|cores]``
    Db2 Mirror (journey 7): the fewest job sets of the source node (default) or cores of both
    nodes that bring mirrored throughput back to the same workload's throughput without
    Db2 Mirror (the engine's prediction with the RoCE link's mode ``none``).
``outage-pool[:MINUTES]``
    The smallest BUFFPOOL (in steps of 1,000 pages) of the transmit queue's queue manager whose
    buffers hold MINUTES (default 20) of channel outage at the predicted message rate
    (journey 4; :mod:`engine.advise.outage`).

Anything else is parsed by :func:`engine.advise.goalseek.parse_goal`.
"""

from __future__ import annotations

from engine.advise.goalseek import Goal, parse_goal
from engine.advise.outage import transmit_queue_manager
from engine.errors import FieldError
from engine.model import Project

#: Named goals and their one-line help.
NAMED_GOALS = {
    "fewest-agents": "fewest apply agents holding RATE rows/s (default 60000) with END2END < 1 s and apply CPU < 90%",
    "outage-pool": "smallest transmit-queue buffer pool holding MINUTES (default 20) of channel outage",
    "mirror-baseline": "fewest job sets (or :cores) that bring Db2 Mirror throughput back to the unmirrored baseline",
}


def _number(text: str, name: str, default: float) -> float:
    if not text:
        return default
    try:
        value = float(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise FieldError(f"--goal {name}", text, "a number after the colon") from None
    if value <= 0:
        raise FieldError(f"--goal {name}", text, "a positive number")
    return value


def fewest_agents_text(
    rate_rows_per_s: float = 60_000.0,
    e2e_ms: float = 1000.0,
    cpu_pct: float = 90.0,
    max_agents: int = 64,
    target: str = "qapply",
) -> str:
    """The goal text of journey 2; ``target`` is the Q Apply searched (a node id, or ``qapply``: every one)."""
    return (
        f"min {target}.num_apply_agents subject to apply_rows_per_s>={0.999 * rate_rows_per_s:g}, "
        f"end2end_latency_ms<{e2e_ms:g}, apply_lpar_busy_pct<{cpu_pct:g} "
        f"over {target}.num_apply_agents=1..{max_agents} with source_db2.offered_rows_per_s={rate_rows_per_s:g}"
    )


def outage_pool_text(project: Project, minutes: float = 20.0) -> str:
    """The goal text of journey 4's buffer pool question.

    Raises
    ------
    FieldError
        The project has no transmit queue (not a Q Replication topology).
    """
    qm = transmit_queue_manager(project)
    if qm is None:
        raise FieldError(
            "--goal outage-pool", project.topology, "a Q Replication project with a transmit queue"
        )
    return (
        f"min {qm.id}.buffpool_pages subject to outage_held_min>={minutes:g} "
        f"over {qm.id}.buffpool_pages=1000..50000000:1000"
    )


def mirror_baseline_text(project: Project, knob: str = "job_sets") -> str:
    """The goal text of journey 7: throughput back to the unmirrored baseline.

    Raises
    ------
    FieldError
        Not a Db2 Mirror project, an unknown knob, or job sets asked of a workload driven by users.
    """
    from engine.predict import predict_project

    links, nodes = project.nodes_of("roce_link"), project.nodes_of("db2_mirror_node")
    if not links or not nodes:
        raise FieldError("--goal mirror-baseline", project.topology, "a Db2 Mirror pair project")
    if knob not in ("job_sets", "cores"):
        raise FieldError("--goal mirror-baseline", knob, "job_sets or cores")
    unmirrored = project
    for link in links:
        unmirrored = unmirrored.with_param(link.id, "mode", "none")
    target = predict_project(unmirrored).metrics["throughput"]
    source = nodes[0]
    if knob == "job_sets":
        current = source.params.get("job_sets")
        if not current:
            raise FieldError(
                "--goal mirror-baseline:job_sets", None, "a workload driven by job sets (try :cores)"
            )
        axis = f"{source.id}.job_sets={int(current)}..{min(100_000, int(current) * 4)}"
    else:
        axis = f"db2_mirror_node.cores={int(source.params.get('cores') or 1)}..240"
    return f"min {axis.partition('=')[0]} subject to throughput>={target:.6g} over {axis}"


def goal_from_text(text: str, project: Project) -> Goal:
    """A named goal (``fewest-agents:60000``, ``outage-pool:20``) or a written one.

    Raises
    ------
    FieldError
        The text is neither; the message lists the named goals.
    """
    name, _, arg = text.strip().partition(":")
    if name == "fewest-agents":
        return parse_goal(fewest_agents_text(_number(arg, name, 60_000.0)), project)
    if name == "mirror-baseline":
        return parse_goal(mirror_baseline_text(project, arg or "job_sets"), project)
    if name == "outage-pool":
        return parse_goal(outage_pool_text(project, _number(arg, name, 20.0)), project)
    allowed = (
        "one of "
        + ", ".join(f"{k}[:N]" for k in NAMED_GOALS)
        + " or 'min|max OBJECTIVE [subject to METRIC<=V, ...] over TARGET.PARAM=VALUES ...'"
    )
    if " " not in text.strip():
        raise FieldError("--goal", text, allowed)
    try:
        return parse_goal(text, project)
    except FieldError as e:
        if e.path == "--goal" and e.value == text:  # not a goal at all: name the choices
            raise FieldError("--goal", text, allowed) from None
        raise
