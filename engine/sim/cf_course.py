"""The CF structure of a simulated shared queue over the run: fill, offloads, SCM, failing puts, retries.

With ``mq.shared_queue`` the transmission and receive queues live in one CF list structure. The
simulation's per-bin MQPUTs (Q Capture's published messages) and deletes (Q Apply's applied
messages, a pre-loaded queue's included) step the structure of
:mod:`engine.perf.qrep.cf_structure` through the run (:func:`engine.perf.qrep.qfull_retry.walk`):
its real storage in use, the messages the OFFLDnTH / OFFLDnSZ rules offload at their put (exactly
those), the SCM it takes from 90% on, and the puts that find it full (MQRC 2192), Q Capture
retrying every QFULL_RETRY_DELAY up to QFULL_NUM_RETRIES times and then stopping.

The pipeline runs forward (Q Capture's puts before Q Apply's deletes), so a run whose puts fail is
simulated twice: the first run's walk says when the structure took each message in
(:class:`PutGate`), and the second run's Q Capture puts no message before that (its transactions
wait in the Db2 log, CAPTURE_LATENCY grows, the channel and Q Apply see the slower flow); once
Q Capture has stopped it stays stopped, and what it has not put is put at the run's end. The
second run reports the first run's failing puts, time full, peak usage, stop and held messages
(its own puts no longer fail: they are made when there is room) and its own structure levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.perf.qrep.cf_structure import CfStructure
from engine.perf.qrep.qfull_retry import Walk, walk

#: Summary figures of a shared-queue run, with their units.
SUMMARY_UNITS = {
    "cf_structure_peak_used_pct": "%",
    "cf_scm_peak_mb": "MB",
    "cf_offloaded_msgs": "messages",
    "cf_put_failures": "MQPUTs",
    "cf_full_s": "s",
    "qcapture_stopped_s": "s",
}
#: Figures and series of the first run that the second one (Q Capture held back) reports.
RETRY_FIGURES = ("cf_put_failures", "cf_full_s", "qcapture_stopped_s", "cf_structure_peak_used_pct")
RETRY_SERIES = ("cf.put_failures", "cf.held_msgs")


@dataclass(frozen=True)
class PutGate:
    """When the simulated Q Capture may put its messages, from a first run's walk of the structure.

    Attributes
    ----------
    t_s : ndarray
        0 and each bin's end, s.
    accepted_msgs, wanted_msgs : ndarray
        Messages of the run (not the pre-loaded ones) the structure took in, and Q Capture wanted
        to put, by each of those times (cumulative).
    retrying : ndarray
        Per bin, whether Q Capture was retrying in it.
    end_s : float
        The run's end: a message never taken in (Q Capture stopped) is put then.
    figures, series : dict
        The first run's :data:`RETRY_FIGURES` and :data:`RETRY_SERIES`.
    """

    t_s: np.ndarray
    accepted_msgs: np.ndarray
    wanted_msgs: np.ndarray
    retrying: np.ndarray
    end_s: float
    figures: dict
    series: dict

    def earliest_s(self, through_msgs: np.ndarray) -> np.ndarray:
        """Earliest put of each message, s (-inf: not held), given the run's messages up to and
        including it (``through_msgs``, cumulative). A message is held when the structure took it
        in a later bin than Q Capture put it, or in a bin where Q Capture was retrying; it goes in
        at its share of that bin's puts."""
        n = np.asarray(through_msgs, dtype=float) - 1e-9
        acc, t = self.accepted_msgs, self.t_s
        k = np.searchsorted(acc, n, side="left")
        never = k >= len(acc)
        k = np.clip(k, 1, len(acc) - 1)
        span = np.maximum(acc[k] - acc[k - 1], 1e-12)
        at = t[k - 1] + np.clip((n - acc[k - 1]) / span, 0.0, 1.0) * (t[k] - t[k - 1])
        wanted_k = np.searchsorted(self.wanted_msgs, n, side="left")
        held = (k > wanted_k) | self.retrying[k - 1]
        return np.where(never, self.end_s, np.where(held, at, -np.inf))


