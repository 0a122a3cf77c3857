"""The Q Replication engine keeps no default of its own: a missing setting means the registry's default.

For every knob of ``engine/registry`` that feeds a ``qrep`` scenario, a scenario without the
setting and one that states the registry default explicitly give identical engine inputs; and
a value outside the registry range is refused with a message naming the setting.
"""

from __future__ import annotations

import copy

import pytest

from engine.errors import ValueRangeError
from engine.perf.qrep.inputs import read_inputs
from engine.registry import scenario_specs
from engine.settings import set_path

MINIMAL = {"kind": "qrep", "table": {"columns": {"INTEGER": 10, "CHAR(20)": 10}}}
#: Settings whose absence is derived from others, not defaulted: the row length from the column types.
DERIVED = {"table.columns", "table.row_bytes"}
SPECS = {
    path: spec
    for path, spec in scenario_specs("qrep").items()
    if path not in DERIVED and spec.default is not None and spec.type in ("int", "float", "bool", "enum")
}


@pytest.mark.parametrize("path", sorted(SPECS))
def test_a_missing_setting_takes_the_registry_default(path):
    stated = copy.deepcopy(MINIMAL)
    set_path(stated, path, SPECS[path].default)
    assert read_inputs(MINIMAL)[0] == read_inputs(stated)[0], path


@pytest.mark.parametrize("path", sorted(p for p, s in SPECS.items() if s.maximum is not None))
def test_a_value_above_the_registry_range_names_the_setting(path):
    spec = SPECS[path]
    too_big = copy.deepcopy(MINIMAL)
    set_path(too_big, path, spec.maximum * 2 + 1)
    with pytest.raises(ValueRangeError, match=path.replace(".", r"\.")):
        read_inputs(too_big)
