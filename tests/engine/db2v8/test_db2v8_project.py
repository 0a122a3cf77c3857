"""The DB2 V8 migration sample project: storage, CPU band and catalog time from a project file."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.perf import db2v8
from engine.predict import predict_project
from engine.scenario import project_to_scenario

SAMPLE = Path(__file__).resolve().parents[3] / "sample_runs" / "db2-v8-migration.json"


def test_sample_predicts_storage_catalog_and_band():
    project = projectfile.load(SAMPLE)
    p = predict_project(project)
    # only the V7 counts and total, which are not storage parts, each with its reason
    assert all(k.endswith(("_count", ".total")) and p.ignored_reasons[k] for k in p.ignored)
    assert p.metrics["v8_estimated_total_mb"] < p.metrics["v7_total_mb"]
    # the seed's rule of thumb: 6 min + 5 min/GB, "roughly 1 hour" for 10 GB
    assert p.metrics["catalog_migration_min"] == pytest.approx(db2v8.catalog_migration_minutes(10.0))
    assert 45 <= p.metrics["catalog_migration_min"] <= 70
    assert "v8_db2_cpu_ms_per_txn" not in p.metrics
    node = project.nodes_of("db2_v8_migration")[0]
    with_cpu = project.with_param(node.id, "v7_db2_cpu_ms_per_txn", 2.0).with_param(
        node.id, "workload_type", "batch"
    )
    q = predict_project(with_cpu)
    lo, hi = db2v8.apply_cpu_band(2.0, "batch")
    assert q.bands["v8_db2_cpu_ms_per_txn"] == pytest.approx((lo, hi))
    assert lo <= q.metrics["v8_db2_cpu_ms_per_txn"] <= hi


def test_bad_optional_settings_name_the_field():
    s = project_to_scenario(projectfile.load(SAMPLE))
    with pytest.raises(FieldError, match="catalog_gb"):
        db2v8.predict({**s, "catalog_gb": -1})
    with pytest.raises(FieldError, match="workload_type"):
        db2v8.predict({**s, "workload_type": "nightly"})
