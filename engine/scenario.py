"""Between projects and scenarios of ../shared/validation's format (``qrtune-scenarios/1``).

The engine predicts from scenario settings (grouped as a user thinks of them:
``hardware``, ``table``, ``workload``, ``qcapture``, ``qapply``, ``mq`` ...).
:func:`project_to_scenario` builds those settings from a project's nodes using
each parameter's ``scenario_paths``; :func:`apply_scenario` goes the other way
to set a project's knobs from a published scenario. Both directions use the
registry only, so adding a knob needs no code here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from engine.model import Node, Project
from engine.registry import KINDS, ParamSpec
from engine.registry.platform_knobs import RECEIVE_QM_PATH_OF, SEND_QM_PATH_OF
from engine.settings import get_path, read_paths, set_path
from engine.topology import (
    check_complete,
    flows,
    partner_flows,
    receive_queue_manager,
    send_queue_manager,
)

#: Project topology -> scenario kind.
SCENARIO_KIND = {
    "unidirectional": "qrep",
    "bidirectional": "qrep",
    "peer-to-peer": "qrep",
    "db2-mirror-pair": "db2mirror",
    "mq-mover": "mq-mover",
    "db2-v8-migration": "db2-v8-storage",
}


def _node_path(node: Node, template: str) -> str:
    return template.replace("{role}", str(node.params.get("role", "")))


def _fill(
    settings: dict, nodes: Iterable[Node], scenario_kind: str, sources: dict | None = None, prefix: str = ""
) -> None:
    """Set every path (starting with ``prefix``) the ``nodes``' knobs map to that ``settings`` does not hold yet.

    The first node supplying a path wins; ``sources`` (when given) records path -> node id.
    """
    for node in nodes:
        for spec in KINDS[node.kind].params:
            template = spec.scenario_paths.get(scenario_kind)
            if template is None or not template.startswith(prefix):
                continue
            path = _node_path(node, template)
            try:
                get_path(settings, path)
            except KeyError:
                set_path(settings, path, node.params[spec.name])
                if sources is not None:
                    sources[path] = node.id


def _scenario_nodes(project: Project, kind: str) -> list[Node]:
    """The nodes whose knobs fill the scenario, in the order they are read.

    Q Replication: the first flow; Db2 Mirror: the source node, the target node, the link;
    others: all.
    """
    if kind == "qrep":
        return list(flows(project, limit=1)[0])
    if kind == "db2mirror":
        nodes = sorted(project.nodes_of("db2_mirror_node"), key=lambda n: n.params["role"] != "source")
        return nodes + list(project.nodes_of("roce_link"))
    return list(project.nodes)


def _queue_manager_platforms(project: Project, settings: dict, sources: dict) -> None:
    """The two queue managers' platform knobs: ``send_qm.*`` from the sending one, ``recv_qm.*`` from the
    receiving one (none when Q Apply reads the send queue: the engine's defaults, which it does not use)."""
    flow = flows(project, limit=1)[0]
    for qm, paths in (
        (send_queue_manager(flow), SEND_QM_PATH_OF),
        (receive_queue_manager(flow), RECEIVE_QM_PATH_OF),
    ):
        if qm is None:
            continue
        for name, path in paths.items():
            set_path(settings, path, qm.params[name])
            sources[path] = qm.id


def _build(project: Project) -> tuple[dict, dict]:
    check_complete(project)
    kind = SCENARIO_KIND[project.topology]
    settings: dict = {"id": project.name, "kind": kind}
    if kind in ("qrep", "db2mirror"):
        settings["topology"] = project.topology
    sources: dict = {}
    nodes = _scenario_nodes(project, kind)
    if kind == "qrep":
        _queue_manager_platforms(project, settings, sources)
        # the run's mode and pre-loaded depth belong to the receive queue (the flow's last queue manager)
        _fill(settings, [n for n in nodes if n.kind == "queue_manager"][-1:], kind, sources, prefix="run.")
    _fill(settings, nodes, kind, sources)
    return settings, sources


def project_to_scenario(project: Project) -> dict:
    """The scenario settings the engine predicts from, for a complete project.

    For Q Replication topologies the first flow supplies the settings (both directions of a
    bidirectional or peer-to-peer project are set up alike in the seeds); whether the run is
    a steady state or a drain is the receive queue manager's explicit ``run_mode`` knob
    (``run.mode``), never inferred from a queue depth.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    return _build(project)[0]


def _unread_reason(project: Project, kind: str, source: str | None) -> str:
    """Why a knob of a node the scenario does not read has no effect (the knob is the reason's key)."""
    if source is None:
        return "this node is not on the path the engine models"
    why = f"the engine takes the value of {project.node(source).label}"
    if kind == "qrep" and project.topology != "unidirectional":
        why += " (the engine models both directions of a two-way project with the first flow's settings)"
    return why


def knob_paths(project: Project) -> Iterator[tuple[Node, ParamSpec, str]]:
    """``(node, spec, settings path)`` of every knob of ``project`` that maps to its scenario kind.

    The path is the knob's registry path with ``{role}`` filled in; the receiving queue manager of
    a Q Replication flow has its platform knobs under ``recv_qm`` (the registry's are ``send_qm``).
    """
    kind = SCENARIO_KIND[project.topology]
    receiving = receive_queue_manager(flows(project, limit=1)[0]) if kind == "qrep" else None
    receive_qm = receiving.id if receiving is not None else None
    for node in project.nodes:
        for spec in KINDS[node.kind].params:
            template = spec.scenario_paths.get(kind)
            if template is None:
                continue
            if node.id == receive_qm and spec.name in RECEIVE_QM_PATH_OF:
                yield node, spec, RECEIVE_QM_PATH_OF[spec.name]
            else:
                yield node, spec, _node_path(node, template)


def scenario_and_knob_paths(project: Project) -> tuple[dict, dict[tuple[str, str], str]]:
    """:func:`project_to_scenario` and where each knob that reaches it lands: ``(node id, knob) -> path``.

    A knob the engine does not read (:func:`unread_params`) has no entry. Which node supplies
    a path depends on the nodes and links only, never on the knobs' values (but for a
    ``{role}`` in a path), so a project that differs from ``project`` in the values of knobs
    other than ``role`` has the settings of ``project`` with those values at these paths.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    settings, sources = _build(project)
    paths = {
        (node.id, spec.name): path for node, spec, path in knob_paths(project) if sources.get(path) == node.id
    }
    return settings, paths


def unread_params(project: Project) -> dict[str, str]:
    """Knobs of ``project`` that do not reach the engine: ``"<node id>.<param>"`` -> why.

    A knob maps to a scenario path, and each path is read from one node (:func:`_scenario_nodes`):
    the second flow of a two-way project, and a second node on the same path (the transmit
    queue manager's ``run_mode``), are not read. Reported in a prediction's ``ignored``.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    return scenario_and_unread_params(project)[1]


def scenario_and_unread_params(project: Project) -> tuple[dict, dict[str, str]]:
    """:func:`project_to_scenario` and :func:`unread_params` from one pass over the project.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    kind = SCENARIO_KIND[project.topology]
    settings, sources = _build(project)
    out = {}
    for node, spec, path in knob_paths(project):
        source = sources.get(path)
        if source != node.id:
            out[f"{node.id}.{spec.name}"] = _unread_reason(project, kind, source)
    return settings, out


def flow_differences(project: Project) -> list[tuple[str, Any, Any]]:
    """Settings the second flow of a two-way project sets differently from the first.

    :func:`project_to_scenario` predicts from the first flow (the engine mirrors it for
    the partner system); this lists what that leaves out: ``(settings path, first flow's
    value, second flow's value)`` for every path the engine reads (:func:`engine.settings.read_paths`),
    in path order. Empty
    for one-flow projects and for two flows set up alike.
    """
    found = partner_flows(project)
    if not found:
        return []
    filled = []
    for flow in found:
        settings: dict = {"topology": project.topology}
        _fill(settings, flow, "qrep")
        filled.append(settings)
    used = read_paths("qrep")

    def leaves(doc: dict, prefix: str = "") -> dict:
        out: dict = {}
        for key, value in doc.items():
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict) and not path.endswith("columns"):
                out.update(leaves(value, path))
            else:
                out[path] = value
        return out

    a, b = leaves(filled[0]), leaves(filled[1])
    return [(p, a.get(p), b.get(p)) for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p) and p in used]


def apply_scenario(project: Project, scenario: dict) -> Project:
    """Return ``project`` with every knob that ``scenario`` sets, set from it.

    Settings the registry has no knob for are left out; see :func:`unused_settings`.

    Raises
    ------
    FieldError
        A scenario value is outside the knob's allowed range.
    """
    kind = scenario.get("kind", SCENARIO_KIND[project.topology])
    for node in project.nodes:
        for spec in KINDS[node.kind].params:
            template = spec.scenario_paths.get(kind)
            if template is None:
                continue
            try:
                value = get_path(scenario, _node_path(node, template))
            except KeyError:
                continue
            if value is None and not spec.nullable:
                continue
            project = project.with_param(node.id, spec.name, value)
    return _apply_receive_qm(project, scenario) if kind == "qrep" else project


def _apply_receive_qm(project: Project, scenario: dict) -> Project:
    """Set the receiving queue manager's platform knobs from the scenario's ``recv_qm`` settings."""
    found = flows(project, limit=1)
    receiving = receive_queue_manager(found[0]) if found else None
    for name, path in RECEIVE_QM_PATH_OF.items():
        try:
            value = get_path(scenario, path)
        except KeyError:
            continue
        if receiving is not None and value is not None:
            project = project.with_param(receiving.id, name, value)
    return project


#: Settings derived from the project rather than set by a knob.
DERIVED_PATHS = {"db2mirror": {"topology"}}


def known_paths(scenario_kind: str) -> set[str]:
    """Every settings path of ``scenario_kind`` some knob maps to (``{role}`` expanded), plus derived ones."""
    paths = set(DERIVED_PATHS.get(scenario_kind, ()))
    for k in KINDS.values():
        for spec in k.params:
            template = spec.scenario_paths.get(scenario_kind)
            if template:
                for role in ("source", "target"):
                    paths.add(template.replace("{role}", role))
    if scenario_kind == "qrep":
        paths.update(RECEIVE_QM_PATH_OF.values())
    return paths
