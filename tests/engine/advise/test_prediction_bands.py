"""Prediction bands: measured coverage on the calibration set, run-time fallback after a refit,
the DB2 V8 CPU widening, and bands in `qrtune predict --json`."""

import json
import math

import pytest

from engine import projectfile
from engine.metrics import bands
from engine.predict import predict_project, predict_settings


@pytest.fixture(scope="module")
def coverage():
    return bands.measure_coverage()


def test_bands_hold_about_80_percent_of_published_values(coverage):
    """Computed by running every calibration scenario, never a stored number."""
    total = bands.overall(coverage)
    assert total.n >= 300
    assert 0.70 <= total.coverage <= 0.92, bands.coverage_text(coverage)


def test_well_sampled_metrics_hold_their_coverage(coverage):
    for c in coverage.values():
        if c.n >= 20:
            assert 0.6 <= c.coverage <= 1.0, (c.metric, c.inside, c.n)


def test_fitted_document_states_coverage_it_measured():
    doc = bands.fit_bands()
    m = doc["measured"]
    assert 0.75 <= m["in_sample"] <= 0.95
    assert 0.65 <= m["leave_one_out"] <= m["in_sample"] + 1e-9
    assert doc["coverage"] == bands.COVERAGE


def test_wider_coverage_gives_wider_bands():
    f80, f95 = bands.summary_factors("qrep", 0.80), bands.summary_factors("qrep", 0.95)
    assert f80 and all(f95[k] >= f80[k] for k in f80)


def test_refit_falls_back_to_the_coefficient_file_residuals(monkeypatch, calibration):
    sc = next(s for s in calibration["scenarios"] if s["kind"] == "qrep")
    fitted = predict_settings(sc).bands
    monkeypatch.setattr(bands, "coefficients_version", lambda kind: "a-new-refit")
    assert bands.band_source("qrep") == "summary"
    fallback = predict_settings(sc).bands
    assert set(fallback) >= {"apply_rows_per_s", "end2end_latency_ms"}
    summary = bands.summary_factors("qrep")
    v = predict_settings(sc).metrics["apply_rows_per_s"]
    assert fallback["apply_rows_per_s"][1] == pytest.approx(v * summary["apply_rows_per_s"])
    assert fitted  # and the fitted bands existed before


def test_band_contains_the_prediction(calibration):
    for sc in calibration["scenarios"]:
        if sc["kind"] != "qrep":
            continue
        p = predict_settings(sc)
        for name, (lo, hi) in p.bands.items():
            assert lo <= p.metrics[name] <= hi


def test_v8_migration_widens_apply_cpu_band(root):
    from engine.perf.db2v8 import apply_cpu_band

    project = projectfile.load(root / "sample_runs" / "redpaper-baseline.json")
    plain = predict_project(project)
    migrated = predict_project(
        project.with_param("ab-6-target-db2", "v8_migration", True).with_param(
            "ab-6-target-db2", "v8_workload_type", "batch"
        )
    )
    lo, hi = plain.bands["apply_cpu_us_per_row"]
    lo8, hi8 = migrated.bands["apply_cpu_us_per_row"]
    assert lo8 == pytest.approx(min(lo, apply_cpu_band(lo, "batch")[0]))
    assert hi8 == pytest.approx(max(hi, apply_cpu_band(hi, "batch")[1]))
    assert hi8 - lo8 > hi - lo
    assert migrated.bands["apply_lpar_busy_pct"][1] <= 100.0
    assert migrated.bands["end2end_latency_ms"] == plain.bands["end2end_latency_ms"]


def test_predict_json_carries_bands(root, capsys):
    from engine.cli import main

    assert main(["predict", str(root / "sample_runs" / "redpaper-baseline.json"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lo, hi = doc["bands"]["apply_rows_per_s"]
    assert lo < doc["metrics"]["apply_rows_per_s"] < hi
    assert math.isfinite(lo) and math.isfinite(hi)


def test_coverage_statement_follows_the_band_source(monkeypatch):
    text = bands.coverage_statement("qrep")
    if bands.band_source("qrep") == "fitted":
        assert "published qrep values" in text and "%" in text
    else:  # the qrep coefficients were refitted after bands.json
        assert "residual summary" in text
    monkeypatch.setattr(bands, "coefficients_version", lambda kind: "a-new-refit")
    assert "residual summary in qrep.json" in bands.coverage_statement("qrep")
