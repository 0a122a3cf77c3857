"""A report of a stored simulation draws its series over time as the Simulation tab does (one description)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from store_runs import record_simulated

from engine import templates
from engine.report.build import runs_from_store
from engine.store import Store


def test_a_stored_simulation_s_report_charts_its_series_with_the_outage_shaded(tmp_path, qapp, monkeypatch):
    from app.report.compose import simulation_blocks

    t = np.arange(0.0, 1800.0, 60.0)
    with Store.open(tmp_path / "runs.duckdb") as store:
        run_id = record_simulated(
            store,
            templates.unidirectional(),
            {"throughput_rows_per_s": 100.0, "xmitq_buffer_msgs": 5000.0},
            {"throughput_rows_per_s": "rows/s", "xmitq_buffer_msgs": "messages"},
            timeseries={"xmitq.depth_msgs": (t, t * 10), "qapply.rows_per_s": (t, np.full_like(t, 90.0))},
            seed=1,
            settings={"kind": "qrep", "simulation": {"events": ["channel-stop@2m+20m", "not an event"]}},
        )
        (run,) = runs_from_store(store, [run_id])
    assert set(run.timeseries) == {"xmitq.depth_msgs", "qapply.rows_per_s"}
    assert run.events == (("channel_stop", 120.0, 1320.0),)  # one the engine cannot read is left out
    from app.report import compose

    drawn = []
    charts = compose.simulation_charts
    monkeypatch.setattr(compose, "simulation_charts", lambda *a: drawn.append(charts(*a)) or drawn[-1])
    blocks = simulation_blocks(run)
    assert "Over simulated time" in blocks[0].html
    assert len(blocks) == 3  # the depth and rate charts, no empty ones
    assert [line.at for line in drawn[0]["depth"].hlines] == [5000.0]  # the buffer pool the run recorded
    assert simulation_blocks(replace(run, timeseries={})) == []  # a prediction: none
