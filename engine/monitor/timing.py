"""The 10.2.1+ timing columns of the monitor tables as measured metrics of a fit.

Q Apply (IBMQREP_APPLYMON) and Q Capture (IBMQREP_CAPQMON, IBMQREP_CAPMON) add up, interval
by interval, the milliseconds they spend in Db2 and in MQ calls. Divided by the interval's
count of those calls they give the mean time per call, which the engine predicts:

==================  ====================================  ========================
IBM column          per                                   engine metric
==================  ====================================  ========================
DBMS_TIME           NUM_DBMS_COMMITS (else TRANS_APPLIED)  ``apply_db2_class2_ms``
MQGET_TIME          NUM_MQGETS                            ``apply_mqget_us``
MQPUT_TIME          MQ_MESSAGES (IBMQREP_CAPQMON)         ``capture_mqput_us``
MQCMIT_TIME         NUM_MQCMITS (IBMQREP_CAPMON)          ``capture_mqcommit_us``
==================  ====================================  ========================

WORKQ_WAIT_TIME, DEPENDENCY_DELAY, RETRY_TIME and LOGREAD_API_TIME have no counterpart in the
engine's steady state (:data:`NOT_PREDICTED`): ``qrtune fit`` names them and leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimingColumn:
    """One timing column: where it is, what it is divided by, and the engine metric it measures.

    Attributes
    ----------
    column : str
        IBM's column (milliseconds summed over the interval).
    per : tuple[str, ...]
        The counter(s) it is divided by, the first one present and positive.
    table : str
        The monitor table.
    metric : str
        The engine metric (mean time per call).
    per_ms : float
        The metric's unit per millisecond (1000 for us).
    """

    column: str
    per: tuple
    table: str
    metric: str
    per_ms: float

    @property
    def label(self) -> str:
        """IBM's names of what is compared: ``DBMS_TIME / NUM_DBMS_COMMITS``."""
        return f"{self.column} / {self.per[0]}"

    def sql(self) -> str:
        """SQL of the mean time per call (in the metric's unit) from the table's columns; NULL without both."""
        per = f"coalesce({', '.join(f'NULLIF({p}, 0)' for p in self.per)})"
        return f"CASE WHEN {self.column} > 0 AND {per} > 0 THEN {self.column} * {self.per_ms!r} / {per} END"


TIMING_COLUMNS = (
    TimingColumn(
        "DBMS_TIME", ("NUM_DBMS_COMMITS", "TRANS_APPLIED"), "IBMQREP_APPLYMON", "apply_db2_class2_ms", 1.0
    ),
    TimingColumn("MQGET_TIME", ("NUM_MQGETS",), "IBMQREP_APPLYMON", "apply_mqget_us", 1000.0),
    TimingColumn("MQPUT_TIME", ("MQ_MESSAGES",), "IBMQREP_CAPQMON", "capture_mqput_us", 1000.0),
    TimingColumn("MQCMIT_TIME", ("NUM_MQCMITS",), "IBMQREP_CAPMON", "capture_mqcommit_us", 1000.0),
)
"""The timing columns a fit compares, in IBM's names."""
NOT_PREDICTED = ("WORKQ_WAIT_TIME", "DEPENDENCY_DELAY", "RETRY_TIME", "LOGREAD_API_TIME")
"""Timing columns the engine has no counterpart of (left out of the comparison)."""
TIMING_METRICS = tuple(t.metric for t in TIMING_COLUMNS)
"""Engine metrics the timing columns measure."""


def of_table(table: str) -> tuple[TimingColumn, ...]:
    """The timing columns of one monitor table."""
    return tuple(t for t in TIMING_COLUMNS if t.table == table)


def columns_of(table: str) -> tuple[str, ...]:
    """The columns of ``table`` the timing comparison reads (each timing column and its counters)."""
    return tuple(dict.fromkeys(c for t in of_table(table) for c in (t.column, *t.per)))


def timing_label(metric: str) -> str | None:
    """IBM's names of what a timing metric compares (``MQGET_TIME / NUM_MQGETS``); None for another metric."""
    return next((t.label for t in TIMING_COLUMNS if t.metric == metric), None)


__all__ = [
    "NOT_PREDICTED",
    "TIMING_COLUMNS",
    "TIMING_METRICS",
    "TimingColumn",
    "columns_of",
    "of_table",
    "timing_label",
]
