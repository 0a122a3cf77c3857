"""GUI test fixtures: isolated settings and autosave folders, a throw-away run store, a fake engine.

The fake Q Replication engine gives deterministic, simple numbers (apply capacity
proportional to NUM_APPLY_AGENTS, channel capacity rising with TRANS_BATCH_SZ) so
GUI behaviour is tested without depending on the calibrated engine's values.
"""

from __future__ import annotations

import json

import pytest
from fake_figures import pipeline_metrics
from PySide6.QtCore import QSettings, QStandardPaths, QtMsgType

from app.autosave import AUTOSAVE_FORMAT
from engine import projectfile
from engine.perf.result import Prediction, StageResult

QStandardPaths.setTestModeEnabled(True)

APPLY_ROWS_PER_AGENT = 800.0
CHANNEL_ROWS_PER_BATCH = 3000.0
CAPTURE_ROWS = 20000.0


def fake_predict(settings: dict) -> Prediction:
    """Deterministic stand-in for the Q Replication engine (rows/s and ms)."""
    agents = settings["qapply"]["num_apply_agents"]
    batch = settings["qcapture"]["trans_batch_sz"]
    caps = {
        "qcapture": CAPTURE_ROWS,
        "mq_channel": CHANNEL_ROWS_PER_BATCH * batch,
        "qapply_agents": APPLY_ROWS_PER_AGENT * agents,
    }
    rate = min(caps.values())
    bottleneck = min(caps, key=caps.get)
    stages = tuple(StageResult(n, c, rate / c, "rows/s", 1000.0 / c) for n, c in caps.items())
    capture_ms, q_ms, apply_ms = 100.0, 50.0 * batch, 4000.0 / agents
    metrics = {
        **pipeline_metrics(rate, capture_ms, q_ms, apply_ms),
        "capture_cpu_us_per_row": 20.0,
        "apply_cpu_us_per_row": 40.0 / batch,
        "apply_lpar_busy_pct": 30.0 + agents,
    }
    units = {
        k: (
            "rows/s"
            if k.endswith("per_s")
            else "ms"
            if k.endswith("_ms")
            else "us/row"
            if k.endswith("per_row")
            else "%"
        )
        for k in metrics
    }
    return Prediction("qrep", metrics, units, stages, bottleneck, (), "fake-1")


@pytest.fixture
def fake_engine(route_engine):
    """Route qrep scenarios to :func:`fake_predict`."""
    route_engine("qrep", fake_predict)
    return fake_predict


@pytest.fixture
def settings(tmp_path):
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    yield s
    s.sync()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "runs.duckdb")


@pytest.fixture
def window(qtbot, tmp_path, settings, db_path):
    """A main window on an isolated settings file, store and autosave folder (not shown)."""
    from app.main_window import MainWindow

    w = MainWindow(settings=settings, db_path=db_path, autosave_dir=tmp_path / "autosave")
    w.confirm_discard = lambda: True
    qtbot.addWidget(w)
    yield w
    if w.tasks.busy():
        w.tasks.cancel()
        w.tasks.wait(5000)


#: A process id above Linux's largest (2**22): no process runs with it, so its autosave is offered.
DEAD_PID = 2**22 + 999


@pytest.fixture
def dead_autosave(window):
    """``dead_autosave(project)``: the autosave of ``project`` a crashed session left in the window's folder."""

    def write(project):
        directory = window.autosaver.directory
        directory.mkdir(parents=True, exist_ok=True)
        document = {
            "format": AUTOSAVE_FORMAT,
            "pid": DEAD_PID,
            "saved_at": 1.0,
            "original_path": "",
            "project": json.loads(projectfile.dumps(project)),
        }
        (directory / "dead.autosave.json").write_text(json.dumps(document))
        return directory

    return write


#: Qt warnings the offscreen platform prints for shown windows; harmless.
BENIGN = ("propagateSizeHints", "This plugin does not support")


@pytest.fixture(autouse=True)
def fail_on_qt_warnings(qtlog):
    """GUI tests fail on Qt warnings (ARCHITECTURE.md), except offscreen-platform noise."""
    yield
    bad = [
        r.message
        for r in qtlog.records
        if r.type in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
        and not any(b in r.message for b in BENIGN)
    ]
    assert not bad, f"Qt warnings: {bad}"
