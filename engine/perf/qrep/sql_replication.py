"""SQL Replication, the staging-table baseline Q Replication is compared with (seed 001).

SQL Capture reads the same log as Q Capture but, instead of putting MQ messages, inserts each
change into a change-data (CD) staging table and commits every COMMIT_INTERVAL; Apply, a
single program per subscription set on the target, fetches the CD rows over a database
connection (DRDA block fetch) each cycle and applies them row by row, and the CD rows are
pruned (deleted) once applied. The mechanisms, per replicated row, on the flow's own cost
model (:mod:`engine.perf.qrep.costs`, reference-CPU microseconds):

* **Source LPAR.** The workload; SQL Capture's log read (Q Capture's reader cost), the CD
  insert (``sql_cd_insert_share`` of the workload's own cost of changing the row), the
  pruning delete (``sql_prune_share`` of it) and the server side of Apply's block fetch
  (``sql_fetch_row_us``). This is why the seed finds the source CPU per row about three
  times Q Replication's.
* **Source Db2 log.** The CD insert and the prune are logged like the application's change:
  three log records per row (the seed: "potentially tripling the write activity to the DB2
  log"), ``row bytes + db2_log_record_bytes`` each, at ``db2_log_mb_s``.
* **SQL Capture.** One thread reading the log and inserting into the CD table.
* **Apply.** One thread: fetch (``sql_fetch_row_us``), the target insert (Q Apply's Db2 SQL
  cost per row) and Apply's own row handling, plus ``sql_apply_row_wait_us`` of synchronous
  waits per row (fitted by ``python -m engine.calibrate.topologies`` to the seed's
  SQL-versus-Q throughput relation). No parallel agents: this single thread is what makes Q
  Replication about three times faster for the seed's workload.
* **Latency.** CAPTURE_LATENCY: a change is read after half a SLEEP_INTERVAL (and SQL
  Capture's queueing). The time in the CD staging table (reported as QLATENCY, the time
  between the two programs): visible at SQL Capture's next commit (half a COMMIT_INTERVAL),
  then fetched at Apply's next cycle; the cycle is Apply's interval
  (``sql_apply.sleep_minutes``) plus ``sql_apply_cycle_ms`` of overhead, stretched by the time
  spent applying, ``T = (interval + overhead) / (1 - rho)``, and a row waits half of it.
  APPLY_LATENCY: its place in the cycle's apply, half of ``rho T``.

Stages: ``source_workload``, ``source_cpu`` (and ``capture_cpu`` when SQL Capture runs on
another LPAR), ``sql_capture``, ``source_db2_log``, ``sql_apply``, ``apply_cpu``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from engine.limit import resource_bottleneck
from engine.perf.qrep.costs import static_demands
from engine.perf.qrep.geometry import message_geometry
from engine.perf.qrep.pipeline import cpu_model_time_factor
from engine.perf.qrep.platforms import FlowPlatform
from engine.perf.qrep.queueing import RHO_CAP, cpu_inflation
from engine.perf.result import Prediction, StageResult
from engine.settings import unused_settings

#: Db2 log records per replicated row: the application's change, the CD insert, the prune delete.
LOG_RECORDS_PER_ROW = 3
#: Bisection steps of the throughput fixed point (relative precision 2**-60).
_BISECTION_STEPS = 60


@dataclass(frozen=True)
class SqlSolution:
    """SQL Replication at steady state (rates rows/s, times ms, CPU us per row)."""

    rows_per_s: float
    offered_rows_per_s: float
    overloaded: bool
    stages: tuple
    bottleneck: str
    capture_latency_ms: float
    staging_latency_ms: float
    apply_latency_ms: float
    capture_cpu_us_per_row: float
    apply_cpu_us_per_row: float
    source_lpar_busy: float
    apply_lpar_busy: float
    db2_log_mb_per_s: float

    @property
    def end2end_latency_ms(self) -> float:
        """Source commit to target commit (ms)."""
        return self.capture_latency_ms + self.staging_latency_ms + self.apply_latency_ms


class _SqlFlow:
    """Rate-independent demands of one SQL Replication flow and its stages at a rate."""

    def __init__(self, inp, c, k):
        self.inp, self.c, self.k = inp, c, k
        q_like = dataclasses.replace(inp, topology="unidirectional")
        g = message_geometry(q_like, c)
        d = static_demands(q_like, g, c)
        self.t = cpu_model_time_factor(inp, c)
        self.platform = FlowPlatform(inp.platform, self.t)  # Linux/UNIX/Windows cores vs z/OS CPs
        self.source_ref_us = d.source_row_us
        self.capture_thread_ref_us = d.capture_reader_row_us + k.sql_cd_insert_share * d.source_sql_row_us
        self.capture_ref_us = (
            self.capture_thread_ref_us + k.sql_prune_share * d.source_sql_row_us + k.sql_fetch_row_us
        )
        self.apply_ref_us = (
            k.sql_fetch_row_us + d.apply_sql_row_us + d.apply_other_row_us + d.apply_agent_row_us
        )
        self.log_bytes_per_row = LOG_RECORDS_PER_ROW * (inp.row_bytes + k.db2_log_record_bytes)
        if inp.capture_colocated_with_source:
            self.lpars = [("source_cpu", inp.source_lpar_cps, "SC"), ("apply_cpu", inp.apply_lpar_cps, "A")]
        else:
            self.lpars = [
                ("source_cpu", inp.source_lpar_cps, "S"),
                ("capture_cpu", inp.capture_lpar_cps, "C"),
                ("apply_cpu", inp.apply_lpar_cps, "A"),
            ]

    def _lpar(self, cps: int, roles: str, rows_per_s: float) -> tuple[float, float, float]:
        """(busy share, CPU inflation, capacity rows/s) of one LPAR at ``rows_per_s``."""
        c = self.c
        ref_us = sum(
            us
            for role, us in zip("SCA", (self.source_ref_us, self.capture_ref_us, self.apply_ref_us))
            if role in roles
        )
        time_factor = self.t * (1.0 + c.mp_loss * (cps - 1)) * self.platform.speed(roles)
        busy = (rows_per_s * ref_us * 1e-6 + c.lpar_base_cps) * time_factor / cps
        free_cps = max(cps / time_factor - c.lpar_base_cps, 1e-12)
        return busy, cpu_inflation(cps, busy, c.contention_kappa), free_cps * 1e6 / ref_us

    def stages_at(self, rows_per_s: float) -> tuple[list, dict, dict]:
        """(stages as (name, capacity, servers, service ms), inflation by role, busy by LPAR name)."""
        inflation, busy, caps = {}, {}, []
        for name, cps, roles in self.lpars:
            b, f, cap = self._lpar(cps, roles, rows_per_s)
            busy[name] = b
            inflation.update(dict.fromkeys(roles, f))
            caps.append((name, cap, cps, 0.0))
        capture_us = self.capture_thread_ref_us * self.t * self.platform.speed("C") * inflation["C"]
        apply_us = (
            self.apply_ref_us * self.t * self.platform.speed("A") * inflation["A"]
            + self.k.sql_apply_row_wait_us
        )
        caps += [
            ("sql_capture", 1e6 / capture_us, 1, capture_us / 1000.0),
            ("source_db2_log", self.k.db2_log_mb_s * 1e6 / self.log_bytes_per_row, 1, 0.0),
            ("sql_apply", 1e6 / apply_us, 1, apply_us / 1000.0),
        ]
        return caps, inflation, busy

    def demand(self, inflation_source: float) -> float:
        """Rows/s the workload offers (``inf`` when driven to the maximum)."""
        inp = self.inp
        if inp.jobs is not None:
            response_ms = inp.rows_per_txn * self.source_ref_us * self.t * inflation_source / 1000.0
            return (
                inp.jobs
                * inp.rows_per_txn
                * 1000.0
                / (inp.think_time_ms + response_ms + self.c.src_commit_ms)
            )
        return math.inf if inp.offered_rows_per_s is None else inp.offered_rows_per_s


def _throughput(flow: _SqlFlow) -> float:
    """The fixed point ``X = min(demand(X), u * min capacity(X))`` by bisection (rows/s)."""
    driven = flow.inp.jobs is None and flow.inp.offered_rows_per_s is None
    share = flow.c.max_drive_utilisation if driven else 1.0

    def limit(x: float) -> float:
        caps, inflation, _ = flow.stages_at(x)
        return min(flow.demand(inflation["S"]), share * min(cap for _, cap, _, _ in caps))

    lo, hi = 0.0, limit(0.0)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if limit(mid) >= mid else (lo, mid)
    return lo


def _stage(name: str, capacity: float, rows_per_s: float, servers: int, service_ms: float) -> StageResult:
    """A stage at ``rows_per_s``: utilisation, and a single thread's M/M/1 time (0 for the others)."""
    rho = min(rows_per_s / capacity, 1.0) if capacity > 0 else 1.0
    single = servers == 1 and service_ms > 0
    return StageResult(
        name, capacity, rho, "rows/s", service_ms / (1.0 - min(rho, RHO_CAP)) if single else 0.0
    )


