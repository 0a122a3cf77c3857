"""Steady-state prediction: the path every front end (CLI, workbench, sweeps, simulator) uses.

A project becomes a scenario (:func:`engine.scenario.project_to_scenario`), the engine of its
kind predicts it (:func:`engine.perf.predictor`), the prediction bands are attached
(:func:`engine.metrics.bands.attach_bands`) and widened where the project models a V8 migration
(:func:`engine.metrics.bands.for_project`). The settings a prediction cannot depend on (its ``ignored``,
with reasons) are mapped back to the project's knobs (:func:`ignored_knobs`,
:func:`ignored_by_node`) for the inspector, ``qrtune predict`` and reports.
"""

from __future__ import annotations

import re

from engine.errors import ValueRangeError
from engine.metrics import knob_label
from engine.metrics.bands import attach_bands, for_project, v8_workload_type
from engine.model import Node, Project
from engine.perf import Prediction, predictor
from engine.registry import KINDS, ParamSpec
from engine.scenario import SCENARIO_KIND, knob_paths, project_to_scenario, scenario_and_unread_params

__all__ = [
    "as_project_sees_it",
    "for_project",
    "ignored_by_node",
    "ignored_knobs",
    "predict_project",
    "predict_settings",
    "project_to_scenario",
    "scenario_and_unread_params",
]

#: Why an ignored setting has no effect when its engine gave no reason.
NO_REASON = "not used by the engine"


def predict_settings(settings: dict) -> Prediction:
    """Predict one scenario's settings with the engine of its kind, with prediction bands.

    Raises
    ------
    UnsupportedKindError
        No engine exists for ``settings["kind"]``.
    FieldError
        A setting is out of the engine's range.
    """
    return attach_bands(predictor(settings.get("kind", ""))(settings))


def predict_project(project: Project) -> Prediction:
    """Predict ``project`` at steady state, with its bands.

    Knobs of nodes the scenario does not read (:func:`engine.scenario.unread_params`, found in the same
    pass that builds the scenario) are added
    to the prediction's ``ignored`` as ``"<node id>.<param>"`` with the reason.

    Raises
    ------
    TopologyError
        The topology is incomplete.
    UnsupportedKindError
        No engine exists for the project's topology.
    """
    settings, unread = scenario_and_unread_params(project)
    try:
        prediction = predict_settings(settings)
    except ValueRangeError as e:
        raise on_its_node(project, unread, e) from None
    return as_project_sees_it(project, unread, prediction)


def on_its_node(project: Project, unread: dict, error: ValueRangeError) -> ValueRangeError:
    """``error`` about a settings path, named as the user sees it: the node's label and the knob's
    IBM name (``QMGR A (xmitq) MAXMSGL``); the error itself when no knob of the project reads the path."""
    for node, spec, path in knob_paths(project):
        if path == error.path and f"{node.id}.{spec.name}" not in unread:
            return ValueRangeError(f"{node.label} {knob_label(spec.name)}", error.value, error.allowed)
    return error


def as_project_sees_it(project: Project, unread: dict, prediction: Prediction) -> Prediction:
    """``prediction`` of ``project``'s scenario as the project sees it.

    The knobs of nodes the scenario does not read (``unread``, from
    :func:`engine.scenario.scenario_and_unread_params`: the second flow of a two-way project)
    are added to its ``ignored`` with their reasons, and its bands are widened where the project
    models a V8 migration (:func:`engine.metrics.bands.for_project`).
    """
    unread = {**unread, **pathless_knobs(project)}
    if unread:
        prediction = prediction.also_ignoring(unread)
    return for_project(project, prediction)


#: Scenario kind -> the engine's name in the reasons of :func:`pathless_knobs`.
ENGINE_LABELS = {
    "qrep": "Q Replication",
    "db2mirror": "Db2 Mirror",
    "mq-mover": "MQ buffer-pool mover",
    "db2-v8-storage": "DB2 V8 storage",
}
#: (scenario kind, knob) -> why the engine of that kind has no setting for the knob.
PATHLESS_REASONS = {
    ("qrep", "pageclas"): "PAGECLAS changes only the queue manager's cost of page-fixing buffers around "
    "page-set I/O (seed 003, on the MQ buffer-pool mover); the Q Replication engine does not count the "
    "queue manager's own CPU per page I/O",
}
#: Knobs that act on the project's bands, not on a setting of its engine (:func:`for_project`).
PROJECT_SIDE_KNOBS = ("v8_migration", "v8_workload_type")


