"""Bounded least-squares fit of the MQ component coefficients to the component observations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from engine.calibrate.mq_components.observations import GROUPS, Observation
from engine.calibrate.mq_components.parameters import PARAMETERS

#: Log error (about 10%) beyond which a residual counts linearly, not squared (soft L1 loss): one
#: platform's unusual row moves the shared coefficients less than the many rows it disagrees with.
ROBUST_SCALE = 0.1

#: Weight of each fitted coefficient's pull towards its documented prior, per unit of relative
#: deviation (x / prior - 1), against a group's total weight of 1. Some coefficients are pinned by no
#: record (a server's log speed in a report without persistent tests) or only in a product with
#: another one (a server's speed and its copy speed); without this pull they sat wherever the
#: optimiser stopped, and a refit missed the stored values by 0.5% (scipy 1.11) to 29% (scipy 1.17).
#: With it the free ones stay at their prior, and the coefficients the records pin on their own
#: moved by at most 0.11% when it was added.
PRIOR_WEIGHT = 3e-4

#: Relative change of the cost, and of the coefficients, below which the fit stops: far below the
#: 1e-3 relative agreement the refit test asks for, so the stored values do not depend on the path.
TOLERANCE = 1e-12


@dataclass(frozen=True)
class GroupError:
    """Absolute relative errors |predicted / measured - 1| of one mechanism group."""

    group: str
    count: int
    median: float
    p90: float


def errors(obs: list[Observation], k: Mapping[str, float]) -> dict[str, np.ndarray]:
    """Absolute relative error of every observation, by group."""
    out: dict[str, list[float]] = {}
    for o in obs:
        out.setdefault(o.group, []).append(abs(o.predict(k) / o.measured - 1.0))
    return {g: np.asarray(v) for g, v in out.items()}


def group_errors(obs: list[Observation], k: Mapping[str, float]) -> list[GroupError]:
    """Median and 90th percentile error per mechanism group, in :data:`GROUPS` order."""
    errs = errors(obs, k)
    return [
        GroupError(g, len(errs[g]), float(np.median(errs[g])), float(np.percentile(errs[g], 90)))
        for g in GROUPS
        if g in errs
    ]


def fit(obs: list[Observation]) -> dict[str, float]:
    """Coefficient values minimising the log errors of ``obs`` (soft L1), each group weighted equally.

    Each fitted coefficient is also pulled, with weight :data:`PRIOR_WEIGHT`, towards its documented
    value, so the minimum is unique even where the records leave a coefficient free. Parameters with
    ``fitted=False`` keep their documented value.
    """
    free = [p for p in PARAMETERS if p.fitted]
    fixed = {p.name: p.value for p in PARAMETERS if not p.fitted}
    sizes: dict[str, int] = {}
    for o in obs:
        sizes[o.group] = sizes.get(o.group, 0) + 1
    weights = np.asarray([1.0 / np.sqrt(sizes[o.group]) for o in obs])
    measured = np.log(np.asarray([o.measured for o in obs]))

    def coefs(x) -> dict[str, float]:
        return {**fixed, **{p.name: float(v) for p, v in zip(free, x, strict=True)}}

    x0 = np.asarray([p.value for p in free])

    def residuals(x):
        k = coefs(x)
        pred = np.asarray([max(o.predict(k), 1e-12) for o in obs])
        return np.concatenate([weights * (np.log(pred) - measured), PRIOR_WEIGHT * (x / x0 - 1.0)])

    lo = np.asarray([p.low for p in free])
    hi = np.asarray([p.high for p in free])
    res = least_squares(
        residuals,
        x0,
        bounds=(lo, hi),
        x_scale=np.maximum(np.abs(x0), 1e-3),
        loss="soft_l1",
        f_scale=ROBUST_SCALE,
        ftol=TOLERANCE,
        xtol=TOLERANCE,
        max_nfev=4000,
    )
    return coefs(res.x)