def solve(inp, c, k) -> SqlSolution:
    """Solve SQL Replication for validated Q Replication inputs.

    Parameters
    ----------
    inp : QrepInputs
        The workload, table, hardware and Q Capture cycles (SLEEP_INTERVAL, COMMIT_INTERVAL)
        apply to SQL Capture; ``inp.topo.sql_apply_interval_s`` is Apply's interval.
    c : Coefficients
        Q Replication coefficients (shared cost model).
    k : TopologyCoefficients
        SQL Replication coefficients.
    """
    flow = _SqlFlow(inp, c, k)
    x = _throughput(flow)
    caps, inflation, busy = flow.stages_at(x)
    demand = flow.demand(inflation["S"])
    stages = [_stage(name, cap, x, servers, ms) for name, cap, servers, ms in caps]
    if math.isfinite(demand):
        stages.insert(0, _stage("source_workload", demand, x, 1, 0.0))
    limiting = min(stages, key=lambda st: st.capacity)
    by_name = {st.name: st for st in stages}
    capture, apply = by_name["sql_capture"], by_name["sql_apply"]
    rho_apply = min(apply.utilisation, RHO_CAP)
    cycle_ms = (inp.topo.sql_apply_interval_s * 1000.0 + k.sql_apply_cycle_ms) / (1.0 - rho_apply)
    t_cap = flow.t * (1.0 + c.mp_loss * (inp.source_lpar_cps - 1)) * flow.platform.speed("C")
    t_app = flow.t * (1.0 + c.mp_loss * (inp.apply_lpar_cps - 1)) * flow.platform.speed("A")
    return SqlSolution(
        rows_per_s=x,
        offered_rows_per_s=demand,
        overloaded=math.isfinite(demand) and demand > limiting.capacity * (1.0 + 1e-9),
        stages=tuple(stages),
        bottleneck=limiting.name,
        capture_latency_ms=inp.sleep_interval_ms / 2.0 + capture.latency_ms,
        staging_latency_ms=(inp.commit_interval_ms + cycle_ms) / 2.0,
        apply_latency_ms=cycle_ms / 2.0 * rho_apply,
        capture_cpu_us_per_row=flow.capture_ref_us * t_cap,
        apply_cpu_us_per_row=flow.apply_ref_us * t_app,
        source_lpar_busy=busy["source_cpu"],
        apply_lpar_busy=busy["apply_cpu"],
        db2_log_mb_per_s=x * flow.log_bytes_per_row / 1e6,
    )


