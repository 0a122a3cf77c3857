"""Outages and slow-downs during a simulation, and the time warp they cause.

An event (:mod:`engine.outage_events`: a channel stop, a Q Apply stop, a target slow-down, a
Db2 Mirror suspend) changes the speed of one part of the pipeline for a while.

A stage whose speed changes over time is handled exactly by a *time warp*: the cumulative
work ``W(t) = integral of speed(s) ds`` the stage can do by time ``t``. In work time the stage
is an ordinary constant-speed server; results are mapped back with :meth:`Warp.inverse_left`
(a departure happens the moment its work is done) and :meth:`Warp.inverse_right` (an entry into
service waits for the stage to be running again).

The events themselves (:class:`Event`, their command-line form ``channel-stop@2m+20m``) are
imported here under their old names.
"""

from __future__ import annotations

import numpy as np

from engine.outage_events import (  # noqa: F401 - the simulator's callers import them from here
    EVENT_LABELS,
    EVENT_TARGETS,
    Event,
    duration_text,
    event_from_dict,
    event_text,
    parse_duration_s,
    parse_event,
)


class Warp:
    """Piecewise-linear cumulative work ``W(t)`` of a stage whose speed changes with time.

    Parameters
    ----------
    breaks_s : array of float
        Increasing segment starts, the first 0.
    speeds : array of float
        Speed on each segment (1 normal, 0 stopped); the last segment runs forever and
        must have speed > 0.
    """

    def __init__(self, breaks_s, speeds):
        t = np.asarray(breaks_s, dtype=float)
        r = np.asarray(speeds, dtype=float)
        # merge neighbours of equal speed so a flat stretch is one segment
        keep = np.ones(len(t), bool)
        keep[1:] = r[1:] != r[:-1]
        self.t = t[keep]
        self.r = r[keep]
        if self.r[-1] <= 0:
            raise ValueError("the last warp segment must have speed > 0")
        self.w = np.concatenate(([0.0], np.cumsum(np.diff(self.t) * self.r[:-1])))
        self.identity = len(self.t) == 1 and self.r[0] == 1.0

    @classmethod
    def from_events(cls, events, target: str) -> Warp:
        """The warp of pipeline part ``target`` under ``events`` (speeds multiply when events overlap)."""
        mine = [e for e in events if e.target == target]
        if not mine:
            return cls([0.0], [1.0])
        pts = np.unique(np.array([0.0] + [e.start_s for e in mine] + [e.end_s for e in mine]))
        speeds = np.ones(len(pts))
        for e in mine:
            inside = (pts >= e.start_s) & (pts < e.end_s)
            speeds[inside] *= e.factor
        return cls(pts, speeds)

    def forward(self, t):
        """Cumulative work ``W(t)`` for times ``t`` (s)."""
        if self.identity:
            return np.asarray(t, dtype=float)
        t = np.asarray(t, dtype=float)
        k = np.searchsorted(self.t, t, side="right") - 1
        return self.w[k] + self.r[k] * (t - self.t[k])

    def inverse_left(self, w):
        """Earliest time the cumulative work reaches ``w``: when a job with that much work done departs."""
        if self.identity:
            return np.asarray(w, dtype=float)
        w = np.asarray(w, dtype=float)
        k = np.searchsorted(self.w, w, side="left") - 1
        first = k < 0
        k = np.maximum(k, 0)
        rate = np.where(self.r[k] > 0, self.r[k], 1.0)
        return np.where(first, self.t[0], self.t[k] + (w - self.w[k]) / rate)

    def inverse_right(self, w):
        """Latest time the cumulative work is still ``w``: when service at that work point can start."""
        if self.identity:
            return np.asarray(w, dtype=float)
        w = np.asarray(w, dtype=float)
        k = np.searchsorted(self.w, w, side="right") - 1
        return self.t[k] + (w - self.w[k]) / self.r[k]

    # --- plain scalar versions for the reference event loop -------------------------------
    def next_running(self, t: float) -> float:
        """``t`` if the stage is running at ``t``, else the time it runs again."""
        for i in range(len(self.t)):
            end = self.t[i + 1] if i + 1 < len(self.t) else float("inf")
            if self.t[i] <= t < end and self.r[i] == 0.0:
                return end
        return t

    def advance(self, t: float, work: float) -> float:
        """Time a job that starts service at ``t`` with ``work`` s of normal-speed work finishes."""
        i = 0
        while i + 1 < len(self.t) and self.t[i + 1] <= t:
            i += 1
        while True:
            end = self.t[i + 1] if i + 1 < len(self.t) else float("inf")
            if self.r[i] > 0:
                finish = t + work / self.r[i]
                if finish <= end:
                    return finish
                work -= (end - t) * self.r[i]
            t = end
            i += 1
