"""engine.sim.result.flat_metrics: the one mapping of a simulation summary to stored metrics (CLI and window)."""

import math

from engine.sim.result import flat_metrics


def test_percentiles_events_and_utilisation_flatten_with_units():
    m, u = flat_metrics(
        {
            "throughput_rows_per_s": 10.0,
            "end2end_latency_ms": {"mean": 5.0, "p95": 9.0},
            "events": [{"catch_up_s": 12.5, "peak_backlog_rows": None}],
            "notes": ["x"],
            "utilisation": {"qapply": 0.25},
            "rows_generated": 100,
        }
    )
    assert m == {
        "throughput_rows_per_s": 10.0,
        "end2end_latency_ms": 5.0,
        "end2end_latency_p95_ms": 9.0,
        "event1_catch_up_s": 12.5,
        "catch_up_s": 12.5,  # the longest catch-up of every event (one here)
        "qapply_utilisation_pct": 25.0,
        "rows_generated": 100.0,
    }
    assert (
        u["event1_catch_up_s"] == "s" and u["qapply_utilisation_pct"] == "%" and u["rows_generated"] == "rows"
    )


def test_scalar_latency_kept_and_non_numbers_left_out():
    m, u = flat_metrics(
        {
            "end2end_latency_ms": 7.0,
            "qlatency_ms": math.nan,
            "trans_spilled": True,
            "utilisation": {"capture": None, "apply": "busy", "channel": 0.5},
        }
    )
    assert m == {"end2end_latency_ms": 7.0, "channel_utilisation_pct": 50.0}
    assert u == {"end2end_latency_ms": "ms", "channel_utilisation_pct": "%"}
