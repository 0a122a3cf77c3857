"""Outages and slow-downs during a simulation, as a project states them.

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

Command-line form (:func:`parse_event`): ``KIND@START+LENGTH[*FACTOR]`` with times as
``90``, ``90s``, ``20m`` or ``1h``, e.g. ``channel-stop@2m+20m`` or ``target-slow@1m+5m*0.5``.
The simulator's time warp of an event is :mod:`engine.sim.events`'; the events live below it,
beside the project model, so a project file's events are checked where the file is read.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

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
        if not math.isfinite(self.start_s) or self.start_s < 0:
            raise FieldError("event.start_s", self.start_s, "a time >= 0 s")
        if not math.isfinite(self.duration_s) or self.duration_s <= 0:
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
