"""``qrtune predict``'s text names stages and nodes as users read them: no stage or node id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import projectfile
from engine.cli.predict import format_prediction
from engine.predict import predict_project

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "sample_runs").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_no_stage_or_node_id_in_the_text(path):
    project = projectfile.load(path)
    pred = predict_project(project)
    text = format_prediction(pred, project.name, project)
    # ids a reader could mistake for words (a node called "channel") are not looked for
    ids = [
        i for i in [s.name for s in pred.stages] + [n.id for n in project.nodes] if re.search(r"[-_\d]", i)
    ]
    found = [i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
    assert not found, found
