"""No internal stage, settings path or node id in the text a user reads, on every sample (headline, Results,
canvas tooltips, every node's inspector; the Sweep, Simulation and Compare tabs with a result of the sample)."""

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QTableWidget

from engine.metrics.stages import STAGE_LABELS

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_runs").glob("*.json"))
#: Stage names a user could mistake for nothing else (one word ones such as ``cpu`` read as words).
INTERNAL_STAGES = sorted(name for name in STAGE_LABELS if "_" in name)


def _texts(widget) -> list[str]:
    out = []
    for w in [widget, *widget.findChildren(object)]:
        if isinstance(w, (QLabel, QAbstractButton)) and w.isVisibleTo(widget):
            out += [w.text(), w.toolTip()]
        elif isinstance(w, QTableWidget):
            out += [
                w.item(r, c).text()
                for r in range(w.rowCount())
                for c in range(w.columnCount())
                if w.item(r, c)
            ]
    return [t for t in out if t]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_views_name_no_internal_stage_path_or_node_id(window, sample):
    assert window.open_project(str(sample), ask=False)
    window.live.update(wait=True)
    project = window.document.project
    texts = [window.summary.text(), *_texts(window.results)]
    texts += [item.toolTip() for item in window.scene.nodes.values()]
    for node in project.nodes:
        window.scene.select_node(node.id)
        window.inspector.show_prediction(project, window.live.prediction)
        texts += _texts(window.inspector)
    _assert_no_internal_names(project, texts)


def _assert_no_internal_names(project, texts: list[str]) -> None:
    """No internal stage name, settings path or machine-made node id of ``project`` in ``texts``."""
    text = "\n".join(texts)
    found = [s for s in INTERNAL_STAGES if f" {s}" in text or f">{s}" in text or f"({s}" in text]
    assert not found, found
    assert "nodes[" not in text and ".params." not in text
    # ids made by the program (ab-2-queue-manager, mirror-source); an id that is an English word (putter)
    # may stand in prose
    machine_ids = [n.id for n in project.nodes if "-" in n.id or any(ch.isdigit() for ch in n.id)]
    ids = [i for i in machine_ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
    assert not ids, [(i, [t[:160] for t in texts if i in t][:2]) for i in ids]


def _idle(window, qtbot, timeout_ms: int = 120_000) -> None:
    qtbot.waitUntil(lambda: not window.tasks.busy(), timeout=timeout_ms)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_sweep_simulation_and_compare_name_no_internal_stage_path_or_node_id(window, qtbot, sample):
    """Each tab after a result of the sample: a two-point sweep of the view's first knob, a short
    simulation with an outage from the events form (or why it cannot run), two recorded runs compared."""
    from app.tasks import simulation_available

    assert window.open_project(str(sample), ask=False)
    project = window.document.project
    sweep = window.show_view("Sweep")
    axis, _, values = sweep.axis_text().partition("=")
    low = values.split(",")[0].split("..")[0]
    two = ",".join(values.split(",")[:2]) if ".." not in values else f"{low},{int(low) + 1}"
    assert window.sweep(f"{axis}={two}"), sweep.status.text()
    _idle(window, qtbot)
    simulation = window.show_view("Simulation")
    simulation.events_editor.add_event()
    simulation.duration.setText("20s")
    if not simulation_available() and window.simulate(20.0, 1):
        _idle(window, qtbot)
    first = window.predict_and_record()
    second = window.predict_and_record()
    if first is not None and second is not None:
        assert window.compare_runs([first, second])
    texts = [window.last_message]
    for name in ("Sweep", "Simulation", "Compare"):
        texts += _texts(window.view_widget(name))
    _assert_no_internal_names(project, texts)


#: One sample of each shape ``qrtune simulate`` prints: a flow with an outage, a pair of systems, several
#: queue maps, a Db2 Mirror pair with a suspend, and a kind it cannot simulate (its one-line refusal).
SIMULATED = {
    "redpaper-baseline": ["--event", "channel-stop@2s+2s"],
    "redpaper-bidirectional": [],
    "four-queue-maps": ["--event", "apply-stop@1s+1s"],
    "mirror-active-passive": ["--event", "mirror-suspend@1s+2s"],
    "mq-buffer-pool-mover": [],
}


@pytest.mark.parametrize("stem", sorted(SIMULATED))
def test_simulate_text_names_no_internal_stage_path_or_node_id(stem, tmp_path, capsys):
    """``qrtune simulate``'s text (summary, stage utilisation, events, notes, or its refusal) reads in the
    metric catalogue's labels: no stage name, settings path, node id or other snake_case identifier."""
    from engine import projectfile
    from engine.cli import main

    sample = next(p for p in SAMPLES if p.stem == stem)
    db = tmp_path / "runs.duckdb"
    status = main(["simulate", str(sample), "--duration", "5s", "--quiet", "--db", str(db), *SIMULATED[stem]])
    out = capsys.readouterr()
    text = (out.out + out.err).replace(str(db), "the store")
    assert status in (0, 2) and text.strip(), text
    _assert_no_internal_names(projectfile.load(sample), [text])
    assert not re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", text), text
    if stem == "redpaper-baseline":
        assert "stage utilisation: " in text and "MQ channel stop 2-4 s" in text
    if stem == "mirror-active-passive":
        assert "Peak tracked changes" in text and "Db2 Mirror suspend" in text
