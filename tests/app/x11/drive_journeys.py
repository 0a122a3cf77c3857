"""Walk the journeys of ../shared/JOURNEYS.md in the real window, on a real X display, as a user would.

Run by ``tests/app/test_journeys_x11.py`` in a child process (Qt's platform is chosen once per
process, and the test suite's is offscreen):

    DISPLAY=:99 QT_QPA_PLATFORM=xcb python tests/app/x11/drive_journeys.py OUT_DIR [WIDTHxHEIGHT]

Each journey is driven through the window's menus, shortcuts, buttons and fields (``QTest``
key presses and clicks go through the X server's event queue like a user's), waits for the
background work, checks what the user would read, and saves a screenshot grabbed from the X
server (``QScreen.grabWindow``, what the display shows, not a widget's own rendering) as
``OUT_DIR/journeyNN-name.png``. ``OUT_DIR/journeys.json`` lists each journey's checks and
screenshot; the process exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
SAMPLES = ROOT / "sample_runs"

from PySide6.QtCore import QSettings, QStandardPaths, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402


class Walk:
    """The window under test, the output folder and the journeys' records."""

    def __init__(self, out: Path, size: tuple[int, int] | None):
        from app.main_window import MainWindow

        self.app = QApplication.instance() or QApplication(sys.argv[:1])
        QStandardPaths.setTestModeEnabled(True)
        self.out = out
        self.tmp = Path(tempfile.mkdtemp(prefix="qrtune-journeys-"))
        self.window = MainWindow(
            settings=QSettings(str(self.tmp / "s.ini"), QSettings.IniFormat),
            db_path=str(self.tmp / "runs.duckdb"),
            autosave_dir=self.tmp / "autosave",
        )
        self.window.confirm_discard = lambda: True  # journeys open one sample after another
        if size:
            self.window.resize(*size)
        self.window.show()
        self.window.activateWindow()
        self.wait(lambda: self.window.isVisible(), 5)
        self.records: list[dict] = []

    # -- helpers ------------------------------------------------------------------------------
    def wait(self, condition, timeout_s: float = 60.0) -> bool:
        """Process events until ``condition()`` holds or ``timeout_s`` passes."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            self.app.processEvents()
            if condition():
                return True
            time.sleep(0.01)
        return bool(condition())

    def settle(self, seconds: float = 0.3) -> None:
        self.wait(lambda: False, seconds)

    def key(self, keys: str) -> None:
        """Press a shortcut (``F5``, ``Ctrl+0``) on the window, as a user's keyboard would."""
        from PySide6.QtGui import QKeySequence

        combo = QKeySequence(keys)[0]
        QTest.keyClick(self.window, combo.key(), combo.keyboardModifiers())
        self.settle(0.1)

    def click(self, widget) -> None:
        QTest.mouseClick(widget, Qt.LeftButton)
        self.settle(0.1)

    def type_into(self, line_edit, text: str) -> None:
        line_edit.setFocus()
        line_edit.selectAll()
        QTest.keyClicks(line_edit, text)
        self.settle(0.05)

    def idle(self, timeout_s: float = 120.0) -> bool:
        """Wait until the window's background task (and the advisor's) is done."""
        return self.wait(lambda: not self.window.tasks.busy(), timeout_s)

    def open(self, name: str) -> None:
        assert self.window.open_project(str(SAMPLES / name), ask=False), self.window.last_message
        self.wait(lambda: self.window.live.prediction is not None or bool(self.window.live.error), 30)
        self.settle(0.3)

    def shot(self, name: str) -> str:
        self.settle(0.4)
        screen = self.window.screen()
        ratio = screen.devicePixelRatio()  # 1.5 at QT_SCALE_FACTOR=1.5: the grab is in device pixels
        frame = self.window.frameGeometry()
        image = screen.grabWindow(0).copy(
            round(frame.x() * ratio),
            round(frame.y() * ratio),
            round(frame.width() * ratio),
            round(frame.height() * ratio),
        )
        path = self.out / f"{name}.png"
        image.save(str(path))
        return str(path)

    def journey(self, number: int, name: str, fn) -> None:
        checks: list[tuple[str, bool]] = []
        error = ""
        try:
            fn(checks)
        except Exception:  # noqa: BLE001 - reported in the record, the walk goes on
            error = traceback.format_exc(limit=4)
        shot = self.shot(f"journey{number:02d}-{name}")
        self.records.append(
            {
                "journey": number,
                "name": name,
                "checks": checks,
                "error": error,
                "screenshot": shot,
                "ok": not error and all(ok for _, ok in checks),
            }
        )


