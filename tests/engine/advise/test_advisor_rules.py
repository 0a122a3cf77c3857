"""Advisor rules: each fires on a configuration that needs it, stays silent on one that does not,
and its stated effect is exactly what a direct engine run of the changed project predicts."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.advise import advise, evaluate_rule
from engine.advise.mirror_mq_rules import (
    MirrorCoresRule,
    MirrorJobSetsRule,
    MirrorReadOnlyRule,
    MirrorSharedPoolRule,
    MirrorSsdRule,
    MoverBufferPoolRule,
    MoverReadAheadRule,
    PageFixRule,
)
from engine.advise.outage import outage_metrics, pool_storage_text
from engine.advise.qrep_rules import (
    ColumnSuppressionRule,
    DrainBufferPoolRule,
    FewerApplyAgentsRule,
    FewerColumnsRule,
    LargerSourceTxnRule,
    MoreApplyAgentsRule,
    NonPersistentRule,
    NonUniqueIndexRule,
    OutageBufferPoolRule,
    ReadAheadRule,
    RowLockingRule,
    TraceOffRule,
    TransBatchRule,
)
from engine.predict import predict_project


def _load(root: Path, name: str):
    return projectfile.load(root / "sample_runs" / f"{name}.json")


@pytest.fixture
def base(root):
    return _load(root, "redpaper-baseline")


def _set(project, *edits):
    for node_id, param, value in edits:
        project = project.with_param(node_id, param, value)
    return project


SRC, QC, XQ, CH, RQ, QA, TGT = (
    "ab-0-source-db2",
    "ab-1-qcapture",
    "ab-2-queue-manager",
    "ab-3-channel",
    "ab-4-queue-manager",
    "ab-5-qapply",
    "ab-6-target-db2",
)


def channel_bound(p):
    """Small OLTP messages over a slow-round-trip channel with few messages per batch."""
    return _set(
        p,
        (CH, "network_latency_ms", 5.0),
        (CH, "batchsz", 50),
        (QC, "trans_batch_sz", 1),
        (QA, "apply_lpar_cps", 8),
        (QA, "num_apply_agents", 16),
    )


def drain(p):
    return _set(
        p,
        (RQ, "run_mode", "drain"),
        (RQ, "initial_depth_msgs", 2_000_000),
        (RQ, "read_ahead", False),
        (XQ, "read_ahead", False),
    )


def log_bound(p):
    return _set(
        p,
        (SRC, "row_bytes", 4000),
        (SRC, "columns", {"CHAR(20)": 200}),
        (QC, "trans_batch_sz", 20),
        (QA, "apply_lpar_cps", 16),
        (QC, "capture_lpar_cps", 16),
        (SRC, "source_lpar_cps", 16),
    )


# (rule, makes a configuration that needs it, makes one that does not)
QREP_CASES = [
    (TransBatchRule(), channel_bound, lambda p: _set(p, (QC, "trans_batch_sz", 20))),
    (RowLockingRule(), lambda p: _set(p, (TGT, "locking", "page")), lambda p: p),
    (ColumnSuppressionRule(), lambda p: _set(p, (QA, "conflict_action", "I")), lambda p: p),
    (OutageBufferPoolRule(20.0), lambda p: p, lambda p: _set(p, (XQ, "buffpool_pages", 50_000_000))),
    (DrainBufferPoolRule(), drain, lambda p: p),
    (ReadAheadRule(), drain, lambda p: p),
    (NonUniqueIndexRule(), lambda p: _set(p, (SRC, "unique_indexes", 3)), lambda p: p),
    (
        FewerColumnsRule(),
        lambda p: p,
        lambda p: _set(p, (SRC, "columns", {"INTEGER": 4, "CHAR(20)": 4}), (SRC, "row_bytes", 96)),
    ),
    (
        LargerSourceTxnRule(),
        lambda p: p,
        lambda p: _set(
            p,
            (SRC, "rows_per_txn", 20),
            (SRC, "inserts_per_txn", 4),
            (SRC, "updates_per_txn", 12),
            (SRC, "deletes_per_txn", 4),
        ),
    ),
    (
        MoreApplyAgentsRule(),
        lambda p: _set(p, (QA, "num_apply_agents", 3)),
        lambda p: _set(p, (QA, "num_apply_agents", 16), (QC, "trans_batch_sz", 10)),
    ),
    (
        FewerApplyAgentsRule(),
        lambda p: _set(
            p,
            (QA, "apply_lpar_cps", 3),
            (QA, "num_apply_agents", 32),
            (SRC, "rows_per_txn", 20),
            (SRC, "inserts_per_txn", 4),
            (SRC, "updates_per_txn", 12),
            (SRC, "deletes_per_txn", 4),
        ),
        lambda p: p,
    ),
    (NonPersistentRule(), log_bound, lambda p: p),
    (TraceOffRule(), lambda p: _set(p, (XQ, "global_trace", True)), lambda p: p),
]


def _check_effect(rec, base_project):
    """The recommendation's numbers are a direct engine run of its changed project."""
    direct = predict_project(rec.project)
    metrics = dict(direct.metrics)
    metrics.update(outage_metrics(rec.project, metrics) if direct.kind == "qrep" else {})
    for name, value in rec.after.items():
        assert value == pytest.approx(metrics[name], rel=1e-9), name
    before = predict_project(base_project)
    bm = dict(before.metrics)
    bm.update(outage_metrics(base_project, bm) if before.kind == "qrep" else {})
    for name, value in rec.before.items():
        assert value == pytest.approx(bm[name], rel=1e-9), name
    # the targeted metric really improved by the stated amount
    b, a = bm[rec.metric], metrics[rec.metric]
    stated = (a - b) / abs(b) * 100 if rec.sense == "max" else (b - a) / abs(b) * 100
    assert rec.gain_pct == pytest.approx(stated, rel=1e-9)
    assert rec.gain_pct >= 1.0
    # the change is a real knob edit, and the project differs exactly there
    assert rec.changes
    for c in rec.changes:
        assert rec.project.node(c.node_id).params[c.param] == c.after
        assert base_project.node(c.node_id).params[c.param] == c.before
    assert rec.cost_risk and rec.seed and ".txt" in rec.seed


