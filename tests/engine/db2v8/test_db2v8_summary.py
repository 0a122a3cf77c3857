"""What changes V7 -> V8 for one subsystem: parts, relief, headroom under the 2 GB bar, CPU band, catalog time."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.perf import db2v8
from engine.predict import predict_project
from engine.scenario import project_to_scenario

SAMPLE = Path(__file__).resolve().parents[3] / "sample_runs" / "db2-v8-migration.json"

#: Seed 004, "Estimation of V8 Below 2GB DBM1 Use": system thread storage +40%, user threads +90% (the
#: Customer 1 assumption; +40% at the low end), stack +100%, EDM pool the same, RID pool -90%, others -100%.
SEED_GROWTH = {
    "system_agents": 1.4,
    "user_threads": 1.9,
    "stack_storage": 2.0,
    "edm_pool": 1.0,
    "rid_pool": 0.1,
}


def _settings(**extra):
    return {**project_to_scenario(projectfile.load(SAMPLE)), **extra}


def test_parts_follow_the_seed_rules_of_thumb():
    s = db2v8.summarise(_settings())
    v7 = _settings()["v7_measured_mb"]
    for part in s.parts:
        assert part.v7_mb == v7[part.name]
        assert part.v8_mb == pytest.approx(v7[part.name] * SEED_GROWTH.get(part.name, 0.0))
        assert part.moves_above_bar == (part.name not in SEED_GROWTH)
    assert [p.label for p in s.parts][:3] == [
        "Virtual pool",
        "Buffer control block",
        "Dataspace lookaside buffer",
    ]
    assert s.v7_total_mb == 908.0  # the seed's V7 total of Customer 1
    assert s.v8_total_mb == pytest.approx(sum(v7[k] * g for k, g in SEED_GROWTH.items()))
    assert s.v8_total_mb == pytest.approx(364, abs=3)  # the seed's table, which rounds each part, says 364 MB
    lo = sum(v7[k] * (1.4 if k == "user_threads" else g) for k, g in SEED_GROWTH.items())
    assert s.v8_total_band_mb == pytest.approx((lo, s.v8_total_mb))


def test_relief_and_headroom_under_the_bar():
    s = db2v8.summarise(_settings())
    assert s.relief_mb == pytest.approx(908.0 - s.v8_total_mb)
    assert s.relief_pct == pytest.approx(100 * s.relief_mb / 908.0)
    assert s.region_mb == db2v8.BAR_MB == 2048 and not s.region_given
    assert s.v8_headroom_mb == pytest.approx(2048 - s.v8_total_mb) and s.v7_headroom_mb == pytest.approx(1140)
    assert s.v8_fits
    tight = db2v8.summarise(_settings(extended_region_mb=360.0))  # between the band's low and high end
    assert tight.region_given and tight.v8_headroom_mb < 0 and not tight.v8_fits
    p = db2v8.predict(_settings(extended_region_mb=1600.0))
    assert p.metrics["dbm1_region_mb"] == 1600 and p.metrics["v8_headroom_mb"] == pytest.approx(
        1600 - s.v8_total_mb
    )
    lo, hi = p.bands["v8_headroom_mb"]
    assert lo == pytest.approx(1600 - s.v8_total_band_mb[1]) and hi == pytest.approx(
        1600 - s.v8_total_band_mb[0]
    )
    assert p.units["v8_headroom_mb"] == "MB" and p.units["relief_pct"] == "%"


def test_cpu_band_and_catalog_time():
    s = db2v8.summarise(_settings(workload_type="batch", v7_db2_cpu_ms_per_txn=2.0))
    assert s.workload_type == "batch" and s.cpu_change == db2v8.cpu_change_band("batch")
    assert s.v8_cpu_ms_per_txn_band == pytest.approx(
        (2.0 * (1 + s.cpu_change[0]), 2.0 * (1 + s.cpu_change[1]))
    )
    assert s.catalog_gb == 10 and s.catalog_migration_min == pytest.approx(6 + 5 * 10)  # 6 min + 5 min per GB
    bare = db2v8.summarise(_settings(catalog_gb=None))
    assert bare.catalog_migration_min is None and bare.v8_cpu_ms_per_txn_band is None


@pytest.mark.parametrize("bad", [0, -5, 2049, "1.6 GB", True])
def test_bad_extended_region_names_the_field(bad):
    with pytest.raises(FieldError, match="extended_region_mb"):
        db2v8.summarise(_settings(extended_region_mb=bad))


def test_the_project_knob_reaches_the_engine():
    project = projectfile.load(SAMPLE)
    node = project.nodes_of("db2_v8_migration")[0].id
    p = predict_project(project.with_param(node, "extended_region_mb", 1500.0))
    assert "extended_region_mb" not in p.ignored and p.metrics["dbm1_region_mb"] == 1500
    with pytest.raises(ValueError, match="extended_region_mb"):
        project.with_param(node, "extended_region_mb", 4096.0)
