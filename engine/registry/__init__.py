"""The node-kind and parameter registry: the one declarative description of every knob."""

from engine.registry.kinds import KINDS, NodeKind
from engine.registry.params import ParamSpec
from engine.registry.platform_knobs import RECEIVE_QM_PATHS
from engine.registry.scenario_level import SCENARIO_LEVEL

__all__ = ["KINDS", "NodeKind", "ParamSpec", "kind", "path_names", "scenario_specs"]


def kind(kind_id: str) -> NodeKind:
    """Return the node kind ``kind_id``.

    Raises
    ------
    KeyError
        If no kind has that id.
    """
    return KINDS[kind_id]


#: The roles a ``{role}`` in a settings path stands for (the node's ``role`` parameter).
ROLES = ("source", "target")


def _role_paths(template: str | None) -> list[str]:
    """The settings paths of a registry path template: ``{role}`` filled with each role."""
    if not template:
        return []
    return [template.replace("{role}", role) for role in ROLES] if "{role}" in template else [template]


def scenario_specs(scenario_kind: str) -> dict:
    """Every knob that feeds a scenario of ``scenario_kind``, by its settings path.

    Parameters
    ----------
    scenario_kind : str
        ``"qrep"``, ``"db2mirror"``, ``"mq-mover"`` or ``"db2-v8-storage"``.

    Returns
    -------
    dict
        Settings path (``"qcapture.commit_interval_ms"``, ``{role}`` filled with each of
        :data:`ROLES`) -> :class:`ParamSpec`; the engines take defaults and ranges from here
        (one source of truth).
    """
    out = dict(SCENARIO_LEVEL.get(scenario_kind, {}))
    for node_kind in KINDS.values():
        for spec in node_kind.params:
            template = spec.scenario_paths.get(scenario_kind)
            for path in _role_paths(template):
                out.setdefault(path, spec)
    if (
        scenario_kind == "qrep"
    ):  # the receiving queue manager's own knobs (the registry maps the sending one's)
        out.update(RECEIVE_QM_PATHS)
    return out


def path_names(scenario_kind: str) -> dict[str, str]:
    """Settings path -> IBM parameter name (``qapply.num_apply_agents`` -> ``NUM_APPLY_AGENTS``).

    A path with a ``{role}`` appears once for each role (``source``, ``target``).
    """
    out: dict[str, str] = {}
    for node_kind in KINDS.values():
        for spec in node_kind.params:
            for path in _role_paths(spec.scenario_paths.get(scenario_kind)):
                out.setdefault(path, spec.label)
    return out
