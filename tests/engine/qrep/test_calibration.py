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
    # the DS8000 page-set read is the MQ mover's fitted model, not a value solved from one scenario
    assert not any(name.startswith("page_read_us_ds") for name in values)


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


def test_ds8000_page_set_reads_are_the_mq_movers_and_ess800_its_own_fit():
    """One physics: the Q Replication engine reads a DS8000-class page set as the MQ mover does
    (one synchronous I/O and each page's transfer, fitted on seed 003), the 2005 ESS 800 per page."""
    from engine.perf import mq_bufferpool
    from engine.perf.qrep import pipeline
    from engine.perf.qrep.coefficients import load

    c = load()
    mover = mq_bufferpool.Channel(read_ahead=False)
    for msg_bytes in (2048, 20_000, 65_536):
        pages = mq_bufferpool.pages_per_message(msg_bytes)
        assert pipeline.pageset_read_us(pages, "ds8000", c) == pytest.approx(mover.pageset_read_us(msg_bytes))
    k = mq_bufferpool.coefficients()["mover"]
    # more pages cost their transfer each; the I/O itself once
    assert pipeline.pageset_read_us(3, "ds8000", c) - pipeline.pageset_read_us(
        1, "ds8000", c
    ) == pytest.approx(2 * k["pageset_read_wait_us_per_page"])
    assert pipeline.pageset_read_us(4, "ess800", c) == pytest.approx(4 * c.page_read_us_ess800)
