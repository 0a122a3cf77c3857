"""No engine keeps a default or a range of its own: a missing setting means the registry's default.

For every knob of ``engine/registry`` that feeds a scenario of any kind (Q Replication, Db2 Mirror,
MQ mover, DB2 V8 storage), a scenario without the setting and one that states the registry default
explicitly give identical engine inputs; a value above the registry range is refused with a
message naming the setting and the registry's own range; and the engines refuse exactly what a
project file refuses (a Db2 Mirror link of 500 km).
"""

from __future__ import annotations

import copy

import pytest

from engine.errors import FieldError, ValueRangeError
from engine.perf import db2v8, mirror, mqmover
from engine.perf.qrep.inputs import read_inputs
from engine.registry import kind, scenario_specs
from engine.settings import set_path

#: Scenario kind -> (smallest valid scenario, the engine's validated inputs of a scenario).
ENGINES = {
    "qrep": (
        {"kind": "qrep", "table": {"columns": {"INTEGER": 10, "CHAR(20)": 10}}},
        lambda s: read_inputs(s)[0],
    ),
    "db2mirror": ({"kind": "db2mirror"}, lambda s: mirror.parse_settings(s)[0]),
    "mq-mover": ({"kind": "mq-mover"}, lambda s: mqmover.build(s)[:4]),
    "db2-v8-storage": (
        {"kind": "db2-v8-storage", "v7_measured_mb": {"edm_pool": 100.0, "rid_pool": 20.0}},
        lambda s: db2v8.summarise(s),
    ),
}
#: Settings whose absence is derived from others, not defaulted: the row length from the column
#: types, the V7 storage parts (a part not measured is not a part of 0 MB).
DERIVED = ("table.columns", "table.row_bytes", "v7_measured_mb.")
#: Scenario kind -> the settings paths its engine reads from a scenario (the others it reports in ``ignored``).
READS = {
    "qrep": lambda s: read_inputs(s)[1],
    "db2mirror": lambda s: mirror.parse_settings(s)[1],
    "mq-mover": lambda s: mqmover.build(s)[4],
    "db2-v8-storage": lambda s: db2v8.summarise_and_paths(s)[1],
}
#: Scenario kind -> its engine's prediction.
PREDICT = {
    "qrep": None,
    "db2mirror": mirror.predict,
    "mq-mover": mqmover.predict,
    "db2-v8-storage": db2v8.predict,
}
SCALAR = ("int", "float", "bool", "enum", "int_pair")


def _cases(select) -> list:
    return [
        pytest.param(k, path, spec, id=f"{k}:{path}")
        for k in ENGINES
        for path, spec in sorted(scenario_specs(k).items())
        if select(path, spec)
    ]


def _defaulted(path, spec) -> bool:
    return spec.type in SCALAR and spec.default is not None and not path.startswith(DERIVED)


def test_every_scenario_kind_has_knobs_under_test():
    kinds = {case.values[0] for case in _cases(_defaulted)}
    assert kinds == set(ENGINES)


@pytest.mark.parametrize(("scenario_kind", "path", "spec"), _cases(_defaulted))
def test_a_missing_setting_takes_the_registry_default(scenario_kind, path, spec):
    minimal, inputs = ENGINES[scenario_kind]
    stated = copy.deepcopy(minimal)
    set_path(stated, path, copy.deepcopy(spec.default))
    assert inputs(minimal) == inputs(stated), path


@pytest.mark.parametrize(
    ("scenario_kind", "path", "spec"),
    _cases(lambda path, spec: spec.type in ("int", "float") and spec.maximum is not None),
)
def test_a_value_above_the_registry_range_is_refused_with_that_range(scenario_kind, path, spec):
    minimal, inputs = ENGINES[scenario_kind]
    stated = copy.deepcopy(minimal)
    set_path(stated, path, spec.default if spec.default is not None else spec.minimum)
    if path not in READS[scenario_kind](stated):
        assert path in PREDICT[scenario_kind](stated).ignored, f"{path} is neither read nor reported ignored"
        return
    too_big = copy.deepcopy(minimal)
    value = spec.maximum * 2 + 1
    set_path(too_big, path, int(value) if spec.type == "int" else value)
    with pytest.raises(ValueRangeError, match=path.replace(".", r"\.")) as refused:
        inputs(too_big)
    assert refused.value.allowed == spec.allowed()


def test_the_mirror_engine_refuses_a_link_the_project_file_refuses():
    link_spec = kind("roce_link").param("distance_km")
    with pytest.raises(FieldError):
        link_spec.check(500.0, "distance_km")
    with pytest.raises(
        ValueRangeError, match=r"link\.distance_km: 500\.0 is not allowed; expected a number from 0 to 10 km"
    ):
        mirror.parse_settings({"kind": "db2mirror", "link": {"distance_km": 500.0}})
    assert mirror.parse_settings({"kind": "db2mirror", "link": {"distance_km": 10.0}})[0].distance_km == 10.0
