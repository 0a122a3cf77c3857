"""Figures every fake Q Replication engine of the tests reports, named as the real engine names them."""

from __future__ import annotations


def pipeline_metrics(rate_rows_per_s: float, capture_ms: float, q_ms: float, apply_ms: float) -> dict:
    """Rates and latencies of a steady Capture -> MQ -> Apply pipeline.

    Parameters
    ----------
    rate_rows_per_s : float
        Rows captured and applied per second (the same at steady state), rows/s.
    capture_ms, q_ms, apply_ms : float
        CAPTURE_LATENCY, QLATENCY and APPLY_LATENCY, ms.

    Returns
    -------
    dict
        ``capture_rows_per_s``, ``apply_rows_per_s``, the three latencies and
        ``end2end_latency_ms``, their sum (as IBMQREP_APPLYMON reports END2END_LATENCY).
    """
    return {
        "capture_rows_per_s": rate_rows_per_s,
        "apply_rows_per_s": rate_rows_per_s,
        "capture_latency_ms": capture_ms,
        "qlatency_ms": q_ms,
        "apply_latency_ms": apply_ms,
        "end2end_latency_ms": capture_ms + q_ms + apply_ms,
    }