def j1_falling_behind(w: Walk, checks) -> None:
    w.open("redpaper-baseline.json")
    w.key("F5")  # Predict and Record
    from engine.limit import limit_of
    from engine.metrics.stages import stage_label

    text = w.window.summary.text()
    checks.append(
        ("headline names the throughput and END2END_LATENCY", "ROWS_APPLIED" in text and "END2END" in text)
    )
    stage = limit_of(w.window.live.prediction).stage  # the busiest stage
    busiest = max(w.window.live.prediction.stages, key=lambda s: s.utilisation).name
    checks.append(
        (
            f"one bottleneck, the busiest stage ({busiest}), named in the headline",
            stage == busiest
            and f">{stage_label(stage)}<" in text
            and stage not in text
            and text.count("bottleneck") == 1,
        )
    )
    marked = [i for i in w.window.scene.nodes.values() if i.bottleneck]
    checks.append(
        ("the bottleneck is marked on the canvas, once", len(marked) == 1 and stage in marked[0].stage_names)
    )
    w.key("Ctrl+0")
    checks.append(("Ctrl+0 fits the canvas", w.window.view.auto_fit))
    w.shot("journey01-topology")
    w.key("Ctrl+2")
    checks.append(
        ("Results tab with the CAPTURE / Q / APPLY values", len(w.window.results.latency_chart.texts) == 3)
    )


def j2_apply_agents(w: Walk, checks) -> None:
    w.open("redpaper-baseline.json")
    w.key("F7")
    sweep = w.window.view_widget("Sweep")
    sweep.set_axis("qapply", "num_apply_agents", "1..16")
    sweep.target_rate.setFocus()
    sweep.target_rate.selectAll()
    QTest.keyClicks(sweep.target_rate, "40000")
    QTest.keyClick(sweep.target_rate, Qt.Key_Tab)
    w.click(sweep.run_button)
    checks.append(("the sweep finishes", w.idle(120) and sweep.sweep_id is not None))
    checks.append(("the pick holds the target rate", "target rate" in sweep.pick_label.text()))
    checks.append(
        (
            "target and 90% CPU lines on screen",
            len(sweep.rate_chart.lines) == 1 and len(sweep.cpu_chart.lines) == 1,
        )
    )
    pdf = w.tmp / "agents-sweep.pdf"
    w.window.export_sweep_report(path=str(pdf))
    checks.append(("the sweep's PDF is written", w.idle(60) and pdf.is_file() and pdf.stat().st_size > 5000))


def j3_batching(w: Walk, checks) -> None:
    w.open("redpaper-baseline.json")
    qcap = w.window.document.project.nodes_of("qcapture")[0].id
    ids = []
    for batch in (1, 3, 5):
        w.window.document.set_param(qcap, "trans_batch_sz", batch)
        ids.append(w.window.predict_and_record())
    w.window.runs.refresh()
    w.window.runs.select_ids(ids)
    w.click(w.window.runs.compare_button)
    view = w.window.view_widget("Compare")
    checks.append(
        ("three runs side by side", view.comparison is not None and len(view.comparison.labels) == 3)
    )
    labels = [view.settings_table.verticalHeaderItem(r).text() for r in range(view.settings_table.rowCount())]
    checks.append(("the setting is named as IBM does", any("TRANS_BATCH_SZ" in t for t in labels)))


