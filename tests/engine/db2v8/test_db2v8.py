"""DB2 V8 DBM1 estimator, CPU band, catalog time and page-fix advice."""

import pytest

from engine.errors import FieldError
from engine.perf import db2v8


def test_growth_by_category():
    v8 = db2v8.estimate_dbm1(
        {
            "edm_pool": 100,
            "stack_storage": 50,
            "rid_pool": 100,
            "compression_dictionary": 300,
            "user_threads": 10,
            "user_threads_count": 25,
            "total": 560,
        }
    )
    assert v8["edm_pool"] == 100 and v8["stack_storage"] == 100 and v8["compression_dictionary"] == 0
    assert v8["rid_pool"] == pytest.approx(10) and v8["user_threads"] == pytest.approx(19)
    assert "user_threads_count" not in v8 and "total" not in v8


def test_predict_total_and_band(calibration):
    s = next(x for x in calibration["scenarios"] if x["kind"] == "db2-v8-storage")
    p = db2v8.predict(s)
    lo, hi = p.bands["v8_estimated_total_mb"]
    assert lo <= p.metrics["v8_estimated_total_mb"] <= hi
    assert p.metrics["relief_mb"] > 0


def test_cpu_band_catalog_and_page_fix():
    lo, hi = db2v8.cpu_change_band("online")
    assert lo < 0 < hi
    assert db2v8.apply_cpu_band(100.0, "utility") == pytest.approx((95.0, 105.0))
    assert db2v8.catalog_migration_minutes(10) == pytest.approx(56.0)
    ranked = db2v8.page_fix_advice(
        {"BP2": {"buffers": 30000, "pages_io": 100}, "BP4": {"buffers": 5000, "pages_io": 100000}}
    )
    assert (
        [r["pool"] for r in ranked] == ["BP4", "BP2"]
        and ranked[0]["recommend"]
        and not ranked[1]["recommend"]
    )
    with pytest.raises(FieldError, match="v8_workload_type"):
        db2v8.cpu_change_band("gaming")