def metrics(sol: SqlSolution, prefix: str = "") -> dict:
    """Published-style metrics of a SQL Replication solution (``prefix`` before each name)."""
    m = {
        "capture_rows_per_s": sol.rows_per_s,
        "apply_rows_per_s": sol.rows_per_s,
        "capture_cpu_us_per_row": sol.capture_cpu_us_per_row,
        "apply_cpu_us_per_row": sol.apply_cpu_us_per_row,
        "total_cpu_us_per_row": sol.capture_cpu_us_per_row + sol.apply_cpu_us_per_row,
        "source_lpar_busy_pct": 100.0 * min(sol.source_lpar_busy, 1.0),
        "apply_lpar_busy_pct": 100.0 * min(sol.apply_lpar_busy, 1.0),
        "source_db2_log_mb_per_s": sol.db2_log_mb_per_s,
    }
    if sol.overloaded:
        m["backlog_growth_rows_per_s"] = sol.offered_rows_per_s - sol.rows_per_s
    else:
        m["capture_latency_ms"] = sol.capture_latency_ms
        m["qlatency_ms"] = sol.staging_latency_ms
        m["apply_latency_ms"] = sol.apply_latency_ms
        m["end2end_latency_ms"] = sol.end2end_latency_ms
    return {prefix + name: value for name, value in m.items()}


