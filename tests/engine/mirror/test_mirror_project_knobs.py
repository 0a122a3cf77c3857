"""Db2 Mirror knobs reach the engine from a project file (journey 7)."""

from pathlib import Path

from engine import projectfile
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"


def _pair(name):
    return projectfile.load(SAMPLES / name)


def _set_all(project, name, value):
    for node in project.nodes_of("db2_mirror_node"):
        project = project.with_param(node.id, name, value)
    return project


def test_active_active_pool_shared_with_application_beats_base():
    base = _pair("mirror-active-active.json")
    shared = _set_all(base, "memory_pool", "application")
    p_base, p_shared = predict_project(base), predict_project(shared)
    assert "hardware.source_memory_pool" not in p_base.ignored
    # 7.3.6: the replication jobs sharing the application's pool performed best
    assert p_shared.metrics["response_time_ms"] < p_base.metrics["response_time_ms"]


def test_stream_style_and_target_preload_reach_the_engine():
    p = _pair("mirror-active-passive.json")
    p = _set_all(p, "job_sets", None)
    p = _set_all(p, "api", "native")
    p = _set_all(p, "reads_for_update", True)
    batch = _set_all(p, "workload_style", "batch")
    inter = _set_all(p, "workload_style", "interactive")
    m_batch, m_inter = predict_project(batch).metrics, predict_project(inter).metrics
    assert m_batch["runtime_change_pct"] != m_inter["runtime_change_pct"]
    target = next(n for n in batch.nodes_of("db2_mirror_node") if n.params["role"] == "target")
    warm = predict_project(batch.with_param(target.id, "preload", True))
    assert warm.metrics["runtime_change_pct"] < m_batch["runtime_change_pct"]
    assert not any("preload" in s for s in warm.ignored)
