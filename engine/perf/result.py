"""Flat, typed prediction records shared by every engine and by the store."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class StageResult:
    """One stage of a pipeline at the solved operating point.

    Attributes
    ----------
    name : str
        Stage name from the bottleneck vocabulary (``qcapture``, ``mq_channel``,
        ``qapply_agents``, ``target_db2``, ``cpu`` ...).
    capacity : float
        Most the stage could carry, in ``unit`` (rows/s unless stated).
    utilisation : float
        Carried load over capacity, 0..1.
    unit : str
        Unit of ``capacity``.
    latency_ms : float
        Mean time a row or message spends in the stage, in ms.
    """

    name: str
    capacity: float
    utilisation: float
    unit: str = "rows/s"
    latency_ms: float = 0.0


@dataclass(frozen=True)
class Prediction:
    """What an engine predicts for one scenario or project.

    Attributes
    ----------
    kind : str
        Scenario kind (``qrep``, ``db2mirror``, ``mq-mover``, ``db2-v8-storage``).
    metrics : dict[str, float]
        Metric name (the names of ../shared/validation/README.md) to value.
    units : dict[str, str]
        Metric name to unit.
    stages : tuple[StageResult, ...]
        Every stage's capacity and utilisation, in pipeline order.
    bottleneck : str or None
        The stage that limits throughput, or None when nothing does.
    ignored : tuple[str, ...]
        Settings paths the engine did not use.
    coefficients_version : str
        Version of the fitted coefficients under ``assets/`` used.
    bands : dict[str, tuple[float, float]]
        Optional prediction band (low, high) per metric.
    ignored_reasons : dict[str, str]
        Why each ``ignored`` path was not used or cannot change the results here.
    """

    kind: str
    metrics: dict
    units: dict = field(default_factory=dict)
    stages: tuple = ()
    bottleneck: str | None = None
    ignored: tuple = ()
    coefficients_version: str = ""
    bands: dict = field(default_factory=dict)
    ignored_reasons: dict = field(default_factory=dict)

    @classmethod
    def explained(cls, kind: str, metrics: dict, reasons: dict, **fields) -> Prediction:
        """A prediction whose ``ignored`` settings are exactly the paths ``reasons`` explains.

        Parameters
        ----------
        kind, metrics
            As the attributes.
        reasons : dict[str, str]
            Settings path -> why it was not used or cannot change the results here.
        **fields
            Any other attribute (``units``, ``stages``, ``bottleneck``...).
        """
        return cls(
            kind=kind, metrics=metrics, ignored=tuple(sorted(reasons)), ignored_reasons=reasons, **fields
        )

    def also_ignoring(self, reasons: dict) -> Prediction:
        """This prediction with more ignored settings (path -> why) added to ``ignored``."""
        merged = {**self.ignored_reasons, **reasons}
        return replace(self, ignored=tuple(sorted(set(self.ignored) | set(reasons))), ignored_reasons=merged)

    def to_json(self) -> dict:
        """Plain data for JSON output."""
        return {
            "kind": self.kind,
            "metrics": dict(self.metrics),
            "units": dict(self.units),
            "stages": [s.__dict__ for s in self.stages],
            "bottleneck": self.bottleneck,
            "ignored": list(self.ignored),
            "coefficients_version": self.coefficients_version,
            "bands": {k: list(v) for k, v in self.bands.items()},
            "ignored_reasons": dict(self.ignored_reasons),
        }