def _walk(acc, cfg, initial_msgs: float) -> tuple[Walk, float, float, float]:
    """The run's walk: (walk, pre-loaded messages the structure held, of them offloaded, initial usage %)."""
    topo, k = cfg.cf_structure
    puts, gets = acc.series("pub_msgs"), acc.series("app_msgs")
    n_put = float(puts.sum())
    msg_bytes = (
        float(acc.series("pub_bytes").sum()) / n_put
        if n_put > 0
        else cfg.bytes_per_row * cfg.rows_per_txn * cfg.trans_batch_sz
    )
    cf = CfStructure.of(topo, k, msg_bytes)
    kept, off0 = cf.put(float(initial_msgs))
    used0 = 100.0 * float(cf.real_used_share)
    wanted = puts.astype(float)
    if len(wanted):
        wanted[0] += float(initial_msgs) - kept
    delay_s = topo.qfull_retry_delay_ms / 1000.0
    return walk(cf, acc.dt, wanted, gets, delay_s, topo.qfull_num_retries), kept, off0, used0


def _gate(acc, w: Walk, overflow_msgs: float, figures: dict, series: dict) -> PutGate:
    """The :class:`PutGate` of a first run's walk (``overflow_msgs``: pre-loaded messages the
    structure could not hold, which the walk put first)."""
    accepted = np.maximum(np.cumsum(w.put_msgs) - overflow_msgs, 0.0)
    wanted = np.cumsum(acc.series("pub_msgs").astype(float))
    return PutGate(
        np.concatenate(([0.0], w.t_s)),
        np.concatenate(([0.0], accepted)),
        np.concatenate(([0.0], wanted)),
        (w.full_s > 0) | (w.failed_puts > 0),
        float(acc.duration),
        {name: figures[name] for name in RETRY_FIGURES if name in figures},
        {name: series[name] for name in RETRY_SERIES},
    )


def stop_note(figures: dict, topo) -> str | None:
    """The one line a run whose Q Capture stopped reports (None: it did not stop)."""
    stop_s = figures.get("qcapture_stopped_s")
    if stop_s is None:
        return None
    return (
        f"Q Capture stopped at {stop_s:.1f} s: a put found the CF structure full (MQRC 2192) through "
        f"QFULL_NUM_RETRIES ({topo.qfull_num_retries}) retries QFULL_RETRY_DELAY "
        f"({topo.qfull_retry_delay_ms:g} ms) apart; replication stops (the send queue's ERROR_ACTION)"
    )


def course(acc, cfg, initial_msgs: float) -> tuple[dict, dict, PutGate | None]:
    """Summary figures and per-bin series of the run's CF structure (both empty for private queues),
    and the gate a second run needs (None: no put failed, or this is the second run).

    Parameters
    ----------
    acc : engine.sim.accumulate.Accumulator
        The run's accumulators (``pub_msgs``, ``pub_bytes`` and ``app_msgs`` per bin).
    cfg : PipelineConfig
        Its ``cf_structure``: ``(TopologyInputs, TopologyCoefficients)`` or None, and ``cf_gate``:
        the first run's :class:`PutGate` in a second run.
    initial_msgs : float
        Messages on the receive queue at the start.
    """
    if cfg.cf_structure is None:
        return {}, {}, None
    w, kept, off0, used0 = _walk(acc, cfg, initial_msgs)
    summary = {
        "cf_structure_peak_used_pct": max(used0, w.peak_used_pct),
        "cf_scm_peak_mb": w.peak_scm_mb,
        "cf_offloaded_msgs": off0 + float(w.offloaded_msgs.sum()),
        "cf_put_failures": float(w.failed_puts.sum()),
        "cf_full_s": float(w.full_s.sum()),
    }
    if w.stopped_s is not None:
        summary["qcapture_stopped_s"] = float(w.stopped_s)
    series = {
        "cf.used_pct": w.used_pct,
        "cf.scm_mb": w.scm_mb,
        "cf.msgs": w.depth_msgs,
        "cf.offloaded_msgs_per_s": w.offloaded_msgs / acc.dt,
        "cf.put_failures": w.failed_puts,
        "cf.held_msgs": w.held_msgs,
    }
    gate = cfg.cf_gate
    if gate is not None:
        summary = {k: v for k, v in summary.items() if k not in RETRY_FIGURES}
        return {**summary, **gate.figures}, {**series, **gate.series}, None
    if summary["cf_put_failures"] <= 0:
        return summary, series, None
    return summary, series, _gate(acc, w, float(initial_msgs) - kept, summary, series)
