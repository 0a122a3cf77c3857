"""NaN, infinities and subnormals are refused at the one validation boundary, and never written to a file."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from app.panels.fields import parse_text
from engine import projectfile, templates
from engine.errors import FieldError, ProjectFileError
from engine.registry import KINDS

FLOAT_KNOBS = [(k.id, p) for k in KINDS.values() for p in k.params if p.type == "float"]
INT_KNOBS = [(k.id, p) for k in KINDS.values() for p in k.params if p.type == "int"]


@pytest.mark.parametrize("kind_id, spec", FLOAT_KNOBS, ids=[f"{k}.{p.name}" for k, p in FLOAT_KNOBS])
def test_every_float_knob_refuses_nan_infinity_and_subnormals(kind_id, spec):
    for bad in (math.nan, math.inf, -math.inf, 1e-320, 5e-324, 10**400):
        with pytest.raises(FieldError):
            spec.check(bad, f"{kind_id}.{spec.name}")
    if spec.minimum is not None:
        assert spec.check(spec.minimum, "x") == spec.minimum  # the bounds themselves stay allowed


@pytest.mark.parametrize("kind_id, spec", INT_KNOBS[:5], ids=[f"{k}.{p.name}" for k, p in INT_KNOBS[:5]])
def test_integer_knobs_refuse_nan_and_infinity(kind_id, spec):
    for bad in (math.nan, math.inf, 1e308):
        with pytest.raises(FieldError):
            spec.check(bad, "x")


def test_the_inspector_never_turns_1_2_3_into_123():
    agents = KINDS["qapply"].param("num_apply_agents")
    assert parse_text(agents, "1,2,3") == "1,2,3"  # passed on as typed: the check names it
    with pytest.raises(FieldError):
        agents.check(parse_text(agents, "1,2,3"), "num_apply_agents")
    assert parse_text(KINDS["queue_manager"].param("buffpool_pages"), "240,000") == 240000
    assert parse_text(KINDS["queue_manager"].param("buffpool_pages"), "1,000,000") == 1000000


def test_nan_typed_into_a_float_knob_is_refused():
    latency = KINDS["channel"].param("network_latency_ms")
    with pytest.raises(FieldError):
        templates.unidirectional().with_param(
            templates.unidirectional().nodes_of("channel")[0].id,
            "network_latency_ms",
            parse_text(latency, "nan"),
        )


def test_a_nan_that_slipped_past_validation_is_never_written(tmp_path):
    project = templates.unidirectional()
    node = project.nodes_of("channel")[0]
    broken = replace(
        project,
        nodes=tuple(
            replace(n, params={**n.params, "network_latency_ms": math.nan}) if n.id == node.id else n
            for n in project.nodes
        ),
    )
    target = tmp_path / "p.json"
    with pytest.raises(ProjectFileError):
        projectfile.save(broken, target)
    assert not target.exists()
