"""The registry covers every published setting and every spec is well formed."""

import pytest

from engine.registry import KINDS
from engine.scenario import known_paths
from engine.settings import setting_paths


def test_every_calibration_setting_has_a_knob(calibration):
    missing = []
    for s in calibration["scenarios"]:
        known = known_paths(s["kind"])
        for path in setting_paths(s):
            if path not in known:
                missing.append((s["id"], path))
    assert missing == []


@pytest.mark.parametrize("kind", list(KINDS.values()), ids=lambda k: k.id)
def test_specs_are_complete(kind):
    names = [p.name for p in kind.params]
    assert len(names) == len(set(names)), "duplicate parameter names"
    for p in kind.params:
        assert p.name == p.name.lower() and " " not in p.name
        assert p.help and p.seed.split(",")[0].endswith(".txt"), p.name
        assert p.check(p.default, p.name) == p.default  # the default is allowed
        if p.type in ("int", "float") and p.minimum is not None:
            with pytest.raises(ValueError):
                p.check(p.minimum - 1, p.name)
        if p.type == "enum":
            assert p.default in p.choices


def test_links_name_known_kinds():
    for kind in KINDS.values():
        assert set(kind.links_to) <= set(KINDS)


def test_tuned_values_are_in_help():
    spec = KINDS["qcapture"].param("trans_batch_sz")
    assert spec.default == 1 and "3" in spec.help
    assert KINDS["queue_manager"].param("buffpool_pages").label == "BUFFPOOL"  # IBM's name; pages is its unit