def _check_recommended(rule, project) -> None:
    """``rule`` applies to ``project`` and recommends a change the engine confirms."""
    pred = predict_project(project)
    assert rule.applies(project, pred)
    rec, outcome = evaluate_rule(rule, project, pred)
    assert outcome == "recommended", outcome
    _check_effect(rec, project)


@pytest.mark.parametrize("rule,needs,fine", QREP_CASES, ids=[c[0].id for c in QREP_CASES])
def test_qrep_rule_fires_when_needed_and_is_backed_by_the_engine(base, rule, needs, fine):
    _check_recommended(rule, needs(base))


@pytest.mark.parametrize("rule,needs,fine", QREP_CASES, ids=[c[0].id for c in QREP_CASES])
def test_qrep_rule_silent_when_not_needed(base, rule, needs, fine):
    project = fine(base)
    assert not rule.applies(project, predict_project(project))


def test_trans_batch_brings_messages_into_the_sweet_spot(base):
    project = channel_bound(base)
    rec, _ = evaluate_rule(TransBatchRule(), project, predict_project(project))
    assert 32.0 <= rec.after["msg_size_kb"] <= 256.0
    tb = rec.project.node(QC).params["trans_batch_sz"]
    # the smallest batch size that does it: one less leaves messages below 32 KB
    smaller = predict_project(project.with_param(QC, "trans_batch_sz", tb - 1))
    assert smaller.metrics["msg_size_kb"] < 32.0
    assert rec.after["apply_rows_per_s"] > rec.before["apply_rows_per_s"]


def test_outage_pool_is_the_smallest_that_holds_the_outage(base):
    rec, _ = evaluate_rule(OutageBufferPoolRule(20.0), base, predict_project(base))
    pages = rec.project.node(XQ).params["buffpool_pages"]
    assert rec.after["outage_held_min"] >= 20.0
    less = base.with_param(XQ, "buffpool_pages", pages - 1000)
    assert outage_metrics(less, predict_project(less).metrics)["outage_held_min"] < 20.0
    gib = pages * 4096 / 2**30  # the title says what the pool costs in storage
    assert f"{pages:,} pages ({gib:,.3g} GiB)" in rec.title


def test_pool_storage_is_told_in_mib_below_a_gib_and_in_gib_above():
    assert pool_storage_text(1000) == "3.91 MiB"
    assert pool_storage_text(262_144) == "1 GiB"
    assert pool_storage_text(8_161_000) == "31.1 GiB"


def test_column_suppression_respects_conflict_rules(base):
    forced = _set(base, (QA, "conflict_action", "F"))
    assert not ColumnSuppressionRule().applies(forced, predict_project(forced))


def _same(p):
    return p


# (rule, a configuration that needs it, one that does not)
MIRROR_CASES = [
    (
        MirrorSsdRule(),
        lambda p: _set(p, ("mirror-source", "storage", "HDD"), ("mirror-target", "storage", "HDD")),
        _same,
    ),
    (
        MirrorCoresRule(),
        lambda p: _set(p, ("mirror-source", "cores", 4)),
        lambda p: _set(p, ("mirror-source", "cores", 64)),
    ),
    (MirrorReadOnlyRule(), lambda p: _set(p, ("mirror-source", "reads_for_update", True)), _same),
    (
        MirrorJobSetsRule(),
        lambda p: _set(p, ("mirror-source", "cores", 44)),
        lambda p: _set(p, ("mirror-source", "cores", 4)),
    ),
]


