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


def test_target_preload_reaches_the_engine_and_the_style_is_reported():
    p = _pair("mirror-active-passive.json")
    p = _set_all(p, "job_sets", None)
    p = _set_all(p, "api", "native")
    p = _set_all(p, "reads_for_update", True)
    batch = _set_all(p, "workload_style", "batch")
    inter = _set_all(p, "workload_style", "interactive")
    p_batch = predict_project(batch)
    # one application profile: the style is a label, reported in ignored with the reason
    assert p_batch.metrics == predict_project(inter).metrics
    assert "one application profile" in p_batch.ignored_reasons["workload.style"]
    target = next(n for n in batch.nodes_of("db2_mirror_node") if n.params["role"] == "target")
    warm = predict_project(batch.with_param(target.id, "preload", True))
    assert warm.metrics["runtime_change_pct"] < p_batch.metrics["runtime_change_pct"]
    assert "hardware.target_preload" not in warm.ignored


def test_active_active_reads_both_nodes_memory_and_preload():
    p = _set_all(_pair("mirror-active-active.json"), "reads_for_update", True)
    source = next(n for n in p.nodes_of("db2_mirror_node") if n.params["role"] == "source")
    base = predict_project(p).metrics["response_time_ms"]
    small = predict_project(p.with_param(source.id, "memory_gb", 64.0)).metrics["response_time_ms"]
    warm = predict_project(p.with_param(source.id, "preload", True)).metrics["response_time_ms"]
    assert small > base > warm


def test_memory_pool_must_be_one_of_the_documented_values():
    import pytest

    from engine.errors import FieldError
    from engine.perf import mirror

    with pytest.raises(FieldError, match="target_memory_pool"):
        mirror.parse_settings({"kind": "db2mirror", "hardware": {"target_memory_pool": "same as app"}})


def test_active_active_nodes_spin_on_their_own_idle_cores():
    """Each node of an active-active pair carries half of both sides' work and polls for RDMA
    completions on its own idle cores: the node with fewer cores is busier, below its capacity
    while the pair is not CPU bound, and both nodes match when their cores do."""
    base = _pair("mirror-active-active.json")
    cores = {n.id: n.params["cores"] for n in base.nodes_of("db2_mirror_node")}
    assert len(set(cores.values())) == 2  # the sample's nodes differ (25 and 11 cores)
    m = predict_project(base).metrics
    assert m["source_cpu_pct"] < m["target_cpu_pct"] < 100.0
    even = _set_all(base, "cores", max(cores.values()))
    m_even = predict_project(even).metrics
    assert abs(m_even["source_cpu_pct"] - m_even["target_cpu_pct"]) < 1e-9
