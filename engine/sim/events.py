"""Outages and slow-downs during a simulation, and the time warp they cause.

An event changes the speed of one part of the pipeline for a while:

``channel_stop``
    The MQ channel is stopped: nothing leaves the transmit queue.
``apply_stop``
    Q Apply is stopped: the browser reads nothing and the agents apply nothing.
``target_slow``
    The target Db2 runs at ``factor`` times its normal speed (0 < factor < 1 slows it).
``mirror_suspend``
    Db2 Mirror replication is suspended; changes are tracked and resynchronised on resume
    (Db2 Mirror projects only).

A stage whose speed changes over time is handled exactly by a *time warp*: the cumulative
work ``W(t) = integral of speed(s) ds`` the stage can do by time ``t``. In work time the stage
is an ordinary constant-speed server; results are mapped back with :meth:`Warp.inverse_left`
(a departure happens the moment its work is done) and :meth:`Warp.inverse_right` (an entry into
service waits for the stage to be running again).

Command-line form (:func:`parse_event`): ``KIND@START+LENGTH[*FACTOR]`` with times as
``90``, ``90s``, ``20m`` or ``1h``, e.g. ``channel-stop@2m+20m`` or ``target-slow@1m+5m*0.5``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np

from engine.errors import FieldError

#: Event kind -> the pipeline part it acts on.
EVENT_TARGETS = {
    "channel_stop": "channel",
    "apply_stop": "apply",
    "target_slow": "apply",
    "mirror_suspend": "mirror",
}
#: Event kind -> what a user reads (forms, headlines).
EVENT_LABELS = {
    "channel_stop": "MQ channel stop",
    "apply_stop": "Q Apply stop",
    "target_slow": "Target Db2 slow-down",
    "mirror_suspend": "Db2 Mirror suspend",
}


@dataclass(frozen=True)
class Event:
    """One outage or slow-down.

    Attributes
    ----------
    kind : str
        One of :data:`EVENT_TARGETS`.
    start_s : float
        Simulated time the event begins, in s from the start of the run.
    duration_s : float
        How long it lasts, in s.
    factor : float
        Speed of the affected part while the event lasts, as a fraction of normal
        (0 for a stop; 0 < factor for ``target_slow``).
    """

    kind: str
    start_s: float
    duration_s: float
    factor: float = 0.0

    def __post_init__(self):
        if self.kind not in EVENT_TARGETS:
            raise FieldError("event.kind", self.kind, "one of " + ", ".join(EVENT_TARGETS))
        if not np.isfinite(self.start_s) or self.start_s < 0:
            raise FieldError("event.start_s", self.start_s, "a time >= 0 s")
        if not np.isfinite(self.duration_s) or self.duration_s <= 0:
            raise FieldError("event.duration_s", self.duration_s, "a duration > 0 s")
        if self.kind == "target_slow":
            if not (0.0 < self.factor <= 1.0):
                raise FieldError("event.factor", self.factor, "a speed fraction in (0, 1] for target_slow")
        elif self.factor != 0.0:
            raise FieldError("event.factor", self.factor, f"0 (a stop) for {self.kind}")

    @property
    def end_s(self) -> float:
        """Time the event ends, in s."""
        return self.start_s + self.duration_s

    @property
    def target(self) -> str:
        """Pipeline part the event acts on (``channel``, ``apply`` or ``mirror``)."""
        return EVENT_TARGETS[self.kind]

    def to_json(self) -> dict:
        """Plain data for JSON output: every field, in declaration order."""
        return asdict(self)


_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration_s(text: str, field: str = "duration") -> float:
    """Parse ``90``, ``90s``, ``500ms``, ``20m`` or ``1.5h`` into seconds.

    Raises
    ------
    FieldError
        The text is not a non-negative number with one of those units.
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(ms|s|min|m|h)?\s*", str(text))
    if not m:
        raise FieldError(field, text, "a time such as 600, 90s, 500ms, 20m or 1h")
    return float(m.group(1)) * _UNITS[m.group(2) or ""]


def duration_text(seconds: float) -> str:
    """``seconds`` in the shortest form :func:`parse_duration_s` reads back exactly (``20m``, ``1h``, ``90s``)."""
    for unit, size in (("h", 3600.0), ("m", 60.0)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:.12g}{unit}"
    return f"{seconds:.12g}s"


def event_text(event: Event) -> str:
    """``event`` in the command line's form :func:`parse_event` reads (``channel-stop@2m+20m``)."""
    text = f"{event.kind.replace('_', '-')}@{duration_text(event.start_s)}+{duration_text(event.duration_s)}"
    return text + (f"*{event.factor:g}" if event.kind == "target_slow" else "")


def parse_event(text: str) -> Event:
    """Parse the command-line form ``KIND@START+LENGTH[*FACTOR]``.

    Examples: ``channel-stop@2m+20m``, ``apply-stop@300+60``, ``target-slow@1m+5m*0.5``,
    ``mirror-suspend@1m+10m``.

    Raises
    ------
    FieldError
        The text does not have that form or a value is out of range.
    """
    m = re.fullmatch(r"\s*([a-zA-Z_-]+)@([^+]+)\+([^*]+)(?:\*(.+))?\s*", text)
    if not m:
        raise FieldError("--event", text, "KIND@START+LENGTH[*FACTOR], e.g. channel-stop@2m+20m")
    kind = m.group(1).replace("-", "_").lower()
    factor = m.group(4)
    try:
        f = float(factor) if factor is not None else (0.5 if kind == "target_slow" else 0.0)
    except ValueError:
        raise FieldError("--event factor", factor, "a number such as 0.5") from None
    return Event(
        kind, parse_duration_s(m.group(2), "--event start"), parse_duration_s(m.group(3), "--event length"), f
    )


def event_from_dict(d: dict, where: str = "event") -> Event:
    """Build an :class:`Event` from ``{"kind", "start_s", "duration_s", "factor"?}``."""
    if not isinstance(d, dict):
        raise FieldError(where, d, "an object with kind, start_s and duration_s")
    try:
        return Event(
            str(d["kind"]).replace("-", "_"),
            float(d["start_s"]),
            float(d["duration_s"]),
            float(d.get("factor", 0.5 if d["kind"] in ("target_slow", "target-slow") else 0.0)),
        )
    except KeyError as e:
        raise FieldError(
            f"{where}.{e.args[0]}", None, "a value (kind, start_s and duration_s are required)"
        ) from None


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
