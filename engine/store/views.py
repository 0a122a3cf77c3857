"""Views a user can query in DuckDB: each run on one row, with its key settings and metrics side by side.

``duckdb runs.duckdb "SELECT * FROM run_summary WHERE sweep_id = 3 ORDER BY point_index"``; the
columns are listed in ``docs/store.md``. Settings columns carry IBM's parameter names (with the
unit after the name where there is one), metric columns qrtune's metric names (unit-suffixed).
"""

from __future__ import annotations

SETTINGS_COLUMNS = (
    ("NUM_APPLY_AGENTS", "$.qapply.num_apply_agents", "BIGINT"),
    ("APPLY_MEMORY_LIMIT_MB", "$.qapply.memory_limit_mb", "DOUBLE"),
    ("TRANS_BATCH_SZ", "$.qcapture.trans_batch_sz", "BIGINT"),
    ("COMMIT_INTERVAL_ms", "$.qcapture.commit_interval_ms", "DOUBLE"),
    ("CAPTURE_MEMORY_LIMIT_MB", "$.qcapture.memory_limit_mb", "DOUBLE"),
    ("MAX_MESSAGE_SIZE_KB", "$.qcapture.max_message_size_kb", "DOUBLE"),
    ("BATCHSZ", "$.mq.batchsz", "BIGINT"),
    ("BUFFPOOL_pages", "$.mq.buffpool_pages", "BIGINT"),
    ("offered_rows_per_s", "$.workload.offered_rows_per_s", "DOUBLE"),
)
"""(view column, JSON path in the run's settings, SQL type) of the settings shown in ``run_summary``."""

METRIC_COLUMNS = (
    "apply_rows_per_s",
    "capture_rows_per_s",
    "end2end_latency_ms",
    "capture_latency_ms",
    "qlatency_ms",
    "apply_latency_ms",
    "capture_lpar_busy_pct",
    "apply_lpar_busy_pct",
    "total_cpu_us_per_row",
    "peak_backlog_rows",
    "catch_up_s",
)
"""Metrics shown in ``run_summary`` (NULL for a run whose engine does not report one)."""

METRIC_FALLBACKS = {
    "apply_rows_per_s": ("throughput_rows_per_s",),
    "catch_up_s": ("event1_catch_up_s",),
}
"""``run_summary`` column -> the metrics that stand for it in runs without it, in order: a
simulation reports the rows it applied per second as ``throughput_rows_per_s`` and the catch-up
after its first outage as ``event1_catch_up_s``."""


def _metric_sql(name: str) -> str:
    """The ``run_summary`` expression of metric column ``name`` (its first stored source)."""
    sources = [
        f"max(m.value) FILTER (WHERE m.metric = '{source}')"
        for source in (name, *METRIC_FALLBACKS.get(name, ()))
    ]
    value = sources[0] if len(sources) == 1 else f"coalesce({', '.join(sources)})"
    return f"{value} AS {name}"


def _run_settings_sql() -> str:
    return """CREATE OR REPLACE VIEW run_settings AS
        SELECT r.id AS run_id,
               CASE WHEN starts_with(r.settings_json, '{"$patch"')
                    THEN CAST(json_merge_patch(s.base_settings_json, json_extract(r.settings_json, '$."$patch"'))
                              AS VARCHAR)
                    ELSE r.settings_json END AS settings_json
        FROM runs r LEFT JOIN sweeps s ON s.id = r.sweep_id"""


def _run_summary_sql() -> str:
    settings = ",\n".join(
        f"TRY_CAST(json_extract_string(st.settings_json, '{path}') AS {sql_type}) AS {name}"
        for name, path, sql_type in SETTINGS_COLUMNS
    )
    metrics = ",\n".join(_metric_sql(name) for name in METRIC_COLUMNS)
    return f"""CREATE OR REPLACE VIEW run_summary AS
        WITH wide AS (SELECT run_id, {metrics} FROM metrics m GROUP BY run_id)
        SELECT r.id AS run_id, r.started, r.kind, r.status, r.project_name, r.scenario_kind, r.sweep_id,
               r.point_index, r.seed, r.label, r.bottleneck, r.coefficients_version,
               {settings},
               {", ".join(f"w.{name}" for name in METRIC_COLUMNS)},
               r.error
        FROM runs r JOIN run_settings st ON st.run_id = r.id LEFT JOIN wide w ON w.run_id = r.id"""


VIEW_STATEMENTS = (
    _run_settings_sql(),
    _run_summary_sql(),
    """CREATE OR REPLACE VIEW metric_units AS SELECT DISTINCT metric, unit FROM metrics ORDER BY metric""",
)
"""Statements creating the views (run by the schema migration that introduced them)."""
