"""The metric catalogue names metrics as IBM does, scales units by magnitude and knows which way is better."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.metrics import format_metric, info, knob_label, label, source_title
from engine.metrics.catalog import _ENTRIES, _KIND_ENTRIES, delta_verdict, display_scale, display_value


@pytest.mark.parametrize(
    "name, ibm",
    [
        ("end2end_latency_ms", "END2END_LATENCY"),
        ("capture_latency_ms", "CAPTURE_LATENCY"),
        ("qlatency_ms", "QLATENCY"),
        ("apply_latency_ms", "APPLY_LATENCY"),
        ("apply_rows_per_s", "ROWS_APPLIED"),
        ("capture_rows_per_s", "ROWS_PROCESSED"),
    ],
)
def test_monitor_columns_are_labelled_with_ibm_names(name, ibm):
    assert label(name) == ibm
    assert info(name).source.endswith("." + ibm)


def test_derived_names_follow_their_base_entry():
    assert label("system2_apply_cpu_us_per_row") == "System 2: Q Apply CPU per row"
    assert info("system2_apply_cpu_us_per_row").better == -1
    assert label("end2end_latency_p95_ms") == "END2END_LATENCY p95"
    assert label("event1_catch_up_s") == "Event 1: Catch-up time"
    assert info("qapply_agents_utilisation_pct").unit == "%"
    assert label("some_new_figure_ms") == "Some new figure ms" and info("some_new_figure_ms").unit == ""


def test_units_scale_by_magnitude():
    assert display_value(1.2e6, "ms") == pytest.approx((20.0, "min"))
    assert display_value(8.05, "ms") == pytest.approx((8.05, "ms"))
    assert display_value(2500.0, "ms") == pytest.approx((2.5, "s"))
    assert display_value(3 * 1024 * 1024, "KB") == pytest.approx((3.0, "GB"))
    assert display_value(42.0, "rows/s") == (42.0, "rows/s")
    assert display_scale(float("nan"), "ms") == (1.0, "ms")
    assert format_metric("end2end_latency_ms", 1.2e6) == "20.0 min"
    assert format_metric("in_flight_drain_s", 0.64) == "0.64 s"


def test_better_direction_colours_deltas():
    assert delta_verdict("apply_rows_per_s", 12.0) == 1
    assert delta_verdict("end2end_latency_ms", 12.0) == -1
    assert delta_verdict("msg_size_kb", 50.0) == 0
    assert delta_verdict("apply_rows_per_s", None) == 0


@pytest.mark.parametrize(
    "key, shown",
    [
        ("memory_limit_mb", "MEMORY_LIMIT"),
        ("commit_interval_ms", "COMMIT_INTERVAL"),
        ("buffpool_pages", "BUFFPOOL"),
        ("trans_batch_sz", "TRANS_BATCH_SZ"),
        ("num_apply_agents", "NUM_APPLY_AGENTS"),
        ("commit_count", "COMMIT_COUNT"),
        ("apply_lpar_cps", "Apply LPAR processors"),
    ],
)
def test_knobs_show_ibm_parameter_names_without_unit_suffixes(key, shown):
    assert knob_label(key) == shown


def test_every_registry_knob_label_is_free_of_unit_suffixes():
    from engine.registry import KINDS

    for kind in KINDS.values():
        for spec in kind.params:
            text = knob_label(spec.name)
            assert not text.upper().endswith(("_MB", "_MS", "_PAGES", "_CPS", "_PCT", "_KB")), (kind.id, text)


def test_sources_are_shown_by_title():
    assert source_title("000_b67a63c5fea2a7a6.txt, Table 4-3") == (
        "Redpaper: Q Replication for z/OS performance study, Table 4-3"
    )
    assert (
        source_title(
            "002_4094ace59eb76d2a.txt (Db2 Mirror for i: Performance Considerations, 2020), Case Study #1"
        )
        == "Db2 Mirror for i: Performance Considerations, 2020, Case Study #1"
    )
    assert ".txt" not in source_title("004_ffcf34fd6a8d592a.txt")


@pytest.mark.parametrize(
    "value, text",
    [
        (43404.2, "43,404"),
        (580.06, "580.1"),
        (5.8183, "5.82"),
        (0.12345, "0.123"),
        (0.0041, "0.0041"),
        (0.0, "0"),
        (-1234.5, "-1,234"),
        (240000, "240,000"),
        (float("inf"), "unbounded"),
        (float("nan"), "-"),
        (None, "-"),
    ],
)
def test_every_view_prints_a_number_one_way(value, text):
    from engine.metrics.catalog import format_number

    assert format_number(value) == text


@pytest.mark.parametrize(
    "name, share",
    [
        ("apply_lpar_busy_pct", True),
        ("system2_busiest_lpar_busy_pct", True),
        ("target_cpu_pct", True),
        ("qapply_agents_utilisation_pct", True),
        ("cpu_change_pct", False),
        ("throughput_change_pct", False),
    ],
)
def test_shares_of_a_whole_are_known(name, share):
    from engine.metrics.catalog import is_share_pct

    assert is_share_pct(name) is share


def test_a_key_whose_meaning_depends_on_the_engine_is_labelled_by_kind():
    """Q Capture's published transactions are TRANS_PUBLISHED; a Db2 Mirror pair's are the application's."""
    assert label("tps") == label("tps", "qrep") == "TRANS_PUBLISHED"
    assert label("tps", "db2mirror") == "Transactions" and info("tps", "db2mirror").source == ""
    assert label("response_time_ms", "db2mirror") == label("response_time_ms")


def test_a_db2_mirror_report_uses_no_q_replication_names():
    from engine import projectfile
    from engine.predict import predict_project
    from engine.report.build import group_metrics

    root = Path(__file__).resolve().parents[3]
    pred = predict_project(projectfile.load(root / "sample_runs" / "mirror-active-active.json"))
    labels = {
        row.metric: row.label
        for g in group_metrics(pred.metrics, pred.units, pred.bands, pred.kind)
        for row in g.rows
    }
    assert labels["tps"] == "Transactions" and "source transactions" not in labels.values()


@pytest.mark.parametrize(
    "key, text",
    [
        ("v8_edm_pool_mb", "V8 EDM pool"),
        ("v8_rds_op_pool_mb", "V8 RDS OP pool"),
        ("dbm1_region_mb", "DBM1 region"),
        ("dwp_cpu_us_per_msg", "DWP CPU per message"),
        ("csa_per_connection_kb", "CSA per connection"),
        ("relief_mb", "DBM1 storage relief"),
        ("relief_pct", "DBM1 storage relief, share of V7"),
    ],
)
def test_a_derived_label_writes_ibm_acronyms_in_capitals(key, text):
    assert label(key) == text


def test_every_megabyte_metric_states_its_bytes():
    entries = list(_ENTRIES.items()) + [item for kind in _KIND_ENTRIES.values() for item in kind.items()]
    megabytes = {name: (e[1], e[5]) for name, e in entries if "MB" in e[1] or "MiB" in e[1]}
    assert {"channel_mb_per_s", "apply_mb_per_s", "transfer_mb_per_s"} <= set(megabytes)
    for name, (unit, description) in megabytes.items():
        if "MiB" in unit:
            assert "1 MiB = 2^20 bytes" in description, name
        else:
            assert "10^6 bytes" in description or "2^20 bytes" in description, name
