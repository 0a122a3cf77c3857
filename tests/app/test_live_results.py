"""A knob change re-predicts at once: charts, headline and canvas colours follow the engine."""

import numpy as np
import pytest

from app.stages import kinds_of_stage, node_loads
from engine import templates
from engine.perf.result import Prediction, StageResult


def qapply_id(window):
    return window.document.project.nodes_of("qapply")[0].id


def test_prediction_updates_the_charts_and_the_canvas(fake_engine, window):
    window.live.update()
    res = window.results
    assert res.prediction is not None and res.message.isHidden()
    # default 16 agents: apply capacity 12800 rows/s, channel 3000 rows/s -> channel bound
    assert res.prediction.bottleneck == "mq_channel"
    assert list(res.stage_chart.names) == ["qcapture", "mq_channel", "qapply_agents"]
    assert res.stage_chart.utilisation_pct[1] == pytest.approx(100.0)
    channel = window.document.project.nodes_of("channel")[0].id
    assert window.scene.nodes[channel].bottleneck
    assert not window.scene.nodes[qapply_id(window)].bottleneck

    # a knob change: 2 agents -> 1600 rows/s, Q Apply becomes the bottleneck, latency bar grows
    window.document.set_param(qapply_id(window), "num_apply_agents", 2)
    assert res.prediction.bottleneck == "qapply_agents"
    assert res.prediction.metrics["apply_rows_per_s"] == 1600.0
    assert "1,600" in res.headline.text() and "Q Apply agents" in res.headline.text()
    np.testing.assert_allclose(res.latency_chart.values, [[100.0, 50.0, 2000.0]])
    bar = res.latency_chart.bars[2]
    assert bar.opts["width"][0] == pytest.approx(2000.0) and bar.opts["x0"][0] == pytest.approx(150.0)
    assert window.scene.nodes[qapply_id(window)].bottleneck
    assert window.scene.nodes[qapply_id(window)].utilisation == pytest.approx(1.0)
    assert not window.scene.nodes[channel].bottleneck
    assert res.cpu_chart.categories == ["capture", "apply"]
    rows = {res.table.item(r, 0).text(): res.table.item(r, 1).text() for r in range(res.table.rowCount())}
    assert rows["ROWS_APPLIED"] == "1,600"  # the catalogue's IBM column name, not the engine key

    # undo goes back to the channel-bound prediction
    window.document.undo_stack.undo()
    assert res.prediction.bottleneck == "mq_channel"


def test_moving_a_node_does_not_re_run_the_engine(fake_engine, window, monkeypatch):
    window.live.update()
    calls = []
    import app.live

    monkeypatch.setattr(app.live, "predict_settings", lambda s: calls.append(s) or fake_engine(s))
    node = window.document.project.nodes[0]
    window.document.move_nodes({node.id: (node.x + 5, node.y)})
    assert calls == [] and window.results.prediction is not None
    window.document.set_param(qapply_id(window), "num_apply_agents", 3)
    assert len(calls) == 1


def test_incomplete_topology_shows_the_message(fake_engine, window):
    channel = window.document.project.nodes_of("channel")[0].id
    window.document.remove_items([channel])
    res = window.results
    assert res.prediction is None and not res.message.isHidden()
    assert "needs 1 complete flow" in res.message.text()
    assert res.table.rowCount() == 0 and len(res.stage_chart.names) == 0
    assert all(item.utilisation is None for item in window.scene.nodes.values())
    window.document.undo_stack.undo()
    assert res.prediction is not None


def test_missing_engine_or_engine_bug_is_a_message_not_a_crash(window, monkeypatch):
    import app.live

    def broken(settings):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(app.live, "predict_settings", broken)
    window.live.settings = None
    window.live.update(wait=True)  # without waiting, a first use only starts importing the engine
    assert "ZeroDivisionError" in window.results.message.text()


def test_stage_names_map_to_node_kinds():
    assert kinds_of_stage("qapply_agents") == ("qapply",)
    assert kinds_of_stage("mq_channel") == ("channel",)
    assert kinds_of_stage("mirror_link") == ("roce_link",)
    assert kinds_of_stage("target_db2") == ("target_db2",)
    assert kinds_of_stage("nonsense") == ()
    # the Q Replication engine's stage vocabulary
    assert kinds_of_stage("source_cpu") == ("source_db2", "mq_application")
    assert kinds_of_stage("capture_cpu") == ("qcapture",)
    assert kinds_of_stage("apply_mq_log") == ("queue_manager",)
    assert kinds_of_stage("qapply_browser") == ("qapply",)
    p = templates.bidirectional()
    pred = Prediction(
        "qrep", {}, {}, (StageResult("mq_log", 1, 0.5), StageResult("qapply_cpu", 1, 0.9)), "qapply_cpu"
    )
    loads = node_loads(p, pred)
    # both flows' Q Apply nodes carry the stage; the sending queue managers carry the MQ log
    assert {n for n, load in loads.items() if load.bottleneck} == {n.id for n in p.nodes_of("qapply")}
    xmit = {n for n, load in loads.items() if "mq_log" in load.stages}
    assert xmit == {"ab-2-queue-manager", "ba-2-queue-manager"}
    recv = node_loads(p, Prediction("qrep", {}, {}, (StageResult("apply_mq_log", 1, 0.5),), None))
    assert set(recv) == {"ab-4-queue-manager", "ba-4-queue-manager"}
    m = templates.db2_mirror_pair()
    loads = node_loads(m, Prediction("db2mirror", {}, {}, (StageResult("mirror_target_io", 1, 0.7),), None))
    assert set(loads) == {"mirror-target"}


def test_first_prediction_of_an_engine_not_yet_imported_is_deferred(qtbot, monkeypatch, tmp_path):
    import sys

    from app.document import Document
    from app.live import LivePredictor
    from engine.perf import ENGINE_MODULES

    (tmp_path / "qrtune_lazy_fake_engine.py").write_text(
        "from engine.perf.result import Prediction\n"
        "def predict(settings):\n"
        "    return Prediction('qrep', {'apply_rows_per_s': 42.0}, {}, (), None)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ENGINE_MODULES, "qrep", "qrtune_lazy_fake_engine")
    monkeypatch.delitem(sys.modules, "qrtune_lazy_fake_engine", raising=False)
    live = LivePredictor(Document(templates.unidirectional()))
    loading = []
    live.loading.connect(loading.append)
    with qtbot.waitSignal(live.predicted, timeout=3000) as sig:
        live.update()
        assert live.prediction is None and loading == ["Loading the qrep engine..."]
    assert sig.args[1].metrics == {"apply_rows_per_s": 42.0}
    assert "qrtune_lazy_fake_engine" in sys.modules
