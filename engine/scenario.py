"""Between projects and scenarios of ../shared/validation's format (``qrtune-scenarios/1``).

The engine predicts from scenario settings (grouped as a user thinks of them:
``hardware``, ``table``, ``workload``, ``qcapture``, ``qapply``, ``mq`` ...).
:func:`project_to_scenario` builds those settings from a project's nodes using
each parameter's ``scenario_paths``; :func:`apply_scenario` goes the other way
to set a project's knobs from a published scenario. Both directions use the
registry only, so adding a knob needs no code here.
"""

from __future__ import annotations

from typing import Any, Iterable

from engine.model import Node, Project
from engine.registry import KINDS
from engine.topology import check_complete, flows

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


def get_path(doc: dict, path: str) -> Any:
    """Return ``doc``'s value at dotted ``path``; raises KeyError when absent."""
    cur: Any = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise KeyError(path)
        cur = cur[part]
    return cur


def set_path(doc: dict, path: str, value: Any) -> None:
    """Set ``doc``'s value at dotted ``path``, creating groups on the way."""
    *groups, last = path.split(".")
    cur = doc
    for part in groups:
        cur = cur.setdefault(part, {})
    cur[last] = value


def _fill(settings: dict, nodes: Iterable[Node], scenario_kind: str) -> None:
    for node in nodes:
        for spec in KINDS[node.kind].params:
            template = spec.scenario_paths.get(scenario_kind)
            if template is None:
                continue
            path = _node_path(node, template)
            try:
                get_path(settings, path)
            except KeyError:
                set_path(settings, path, node.params[spec.name])


def project_to_scenario(project: Project) -> dict:
    """The scenario settings the engine predicts from, for a complete project.

    For Q Replication topologies the first flow supplies the settings (both
    directions of a bidirectional or peer-to-peer project are set up alike in
    the seeds); a pre-loaded receive queue makes the run a ``drain``.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    check_complete(project)
    kind = SCENARIO_KIND[project.topology]
    settings: dict = {"id": project.name, "kind": kind}
    if kind == "qrep":
        settings["topology"] = project.topology
        flow = flows(project, limit=1)[0]
        _fill(settings, flow, kind)
        depth = max(n.params["initial_depth_msgs"] for n in flow if n.kind == "queue_manager")
        settings["run"] = {
            **settings.get("run", {}),  # run.catch_up (Q Apply's knob)
            **({"mode": "drain", "initial_receive_queue_depth": depth} if depth else {"mode": "steady"}),
        }
    else:
        if kind == "db2mirror":
            settings["topology"] = "db2-mirror-pair"
            nodes = sorted(project.nodes_of("db2_mirror_node"), key=lambda n: n.params["role"] != "source")
            nodes += project.nodes_of("roce_link")
        else:
            nodes = list(project.nodes)
        _fill(settings, nodes, kind)
    return settings


def flow_differences(project: Project) -> list[tuple[str, Any, Any]]:
    """Settings the second flow of a two-way project sets differently from the first.

    :func:`project_to_scenario` predicts from the first flow (the engine mirrors it for
    the partner system); this lists what that leaves out: ``(settings path, first flow's
    value, second flow's value)`` for every path the engine reads, in path order. Empty
    for one-flow projects and for two flows set up alike.
    """
    if project.topology not in ("bidirectional", "peer-to-peer"):
        return []
    found = flows(project, limit=2)
    if len(found) < 2:
        return []
    from engine.perf.qrep.inputs import read_inputs

    filled = []
    for flow in found[:2]:
        settings: dict = {"topology": project.topology}
        _fill(settings, flow, "qrep")
        filled.append(settings)
    try:
        _, used = read_inputs(filled[0])
    except Exception:  # noqa: BLE001 - invalid settings are reported by the prediction itself
        used = None

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
    return [
        (p, a.get(p), b.get(p))
        for p in sorted(set(a) | set(b))
        if a.get(p) != b.get(p) and (used is None or p in used)
    ]


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
    if kind == "qrep":
        depth = scenario.get("run", {}).get("initial_receive_queue_depth")
        if depth:
            target_qm = [n for n in flows(project, limit=1)[0] if n.kind == "queue_manager"][-1]
            project = project.with_param(target_qm.id, "initial_depth_msgs", depth)
    return project


#: Settings derived from knobs rather than set by one (``run.mode`` follows the receive queue's initial depth).
DERIVED_PATHS = {"qrep": {"run.mode"}, "db2mirror": {"topology"}}


def known_paths(scenario_kind: str) -> set[str]:
    """Every settings path of ``scenario_kind`` some knob maps to (``{role}`` expanded), plus derived ones."""
    paths = set(DERIVED_PATHS.get(scenario_kind, ()))
    for k in KINDS.values():
        for spec in k.params:
            template = spec.scenario_paths.get(scenario_kind)
            if template:
                for role in ("source", "target"):
                    paths.add(template.replace("{role}", role))
    return paths


def setting_paths(scenario: dict) -> list[str]:
    """Dotted paths of every setting leaf in a scenario (``measured``, ids and notes excluded)."""
    skip = {"id", "source", "kind", "notes", "note", "measured", "measured_bottleneck", "topology"}
    out: list[str] = []

    def walk(obj: Any, prefix: str) -> None:
        if isinstance(obj, dict) and not prefix.endswith("columns"):
            for k, v in obj.items():
                if not prefix and (k in skip or k.startswith("measured")):
                    continue
                if k in ("note", "notes"):
                    continue
                walk(v, f"{prefix}.{k}" if prefix else k)
        else:
            out.append(prefix)

    walk(scenario, "")
    return out


def unused_settings(scenario: dict, used: set[str]) -> list[str]:
    """Setting paths of ``scenario`` not in ``used``: what an engine reports as ``ignored``."""
    return sorted(p for p in setting_paths(scenario) if p not in used)