#: Units of the metrics :func:`metrics` gives (before any prefix).
UNITS = {
    "capture_rows_per_s": "rows/s",
    "apply_rows_per_s": "rows/s",
    "capture_cpu_us_per_row": "us/row",
    "apply_cpu_us_per_row": "us/row",
    "total_cpu_us_per_row": "us/row",
    "source_lpar_busy_pct": "%",
    "apply_lpar_busy_pct": "%",
    "source_db2_log_mb_per_s": "MB/s",
    "backlog_growth_rows_per_s": "rows/s",
    "capture_latency_ms": "ms",
    "qlatency_ms": "ms",
    "apply_latency_ms": "ms",
    "end2end_latency_ms": "ms",
}
#: Settings SQL Replication reads (besides the table and workload groups, read whole).
_USED = {
    "hardware.cpu_model",
    "hardware.mips_per_cp",
    "hardware.source_lpar_cps",
    "hardware.capture_lpar_cps",
    "hardware.apply_lpar_cps",
    "hardware.capture_colocated_with_source",
    "qcapture.sleep_interval_ms",
    "qcapture.commit_interval_ms",
    "sql_apply.sleep_minutes",
    "run.mode",
}


def prediction(settings: dict, inp, c, k) -> Prediction:
    """A :class:`~engine.perf.result.Prediction` of a ``topology: sql-replication`` scenario.

    Raises
    ------
    ValueRangeError
        The source or apply LPAR cannot carry its base load.
    """
    sol = solve(inp, c, k)
    m = metrics(sol)
    reason = "not used by SQL Replication (no MQ queues and no Q Apply agents)"
    unused = [
        p for p in unused_settings(settings, _USED) if not p.startswith(("table.", "workload.", "sql_apply."))
    ]
    return Prediction(
        kind="qrep",
        metrics=m,
        units={name: UNITS[name] for name in m},
        stages=sol.stages,
        bottleneck=resource_bottleneck(sol.bottleneck),
        ignored=tuple(unused),
        ignored_reasons=dict.fromkeys(unused, reason),
        coefficients_version=f"{c.version}+{k.version}",
    )


def comparison_metrics(inp, c, k, q_max_rows_per_s: float) -> dict:
    """SQL Replication's figures for a Q Replication prediction (``sql_`` metrics), side by side.

    Parameters
    ----------
    inp : QrepInputs
        The Q Replication flow's inputs; SQL Replication runs the same workload and hardware.
    q_max_rows_per_s : float
        Q Replication's throughput driven to the maximum, rows/s.
    """
    m = metrics(solve(inp, c, k), prefix="sql_")
    driven = dataclasses.replace(inp, offered_rows_per_s=None, jobs=None)
    sql_max = solve(driven, c, k).rows_per_s
    m["sql_max_rows_per_s"] = sql_max
    m["qrep_max_rows_per_s"] = q_max_rows_per_s
    m["qrep_to_sql_throughput_ratio"] = q_max_rows_per_s / sql_max if sql_max > 0 else 0.0
    return m


#: Units of :func:`comparison_metrics`.
COMPARISON_UNITS = {
    **{f"sql_{name}": unit for name, unit in UNITS.items()},
    "sql_max_rows_per_s": "rows/s",
    "qrep_max_rows_per_s": "rows/s",
    "qrep_to_sql_throughput_ratio": "x",
}
