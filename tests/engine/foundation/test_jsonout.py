"""Strict JSON output: no NaN/Infinity token, null with a reason, unchanged text otherwise."""

import json
import math

import numpy as np
from cli_run import qrtune

from engine.io import jsonout


def _strict_loads(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity as strict parsers do."""

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_numbers_become_null_with_their_path_and_reason():
    doc = {
        "a": 1.5,
        "stages": [{"capacity": math.inf}, {"capacity": 2.0}],
        "x": np.float32("nan"),
        "y": -math.inf,
    }
    out = _strict_loads(jsonout.dumps(doc))
    assert out["a"] == 1.5 and out["stages"] == [{"capacity": None}, {"capacity": 2.0}]
    assert out["x"] is None and out["y"] is None
    assert out["null_reasons"] == {
        "stages[0].capacity": "unbounded (+infinity)",
        "x": "not a number (undefined for these settings)",
        "y": "unbounded (-infinity)",
    }


def test_finite_documents_are_written_as_json_writes_them():
    doc = {"b": [1, 2.25, None, True, "t"], "a": {"z": 0.1}}
    assert jsonout.dumps(doc, indent=1, sort_keys=True) == json.dumps(doc, indent=1, sort_keys=True)


def test_a_list_document_has_each_object_cleaned_on_its_own():
    out = _strict_loads(jsonout.dumps([{"v": math.nan}, {"v": 1.0}, math.inf]))
    assert out == [
        {"v": None, "null_reasons": {"v": "not a number (undefined for these settings)"}},
        {"v": 1.0},
        None,
    ]


def test_predict_json_on_the_db2_mirror_sample_is_strict_json():
    out = qrtune("predict", "sample_runs/mirror-active-active.json", "--json")
    assert out.returncode == 0, out.stderr
    assert "Infinity" not in out.stdout and "NaN" not in out.stdout
    doc = _strict_loads(out.stdout)
    unbounded = [k for k, v in doc["null_reasons"].items() if v.startswith("unbounded")]
    assert unbounded and all(k.startswith("stages[") and k.endswith("].capacity") for k in unbounded)
    assert all(doc["stages"][int(k[7 : k.index("]")])]["capacity"] is None for k in unbounded)
