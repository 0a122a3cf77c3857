"""A sweep point's settings from the base settings equal those of the rebuilt project, for every knob."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import QrtuneError
from engine.registry import KINDS
from engine.scenario import project_to_scenario
from engine.studies.point_settings import PointSettings

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted((ROOT / "sample_runs").glob("*.json"))


def _other_values(spec, current) -> list:
    """Values of ``spec`` other than ``current`` that it allows: its default, bounds and choices."""
    candidates = [spec.default, spec.minimum, spec.maximum, *(getattr(spec, "choices", None) or ())]
    if spec.type == "bool":
        candidates = [not current] if isinstance(current, bool) else [True, False]
    out = []
    for value in candidates:
        if value is None and not spec.nullable:
            continue
        try:
            checked = spec.check(value, spec.name)
        except QrtuneError:
            continue
        if checked != current and checked not in out:
            out.append(checked)
    return out


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_every_knob_change_gives_the_settings_of_the_rebuilt_project(path):
    project = projectfile.load(path)
    points = PointSettings(project)
    compared = 0
    for node in project.nodes:
        for spec in KINDS[node.kind].params:
            if spec.type in ("column_map", "int_pair"):
                continue
            for value in _other_values(spec, node.params.get(spec.name)):
                changes = [(node.id, spec.name, value)]
                try:
                    expected = project_to_scenario(project.with_param(node.id, spec.name, value))
                except QrtuneError as e:  # e.g. two Db2 Mirror targets: the point fails the same way
                    with pytest.raises(type(e)):
                        points.settings(changes)
                    continue
                assert points.settings(changes) == expected, f"{node.id}.{spec.name}={value!r}"
                compared += 1
    assert compared > 20


def test_two_changes_and_an_unread_knob():
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-bidirectional.json")
    points = PointSettings(project)
    apply_node = project.nodes_of("qapply")[-1]  # the second flow's Q Apply: not read
    changes = [("ab-1-qcapture", "trans_batch_sz", 7), (apply_node.id, "num_apply_agents", 3)]
    rebuilt = project
    for node_id, name, value in changes:
        rebuilt = rebuilt.with_param(node_id, name, value)
    assert points.settings(changes) == project_to_scenario(rebuilt)
    assert points.settings(changes)["qcapture"]["trans_batch_sz"] == 7


def test_a_value_out_of_range_is_refused_as_the_project_refuses_it():
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    with pytest.raises(QrtuneError, match="num_apply_agents"):
        PointSettings(project).settings([("ab-5-qapply", "num_apply_agents", -1)])