@pytest.mark.parametrize(
    "rule,needs,fine", MIRROR_CASES, ids=["mirror_ssd", "mirror_cores", "mirror_read_only", "mirror_job_sets"]
)
def test_mirror_rules(root, rule, needs, fine):
    base = _load(root, "mirror-active-passive")
    quiet = fine(base)
    assert not rule.applies(quiet, predict_project(quiet))
    _check_recommended(rule, needs(base))


def test_mirror_shared_pool_puts_replication_jobs_in_the_application_pool_in_active_active(root):
    """Seed 7.3.6: active-active does best with the QDBMSRVR jobs in the application's pool."""
    rule = MirrorSharedPoolRule()
    base = _load(root, "mirror-active-active")  # both nodes *BASE, where the jobs run by default
    project = _set(
        base,
        ("mirror-source", "memory_gb", 16.0),
        ("mirror-target", "memory_gb", 16.0),
        ("mirror-target", "memory_pool", "separate"),
    )
    pred = predict_project(project)
    assert rule.applies(project, pred)
    assert "(source) *BASE, " in rule.reason(project, pred) and "(target) separate)" in rule.reason(
        project, pred
    )
    rec, outcome = evaluate_rule(rule, project, pred)
    assert outcome == "recommended", outcome
    assert {n.params["memory_pool"] for n in rec.project.nodes_of("db2_mirror_node")} == {"application"}
    assert rec.after["throughput"] > rec.before["throughput"] * 1.01
    _check_effect(rec, project)
    shared = _set(
        project,
        ("mirror-source", "memory_pool", "application"),
        ("mirror-target", "memory_pool", "application"),
    )
    assert not rule.applies(shared, predict_project(shared))
    # one node still apart from the application's pool still faults: the rule still applies
    half = _set(shared, ("mirror-target", "memory_pool", "*BASE"))
    assert rule.applies(half, predict_project(half))
    # no pool advice in the seed for active-passive
    passive = _set(_load(root, "mirror-active-passive"), ("mirror-target", "memory_pool", "separate"))
    assert not rule.applies(passive, predict_project(passive))


MQ_CASES = [
    (PageFixRule(), ("qmgr-send", "pageclas", "FIXED4KB")),
    (MoverBufferPoolRule(), ("qmgr-send", "buffpool_pages", 2_000_000)),
    (MoverReadAheadRule(), ("qmgr-send", "read_ahead", True)),
]


@pytest.mark.parametrize("rule,fix", MQ_CASES, ids=[c[0].id for c in MQ_CASES])
def test_mq_buffer_pool_rules(root, rule, fix):
    base = _load(root, "mq-buffer-pool-mover")
    pred = predict_project(base)
    assert rule.applies(base, pred)
    rec, outcome = evaluate_rule(rule, base, pred)
    assert outcome == "recommended", outcome
    _check_effect(rec, base)
    _, param, value = fix
    fine = base
    for qm in ("qmgr-send", "qmgr-recv"):
        fine = fine.with_param(qm, param, value)
    if rule.id == "read_ahead_mq":
        fine = fine.with_param("qmgr-send", "buffpool_pages", 2_000_000).with_param(
            "qmgr-recv", "buffpool_pages", 2_000_000
        )
    assert not rule.applies(fine, predict_project(fine))


def test_advise_lists_every_rule_and_sorts_by_gain(base):
    advice = advise(channel_bound(base))
    ids = [r for r, _ in advice.checked]
    assert "trans_batch_sz" in ids and "row_locking" in ids and "mirror_ssd" not in ids
    gains = [r.gain_pct for r in advice.recommendations]
    assert gains == sorted(gains, reverse=True)
    assert any(r.rule == "trans_batch_sz" for r in advice.recommendations)
    assert dict(advice.checked)["row_locking"] == "not applicable"


def test_no_gain_means_no_recommendation(base):
    """A rule whose change does not move its target metric by min_gain is reported, not recommended."""
    project = _set(base, (XQ, "global_trace", True))
    pred = predict_project(project)
    rec, outcome = evaluate_rule(TraceOffRule(), project, pred, min_gain_pct=1e6)
    assert rec is None and outcome.startswith("no gain")


def test_mover_pool_advice_holds_the_backlog_below_the_queue_managers_dwp_threshold(root):
    """The advised pool holds the peak backlog below the queue manager's DWP start threshold,
    rounded up to 1,000 pages: a lower threshold needs a larger pool for the same backlog."""
    base = _load(root, "mq-buffer-pool-mover")
    low = base
    for qm in ("qmgr-send", "qmgr-recv"):
        low = low.with_param(qm, "dwp_start_pct", 70).with_param(qm, "dwp_target_pct", [60, 70])
    for dwp_pct, project in ((85, base), (70, low)):
        pred = predict_project(project)
        backlog_pages = pred.metrics["peak_depth"] * pred.metrics["pages_per_msg"]
        pages = MoverBufferPoolRule().change(project, pred).node("qmgr-send").params["buffpool_pages"]
        assert pages % 1000 == 0 and 0 <= pages - backlog_pages * 100 / dwp_pct < 1000, dwp_pct