def pathless_knobs(project: Project) -> dict[str, str]:
    """Knobs of ``project``'s nodes that map to no setting of its engine: ``"<node id>.<knob>"`` -> why.

    A DB2 V8 migration's knobs act on the bands (:func:`for_project`): the workload type only
    while the migration is modelled.
    """
    kind = SCENARIO_KIND[project.topology]
    label = ENGINE_LABELS.get(kind, kind)
    modelled_v8 = v8_workload_type(project) is not None
    out = {}
    for node in project.nodes:
        for spec in KINDS[node.kind].params:
            if kind in spec.scenario_paths or (spec.name in PROJECT_SIDE_KNOBS and modelled_v8):
                continue
            if spec.name == "v8_migration":
                continue  # turning it on widens the bands
            if spec.name == "v8_workload_type":
                why = "no DB2 V8 migration is modelled (V8 migration is off)"
            else:
                why = PATHLESS_REASONS.get((kind, spec.name), f"the {label} engine does not model it")
            out[f"{node.id}.{spec.name}"] = why
    return out


def _matched_knobs(project: Project, prediction: Prediction) -> list[tuple]:
    """``(node, spec, names, reason)`` of every knob the prediction ignores, in node then registry order.

    ``names`` are the knob's two spellings in ``ignored`` (``"<node id>.<knob>"`` and its settings
    path); the reason, the prediction's for the one listed (:data:`NO_REASON` when its engine gave
    none), names other knobs by their labels (:func:`_with_knob_labels`).
    """
    ignored = set(prediction.ignored)
    reasons = prediction.ignored_reasons
    with_paths = list(knob_paths(project))
    labels = {path: knob_label(spec.name) for _, spec, path in with_paths}
    kind = SCENARIO_KIND[project.topology]
    knobs: list[tuple[Node, ParamSpec, str | None]] = [*with_paths]
    knobs += [
        (node, spec, None)
        for node in project.nodes
        for spec in KINDS[node.kind].params
        if kind not in spec.scenario_paths
    ]
    out = []
    for node, spec, path in knobs:
        names = (f"{node.id}.{spec.name}", path) if path else (f"{node.id}.{spec.name}",)
        listed = next((n for n in names if n in ignored), None)
        if listed is not None:
            out.append((node, spec, names, _with_knob_labels(reasons.get(listed, NO_REASON), labels)))
    return out


def ignored_knobs(project: Project, prediction: Prediction) -> dict[tuple[str, str], str]:
    """The knobs of ``project`` that cannot change ``prediction``: ``(node id, knob name)`` -> why.

    A knob counts when the prediction lists its settings path (``qcapture.commit_interval_ms``)
    or ``"<node id>.<knob name>"`` (a node the scenario does not read) in ``ignored``; the reason
    is the prediction's (:data:`NO_REASON` when its engine gave none). Knobs that map to no
    setting of the project's engine are listed with the reason :func:`pathless_knobs` gives.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    return {(node.id, spec.name): why for node, spec, _, why in _matched_knobs(project, prediction)}


#: A settings path in an engine's reason (``workload.jobs``, ``hardware.mips_per_cp``).
_SETTINGS_PATH = re.compile(r"\b[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\b")


def _with_knob_labels(reason: str, labels: dict) -> str:
    """``reason`` with each settings path of a knob written as the knob's label (``workload.jobs`` -> Jobs)."""
    return _SETTINGS_PATH.sub(lambda m: labels.get(m.group(0), m.group(0)), reason)


def ignored_by_node(project: Project, prediction: Prediction) -> list[tuple[str, str, tuple[str, ...]]]:
    """:func:`ignored_knobs` as a user reads them: ``(node, reason, knob labels)`` in node order.

    ``node`` is the node's label; the knobs of one node that share a reason are listed together,
    by IBM's names where the knob is an IBM parameter (:func:`engine.metrics.knob_label`).
    Settings the prediction ignores that are no node's knob come last, under ``"other settings"``,
    by settings path.

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """
    groups: dict[tuple[str, str], list[str]] = {}  # (node id, reason) -> labels, in registry order
    known: set[str] = set()
    for node, spec, names, why in _matched_knobs(project, prediction):
        groups.setdefault((node.id, why), []).append(spec.label)
        known.update(names)
    order = {node.id: i for i, node in enumerate(project.nodes)}
    keys = sorted(groups, key=lambda key: order.get(key[0], len(order)))  # stable: reasons keep their order
    out = [(project.node(node_id).label, why, tuple(groups[(node_id, why)])) for node_id, why in keys]
    for path in prediction.ignored:
        if path not in known:
            out.append(("other settings", prediction.ignored_reasons.get(path, NO_REASON), (path,)))
    return out
