"""Every metric an engine emits for the samples is in the metric catalogue, with the engine's unit.

Views, the report, bands and comparisons read a metric's label, unit and better direction from
:mod:`engine.metrics.catalog`; none is guessed from the metric's name. The samples are the bundled
projects (``sample_runs/``) and the published scenarios of every engine kind.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from engine.io.packagedata import asset_path
from engine.metrics import catalog
from engine.perf import predictor
from engine.predict import predict_project
from engine.projectfile import load

ROOT = Path(__file__).resolve().parents[3]


@lru_cache(maxsize=1)
def emitted() -> dict:
    """``(engine kind, metric) -> (unit the engine gives, a sample that emits it)``."""
    out: dict = {}
    predictions = [
        (path.name, predict_project(load(path))) for path in sorted((ROOT / "sample_runs").glob("*.json"))
    ]
    scenarios = json.loads(Path(asset_path("validation", "calibration.json")).read_text())["scenarios"]
    predictions += [(s["id"], predictor(s["kind"])(s)) for s in scenarios]
    for sample, pred in predictions:
        for name in pred.metrics:
            out.setdefault((pred.kind, name), (pred.units.get(name, ""), sample))
    return out


def test_the_samples_emit_metrics_of_every_engine_kind():
    assert {kind for kind, _ in emitted()} == {"qrep", "db2mirror", "mq-mover", "db2-v8-storage"}


def test_every_emitted_metric_is_in_the_catalogue():
    unknown = sorted(
        f"{kind}: {name} ({sample})"
        for (kind, name), (_, sample) in emitted().items()
        if catalog.lookup(name, kind) is None
    )
    assert not unknown, "metrics without a catalogue entry:\n" + "\n".join(unknown)


def test_the_catalogue_gives_the_unit_the_engine_states():
    wrong = sorted(
        f"{kind}: {name} engine {unit!r}, catalogue {catalog.lookup(name, kind).unit!r}"
        for (kind, name), (unit, _) in emitted().items()
        if unit and catalog.lookup(name, kind) is not None and catalog.lookup(name, kind).unit != unit
    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["no_such_metric_ms", "buffer_pool_id"])
def test_a_name_the_catalogue_does_not_know_gets_no_guessed_unit_or_direction(name):
    entry = catalog.info(name)
    assert catalog.lookup(name) is None
    assert (entry.unit, entry.better, entry.group) == ("", 0, "other")
