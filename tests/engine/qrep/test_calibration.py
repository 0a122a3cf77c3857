"""The calibration script's problem and the coefficient file it writes."""

import json
import math

import numpy as np
import pytest
from qrep_test_helpers import CALIBRATION

from engine.calibrate import qrep as cal
from engine.perf.qrep.coefficients import COEFF_PATH, CoefficientsError, from_document, load


def test_committed_coefficients_carry_version_and_residuals():
    doc = json.loads(COEFF_PATH.read_text())
    assert doc["version"].startswith("qrep-")
    assert set(doc["parameters"]) == set(cal.PARAMETERS)
    for name, spec in doc["parameters"].items():
        lo, hi = spec["bounds"]
        assert lo <= spec["value"] <= hi, name
    for metric in ("apply_rows_per_s", "msg_size_kb", "apply_cpu_us_per_row"):
        r = doc["residuals"][metric]
        assert r["n"] > 0 and 0 <= r["median_ape"] <= r["p90_ape"] and r["log_sd"] >= 0
    assert load().version == doc["version"]


def test_document_round_trip_keeps_values():
    values = {n: float(p[0]) for n, p in cal.PARAMETERS.items()}
    c = from_document(cal.document(values))
    assert c.values == pytest.approx(values)
    assert c.reference_model == "z196-2817-778"
    with pytest.raises(CoefficientsError):
        from_document({"format": "something-else"})


def test_derived_coefficients_come_from_the_data():
    doc = json.loads(CALIBRATION.read_text())
    values = {n: float(p[0]) for n, p in cal.PARAMETERS.items()}
    cal._derive(doc, values)
    assert values["src_row_us"] == pytest.approx(100 * 200 / 1202)
    mover = next(s for s in doc["scenarios"] if s["kind"] == "mq-mover" and s["message_bytes"] <= 4096)
    m = mover["measured"]
    assert values["page_read_us_ds8000"] == pytest.approx(
        m["adaptor_elapsed_us_per_msg"] - m["adaptor_cpu_us_per_msg"]
    )


def test_residual_vector_is_finite_and_smaller_at_the_fitted_point():
    doc = json.loads(CALIBRATION.read_text())
    values = {n: float(p[0]) for n, p in cal.PARAMETERS.items()}
    cal._derive(doc, values)
    problem = cal.Problem(doc, values)
    prior = np.array([values[n] for n in problem.names])
    fitted_doc = json.loads(COEFF_PATH.read_text())
    fitted = np.array([fitted_doc["parameters"][n]["value"] for n in problem.names])
    r0, r1 = problem.residuals(prior), problem.residuals(fitted)
    assert np.all(np.isfinite(r0)) and np.all(np.isfinite(r1))
    assert r1.size == r0.size > len(problem.names)

    def cost(r):
        return float(np.sum(np.sqrt(1 + (r / 0.1) ** 2) - 1))  # the soft-L1 loss the fit minimises

    assert cost(r1) < cost(r0)
    assert math.isfinite(cost(r1))