def j4_outage(w: Walk, checks) -> None:
    w.open("redpaper-baseline.json")
    src = w.window.document.project.nodes_of("source_db2")[0].id
    w.window.document.set_param(src, "offered_rows_per_s", 30000)
    w.key("F6")
    sim = w.window.view_widget("Simulation")
    w.type_into(sim.duration, "50m")
    w.click(sim.events_editor.add_button)  # a new event: the MQ channel stopped 2 minutes in, for 20 minutes
    checks.append(
        ("the events form adds a 20-minute channel stop", sim.event_texts() == ["channel-stop@2m+20m"])
    )
    w.click(sim.run_button)
    checks.append(("the simulation finishes", w.idle(180) and sim.outcome is not None))
    text = sim.headline.text()
    checks.append(
        ("catch-up time and peak backlog in the headline", "caught up" in text and "peak backlog" in text)
    )
    checks.append(("time reads in minutes", sim.depth_chart.getAxis("bottom").labelText == "elapsed minutes"))
    checks.append(("the buffer pool is drawn against the depth", len(sim.depth_chart.lines) == 1))


def j5_switch_over(w: Walk, checks) -> None:
    sim = w.window.view_widget("Simulation")
    w.key("F6")
    text = sim.headline.text()
    checks.append(
        (
            "switch-over headline with the time to apply everything in flight",
            "Planned switch-over" in text and "recovery time" in text,
        )
    )


def j6_bidir_p2p(w: Walk, checks) -> None:
    ids = []
    for name in ("redpaper-bidirectional.json", "redpaper-peer-to-peer.json"):
        w.open(name)
        ids.append(w.window.predict_and_record())
    w.window.runs.only_project.setChecked(False)
    w.window.runs.refresh()
    w.window.runs.select_ids(ids)
    w.click(w.window.runs.compare_button)
    view = w.window.view_widget("Compare")
    checks.append(
        (
            "both topologies compared with each system's figures",
            view.comparison is not None and view.systems_table.rowCount() > 0,
        )
    )


def j7_mirror(w: Walk, checks) -> None:
    w.open("mirror-active-passive.json")
    w.key("Ctrl+Shift+T")
    goals = [w.window.advisor.goal_box.itemText(i) for i in range(w.window.advisor.goal_box.count())]
    checks.append(
        ("the advisor offers Db2 Mirror goals only", goals and all(g.startswith("mirror") for g in goals))
    )
    checks.append(("response time in the headline", "Response time" in w.window.summary.text()))


def j8_monitor(w: Walk, checks) -> None:
    started = w.window.open_monitor_sample(ask=False)
    view = w.window.view_widget("Monitor")
    checks.append(
        (
            "the sample exports import in the background",
            started
            and w.wait(lambda: not view.tasks.busy(), 120)
            and view.outcome is not None
            and view.outcome.imported_rows > 0,
        )
    )
    w.click(view.fit_button)
    checks.append(
        (
            "the fit reports the held-out error",
            w.wait(lambda: not view.tasks.busy(), 180)
            and view.outcome.fit is not None
            and "held out" in view.summary.text(),
        )
    )


def j9_v8_and_mq(w: Walk, checks) -> None:
    w.open("mq-buffer-pool-mover.json")
    w.key("Ctrl+Shift+T")  # the canvas
    tags = sum(1 for i in w.window.scene.nodes.values() if i.bottleneck)
    checks.append(("the MQ mover shows one bottleneck tag", tags == 1))
    w.shot("journey09-mq-mover")
    w.open("db2-v8-migration.json")
    w.key("Ctrl+2")
    checks.append(("DBM1 storage below the bar in the headline", "DBM1" in w.window.results.headline.text()))


def j10_evidence(w: Walk, checks) -> None:
    w.key("F8")
    view = w.window.view_widget("Validation")
    t0 = time.monotonic()
    done = w.idle(60) and bool(view.checks)
    checks.append(
        (
            f"validation results within 5 s ({time.monotonic() - t0:.1f} s)",
            done and time.monotonic() - t0 < 5.0,
        )
    )
    checks.append(
        (
            "medians and 90th percentiles",
            "median" in view.summary_label.text() and "90th" in view.summary_label.text(),
        )
    )


def _compare_recorded(w: Walk, ids: list) -> object:
    """Select the recorded runs ``ids`` in the Runs list and open them side by side."""
    w.window.runs.only_project.setChecked(False)
    w.window.runs.refresh()
    w.window.runs.select_ids(ids)
    w.click(w.window.runs.compare_button)
    return w.window.view_widget("Compare")


