"""Sweep points written column-wise (what a sweep's workers send) read back as runs recorded one by one do."""

from __future__ import annotations

import json

import numpy as np
from store_fakes import predict

from engine.errors import FieldError
from engine.store import Store, bundle_failed, bundle_from_prediction, canonical_json
from engine.store.point_columns import PointColumns
from engine.store.sweeps import encode_point_settings


def _settings(agents: int, batch: int) -> dict:
    return {"kind": "qrep", "qapply": {"num_apply_agents": agents}, "qcapture": {"trans_batch_sz": batch}}


def _bundles(sweep_id: int, indexes) -> list:
    out = []
    for i in indexes:
        settings = _settings(1 + i, 1 + i % 3)
        run = {
            "project_name": "p",
            "project_hash_": "h",
            "settings": settings,
            "kind": "sweep",
            "label": f"point {i}",
            "sweep_id": sweep_id,
            "point_index": i,
        }
        if i == 2:
            out.append(bundle_failed(error=str(FieldError("qapply.num_apply_agents", 3, "not 3")), **run))
        else:
            out.append(bundle_from_prediction(prediction=predict(settings), **run))
    return out


def _read(store, sweep_id) -> list:
    out = []
    for r in store.list_runs(sweep_id=sweep_id):
        data = store.load_run(r.id)
        out.append(
            (
                r.point_index,
                json.loads(r.settings_json),
                r.status,
                r.error,
                r.bottleneck,
                r.label,
                [(m.metric, m.value, m.unit) for m in data.metrics],
                [(x.name, x.capacity, x.utilisation, x.latency_ms, x.unit) for x in data.stages],
            )
        )
    return out


def test_columns_read_back_as_runs_recorded_one_by_one(tmp_path, baseline):
    stores = []
    for name in ("bundles", "columns"):
        s = Store.open(tmp_path / f"{name}.duckdb")
        stores.append(s)
        sweep_id = s.create_sweep("k", baseline, [], 5)
        bundles = _bundles(sweep_id, range(5))
        if name == "bundles":
            s.record_runs(bundles)
        else:
            base = json.loads(s.sweep_base_settings(sweep_id, bundles[0].run.settings_json))
            for b in bundles:
                b.run = encode_point_settings(base, b.run)
            # two batches written in one go, the later first: stored in point order all the same
            later, first = PointColumns.from_bundles(bundles[3:]), PointColumns.from_bundles(bundles[:3])
            ids = s.record_point_columns(PointColumns.concat([first, later]))
            assert ids.tolist() == [1, 2, 3, 4, 5]
            stored = s.con.execute("SELECT settings_json FROM runs WHERE point_index = 1").fetchall()[0][0]
            assert stored.startswith('{"$patch"')  # only the difference from the first point is kept
    by_bundles, by_columns = (_read(s, 1) for s in stores)
    for s in stores:
        s.close()
    assert by_columns == by_bundles
    assert [p[2] for p in by_columns] == ["ok", "ok", "failed", "ok", "ok"]
    assert by_columns[1][1] == _settings(2, 2) and by_columns[3][6][0][0] == "apply_rows_per_s"


def test_points_left_out_take_their_rows_with_them():
    points = PointColumns.from_bundles(_bundles(1, range(4)))
    assert len(points.metrics["metric"]) == 9 and len(points.stages["stage"]) == 6  # point 2 failed
    kept = points.without({1, 3})
    assert kept.index.tolist() == [0, 2]
    assert set(kept.metrics["point_index"].tolist()) == {0}
    assert kept.runs["label"].tolist() == ["point 0", "point 2"]
    assert points.without(set()) is points
    assert kept.row_positions(np.array([2, 0, 0])).tolist() == [1, 0, 0]


def test_the_gui_gets_each_point_with_its_metrics():
    points = PointColumns.from_bundles(_bundles(1, range(3)))
    runs = points.run_records([10, 11, 12])
    assert [(r.id, r.point_index, r.status) for r in runs] == [
        (10, 0, "ok"),
        (11, 1, "ok"),
        (12, 2, "failed"),
    ]
    assert runs[0].settings_json == canonical_json(_settings(1, 1))
    metrics = points.metrics_by_point()
    assert metrics[2] == {} and metrics[1]["apply_latency_ms"] == (55.0, "ms")
