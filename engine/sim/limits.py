"""Bounds on a simulation's work and memory, checked before it starts.

A simulation's cost grows with two things, both known before it runs:

* the transactions it pushes through the pipeline: the offered rows over the run divided by
  the rows per transaction (less those of the stationary windows the run represents by copies
  of a simulated one, :mod:`engine.sim.stationary`), plus the transactions of messages
  pre-loaded on the receive queue (``INITIAL_DEPTH_MSGS`` x TRANS_BATCH_SZ). They are streamed in chunks of at most
  :data:`engine.sim.run.CHUNK_TXNS`, so they cost time (about 0.2 to 0.5 us each) and the
  memory of what is still in flight (a backlog), not memory per message;
* the time bins of what is reported (monitor rows and time series, one bin per second or
  coarser): every series holds one number per bin.

:func:`check_simulation_budget` estimates both and raises
:class:`engine.errors.ValueRangeError` naming the field, its value and the range the
simulation can handle, so ``qrtune simulate`` and the workbench refuse a run that would take
minutes or gigabytes in one line instead of starting it. The limits keep a run within about
20 s and 4 GB on a small machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.sim.knobs import spec

#: Most transactions one run pushes through the pipeline (offered plus pre-loaded; the transactions
#: of stationary windows represented by copies, :mod:`engine.sim.stationary`, are not simulated and
#: not counted). About 15 s of simulation on a small machine.
MAX_SIMULATED_TXNS = 60_000_000
#: Most time bins of the reported series (monitor rows, time series).
MAX_TIME_BINS = 100_000
#: Bytes each time bin costs over all the series a run keeps (measured, rounded up).
BYTES_PER_BIN = 1_000
#: Bytes each transaction costs while it is in a chunk (measured, rounded up).
BYTES_PER_CHUNK_TXN = 600
#: How the offered rate is named in messages (``--rate`` on the command line, OFFERED_ROWS_PER_S in a project).
RATE_FIELD = "offered rate (--rate, OFFERED_ROWS_PER_S)"


@dataclass(frozen=True)
class SimulationBudget:
    """What a run will cost, estimated before it starts.

    Attributes
    ----------
    txns : float
        Transactions through the pipeline (offered plus pre-loaded).
    time_bins : float
        Bins of the reported series.
    memory_bytes : float
        Rough peak memory of the series and one chunk, bytes (a backlog adds to it).
    """

    txns: float
    time_bins: float
    memory_bytes: float


def _check_finite_positive(field: str, value: float, allowed: str) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueRangeError(field, value, allowed)


@dataclass(frozen=True)
class RunSize:
    """What a run's cost depends on besides its offered rate.

    Attributes
    ----------
    duration_s : float
        Simulated time, s.
    rows_per_txn : float
        Rows per source transaction.
    bin_s : float
        Width of a time bin, s.
    initial_msgs : int
        Messages pre-loaded on the receive queue.
    trans_batch_sz : int
        Source transactions per pre-loaded message.
    """

    duration_s: float
    rows_per_txn: float
    bin_s: float
    initial_msgs: int = spec("run.initial_receive_queue_depth").default
    trans_batch_sz: int = spec("qcapture.trans_batch_sz").default

    @property
    def preloaded_txns(self) -> float:
        """Transactions of the pre-loaded messages."""
        return float(self.initial_msgs) * float(self.trans_batch_sz)


def estimate_budget(
    run: RunSize, mean_rows_per_s: float, chunk_txns: int = 400_000, copied_rows: float = 0.0
) -> SimulationBudget:
    """Transactions, time bins and memory of a run (see :class:`SimulationBudget`).

    Parameters
    ----------
    run : RunSize
    mean_rows_per_s : float
        Average offered rate, rows/s.
    chunk_txns : int
        Transactions per chunk the simulation streams.
    copied_rows : float
        Rows offered in windows the run represents by copies of a simulated one
        (:mod:`engine.sim.stationary`): not simulated.
    """
    offered = max(0.0, mean_rows_per_s * run.duration_s - copied_rows) / max(run.rows_per_txn, 1.0)
    txns = offered + run.preloaded_txns
    bins = run.duration_s / run.bin_s
    memory = bins * BYTES_PER_BIN + min(txns, chunk_txns) * BYTES_PER_CHUNK_TXN
    return SimulationBudget(txns, bins, memory)


def check_duration(duration_s: float, bin_s: float) -> None:
    """Refuse a duration that is not finite and > 0 or gives more than :data:`MAX_TIME_BINS` bins of ``bin_s``.

    Raises
    ------
    ValueRangeError
        Names ``duration``, its value and the longest duration allowed.
    """
    _check_finite_positive("duration", duration_s, "a finite duration > 0 s")
    max_duration_s = MAX_TIME_BINS * bin_s
    if duration_s > max_duration_s:
        raise ValueRangeError(
            "duration",
            duration_s,
            f"at most {max_duration_s:,.0f} s ({max_duration_s / 86_400:,.1f} days: "
            f"{MAX_TIME_BINS:,} bins of {bin_s:g} s)",
        )


def check_rate(rows_per_s: float, field: str = RATE_FIELD) -> None:
    """Refuse an offered rate that is not finite, negative or above the registry's OFFERED_ROWS_PER_S maximum.

    Raises
    ------
    ValueRangeError
        Names ``field``, the rate and the allowed range.
    """
    top = float(spec("workload.offered_rows_per_s").maximum)
    if not (isinstance(rows_per_s, (int, float)) and 0 <= rows_per_s <= top):
        raise ValueRangeError(field, rows_per_s, f"a rate from 0 to {top:,.0f} rows/s")


def check_simulation_budget(
    run: RunSize, profile, chunk_txns: int = 400_000, copied_rows: float = 0.0
) -> SimulationBudget:
    """Refuse a run whose work or reported series exceed what the simulation handles.

    Parameters
    ----------
    run : RunSize
    profile : engine.sim.profiles.Profile
        Offered workload (its peak and mean rates over the run).
    chunk_txns, copied_rows : int, float
        As :func:`estimate_budget`.

    Returns
    -------
    SimulationBudget
        The estimate, when the run is within the limits.

    Raises
    ------
    ValueRangeError
        The duration is not finite and > 0 or gives more than :data:`MAX_TIME_BINS` bins; the
        offered rate is not within the registry's range; the pre-loaded or the offered and
        pre-loaded transactions exceed :data:`MAX_SIMULATED_TXNS`. The message names the field,
        the value and the range.
    """
    check_duration(run.duration_s, run.bin_s)
    check_rate(profile.peak_rows_per_s(run.duration_s))
    mean_rows_per_s = profile.mean_rows_per_s(run.duration_s)
    preloaded = run.preloaded_txns
    if preloaded > MAX_SIMULATED_TXNS:
        raise ValueRangeError(
            "run.initial_receive_queue_depth (INITIAL_DEPTH_MSGS)",
            run.initial_msgs,
            f"at most {MAX_SIMULATED_TXNS / max(run.trans_batch_sz, 1):,.0f} messages of "
            f"TRANS_BATCH_SZ {run.trans_batch_sz} for a simulation ({MAX_SIMULATED_TXNS:,} "
            "transactions); qrtune predict gives the drain time of any depth",
        )
    budget = estimate_budget(run, mean_rows_per_s, chunk_txns, copied_rows)
    if budget.txns > MAX_SIMULATED_TXNS:
        room = (MAX_SIMULATED_TXNS - preloaded) * max(run.rows_per_txn, 1.0)
        raise ValueRangeError(
            RATE_FIELD,
            mean_rows_per_s,
            f"at most {room / run.duration_s:,.6g} rows/s over {run.duration_s:,.6g} s, or a duration "
            f"of at most {room / max(mean_rows_per_s, 1e-300):,.6g} s at this rate (a simulation "
            f"simulates at most {MAX_SIMULATED_TXNS:,} transactions besides the stationary stretches it "
            f"copies; this run would simulate {budget.txns:,.3g})",
        )
    return budget