def j11_linux_target(w: Walk, checks) -> None:
    w.open("zos-to-linux-bindings.json")
    ids, limits = [w.window.predict_and_record()], [w.window.live.prediction.bottleneck]
    w.open("zos-to-linux-client.json")
    qapply = w.window.document.project.nodes_of("qapply")[0].id
    w.key("Ctrl+Shift+T")  # the canvas
    tags = [i.platform for i in w.window.scene.nodes.values() if i.node.kind != "channel"]
    checks.append(("each node names its platform", all(tags) and any("Linux" in t for t in tags)))
    checks.append(
        (
            "the client connection is drawn as one",
            sum(i.is_client() for i in w.window.scene.links.values()) == 1,
        )
    )
    w.shot("journey11-client-canvas")
    for rtt_us in (100, 1_000, 10_000):
        w.window.document.set_param(qapply, "client_rtt_us", rtt_us)
        ids.append(w.window.predict_and_record())
        limits.append(w.window.live.prediction.bottleneck)
    checks.append(("client round trips limit the 10 ms client", limits[-1] == "mq_client"))
    view = _compare_recorded(w, ids)
    checks.append(
        (
            "bindings and three round trips side by side",
            view.comparison is not None and len(view.comparison.labels) == 4,
        )
    )


def j12_queue_maps(w: Walk, checks) -> None:
    w.open("four-queue-maps.json")
    qcap = w.window.document.project.nodes_of("qcapture")[0].id
    ids, rates = [], []
    for maps in (1, 2, 4, 8):
        w.window.document.set_param(qcap, "queue_maps", maps)
        ids.append(w.window.predict_and_record())
        rates.append(w.window.live.prediction.metrics["apply_rows_per_s"])
    checks.append(
        (
            "more maps lift throughput until a shared resource saturates",
            rates[1] > rates[0] and rates[3] <= rates[2] * 1.01,
        )
    )
    view = _compare_recorded(w, ids)
    checks.append(
        ("1, 2, 4 and 8 maps side by side", view.comparison is not None and len(view.comparison.labels) == 4)
    )
    w.window.document.set_param(qcap, "queue_maps", 1)
    w.key("Ctrl+Shift+T")
    w.window.advisor_dock.raise_()
    w.click(w.window.advisor.advise_button)
    w.wait(lambda: not w.window.advisor.tasks.busy(), 180)
    titles = [r.title for r in w.window.advisor.results]
    checks.append(
        (f"the advisor names how many queue maps ({titles})", any("queue maps" in t for t in titles))
    )


def j13_sql_replication(w: Walk, checks) -> None:
    w.open("sql-replication-vs-q.json")
    w.key("Ctrl+2")
    results = w.window.results
    index = results.tables.indexOf(results.sql_table)
    checks.append(("a Q vs SQL Replication tab in the results", index >= 0))
    if index >= 0:
        results.tables.setCurrentIndex(index)
    pdf = w.tmp / "sql-vs-q.pdf"
    w.window.export_report(path=str(pdf))
    checks.append(
        (
            "the report for the change board is written",
            w.idle(90) and pdf.is_file() and pdf.stat().st_size > 5000,
        )
    )


def j14_production_rate(w: Walk, checks) -> None:
    w.open("redpaper-baseline.json")
    src = w.window.document.project.nodes_of("source_db2")[0].id
    w.window.document.set_param(src, "offered_rows_per_s", 2000)
    w.key("Ctrl+Shift+T")  # the canvas and its headline
    w.wait(lambda: "holds" in w.window.summary.text(), 10)
    text = w.window.summary.text()
    checks.append(
        (
            "a held rate reads as headroom, not a workload bottleneck",
            "holds 2,000" in text and "headroom" in text and "source_workload" not in text,
        )
    )
    # she turns COMMIT_INTERVAL on Q Capture: at 2,000 rows/s the interval, not the transaction
    # limit, decides the MQ commit, so a shorter one lowers END2END and no note says otherwise
    qcapture = w.window.document.project.nodes_of("qcapture")[0].id
    w.window.scene.select_node(qcapture)
    w.window.inspector_dock.raise_()
    field = w.window.inspector.fields["commit_interval_ms"]
    e2e = w.window.live.shown.metrics["end2end_latency_ms"]
    w.type_into(field.edit, "200")
    field.edit.editingFinished.emit()
    w.window.inspector.scroll.ensureWidgetVisible(field)
    w.wait(lambda: w.window.live.shown.metrics["end2end_latency_ms"] < e2e, 10)
    checks.append(
        (
            "COMMIT_INTERVAL 200 ms lowers END2END at 2,000 rows/s and carries no no-effect note",
            w.window.document.project.node(qcapture).params["commit_interval_ms"] == 200
            and w.window.live.shown.metrics["end2end_latency_ms"] < 0.95 * e2e
            and not field.note.startswith("No effect on this prediction"),
        )
    )
    # then her day in short: a quiet night at 200 rows/s, an hour of peak at her 2,000 an hour in, from the form
    w.key("F6")
    sim = w.window.view_widget("Simulation")
    profile = sim.profile_editor
    profile.kind.setFocus()
    for _ in range(profile.kind.count()):  # the arrow keys walk the kinds, each committed as chosen
        if profile.kind.currentData() == "bursts":
            break
        QTest.keyClick(profile.kind, Qt.Key_Down)
        w.settle(0.1)
    form = profile.editors["bursts"]
    w.type_into(form["burst_rows_per_s"].lineEdit(), "2000")
    QTest.keyClick(form["burst_rows_per_s"], Qt.Key_Return)
    w.type_into(form["start_s"], "1h")
    QTest.keyClick(form["start_s"], Qt.Key_Return)
    w.type_into(sim.duration, "3h")
    saved = w.window.document.project.simulation.profile
    checks.append(
        (
            "the profile form sets a daily peak of 2,000 rows/s in the project",
            saved is not None
            and saved["kind"] == "bursts"
            and saved["burst_rows_per_s"] == 2000
            and saved["start_s"] == 3600,
        )
    )
    w.click(sim.run_button)
    checks.append(("the quiet night and the peak are simulated", w.idle(300) and sim.outcome is not None))
    m = sim.outcome.metrics if sim.outcome else {}
    checks.append(
        (
            "it stays physical: throughput between the quiet and the peak rate, finite END2END",
            200 < m.get("throughput_rows_per_s", 0) < 2000
            and 0 < m.get("end2end_latency_p99_ms", float("nan")) < 60_000,
        )
    )


JOURNEYS = (
    (1, "falling-behind", j1_falling_behind),
    (2, "apply-agents", j2_apply_agents),
    (3, "batching", j3_batching),
    (4, "channel-outage", j4_outage),
    (5, "switch-over", j5_switch_over),
    (6, "bidirectional-or-p2p", j6_bidir_p2p),
    (7, "db2-mirror", j7_mirror),
    (8, "monitor-fit", j8_monitor),
    (9, "v8-and-mq-sizing", j9_v8_and_mq),
    (10, "evidence", j10_evidence),
    (11, "linux-target-bindings-or-client", j11_linux_target),
    (12, "queue-maps", j12_queue_maps),
    (13, "sql-replication", j13_sql_replication),
    (14, "production-rate", j14_production_rate),
)


def main(argv: list[str]) -> int:
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    size = tuple(int(v) for v in argv[2].split("x")) if len(argv) > 2 else None
    QMessageBox.information = staticmethod(lambda *a, **k: QMessageBox.Ok)  # no modal box blocks the walk
    walk = Walk(out, size)
    for number, name, fn in JOURNEYS:
        walk.journey(number, name, lambda checks, f=fn: f(walk, checks))
    geometry = walk.window.frameGeometry()
    screen = walk.window.screen().availableGeometry()
    summary = {
        "window": [geometry.width(), geometry.height()],
        "screen": [screen.width(), screen.height()],
        "journeys": walk.records,
    }
    (out / "journeys.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    walk.window.close()
    return 0 if all(r["ok"] for r in walk.records) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
