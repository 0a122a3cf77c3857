"""Recovery never drops the only copy of the edits; a full disk is reported in the window; dialogs
show a project's text as typed, never as HTML."""

from __future__ import annotations

import json
import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app import dialogs
from app.autosave import AUTOSAVE_FORMAT, find_recoverable
from engine import projectfile, templates
from engine.io.processid import process_start, still_running

HOSTILE_NAME = '<img src="/etc/passwd"><h1>URGENT: click Discard</h1>'


def _autosave(directory, project, pid: int, pid_started: str | None):
    directory.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": AUTOSAVE_FORMAT,
        "pid": pid,
        "saved_at": 2.0,
        "original_path": "",
        "project": json.loads(projectfile.dumps(project)),
    }
    if pid_started is not None:
        doc["pid_started"] = pid_started
    file = directory / "other.autosave.json"
    file.write_text(json.dumps(doc))
    return file


def test_an_autosave_whose_pid_now_belongs_to_another_process_is_offered(tmp_path):
    live = os.getppid()  # a running process that did not write the autosave
    assert process_start(live) is not None
    _autosave(tmp_path, templates.peer_to_peer("Lost"), live, "another-boot:12345")
    assert [e.project_name for e in find_recoverable(tmp_path)] == ["Lost"]
    _autosave(tmp_path, templates.peer_to_peer("Lost"), live, process_start(live))
    assert find_recoverable(tmp_path) == []  # its writer really is still running
    assert still_running(os.getpid(), process_start(os.getpid()))


def test_recovery_keeps_the_old_autosave_when_the_new_one_cannot_be_written(
    qtbot, window, monkeypatch, dead_autosave
):
    import errno

    import engine.io.atomicfile as atomicfile

    directory = dead_autosave(templates.peer_to_peer("Lost"))
    old = directory / "dead.autosave.json"
    before = old.read_bytes()
    monkeypatch.setattr(dialogs, "ask", lambda *a, **k: QMessageBox.Yes)

    def no_space(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomicfile, "write_chunk", no_space)
    assert window.offer_recovery()
    assert window.document.project.name == "Lost"
    assert old.read_bytes() == before  # still the only copy on disk, untouched
    assert "Autosave failed: No space left on device" in window.last_message


def test_an_autosave_on_a_full_disk_is_reported_in_the_window(qtbot, full_disk, settings, db_path):
    from app.main_window import MainWindow

    w = MainWindow(settings=settings, db_path=db_path, autosave_dir=full_disk.folder / "autosave")
    w.confirm_discard = lambda: True
    qtbot.addWidget(w)
    w.autosaver.timer.setInterval(10)
    qapply = w.document.project.nodes_of("qapply")[0].id
    w.document.set_param(qapply, "num_apply_agents", 5)
    qtbot.waitUntil(lambda: w.autosaver.file.exists(), timeout=5000)
    before = w.autosaver.file.read_bytes()
    full_disk.fill()
    w.document.set_param(qapply, "num_apply_agents", 6)
    qtbot.waitUntil(lambda: "Autosave failed" in w.last_message, timeout=5000)
    assert "No space left on device" in w.last_message and not w.banner.isHidden()
    assert w.autosaver.file.read_bytes() == before  # the last good autosave is still there


def _error_boxes(window) -> list[str]:
    return [b.text() for b in window.findChildren(QMessageBox) if b.icon() == QMessageBox.Critical]


def test_a_save_on_a_full_disk_shows_an_error_and_keeps_the_previous_file(qtbot, window, full_disk):
    target = full_disk.folder / "mine.json"
    projectfile.save(templates.unidirectional("Mine"), target)
    before = target.read_bytes()
    assert window.open_project(str(target), ask=False)
    window.document.rename_node(window.document.project.nodes_of("qapply")[0].id, "Changed")
    full_disk.fill()
    assert not window.save()
    texts = _error_boxes(window)
    assert len(texts) == 1 and "No space left on device; the previous mine.json is unchanged" in texts[0]
    assert target.read_bytes() == before and window.document.is_modified()


def test_a_report_export_to_a_full_disk_shows_an_error_and_keeps_the_previous_pdf(
    fake_engine, qtbot, window, full_disk
):
    out = full_disk.folder / "r.pdf"
    with qtbot.waitSignal(window.tasks.finished, timeout=60000):
        assert window.export_report(str(out))
    before = out.read_bytes()
    assert before.startswith(b"%PDF")
    full_disk.fill()
    with qtbot.waitSignal(window.tasks.failed, timeout=60000):
        assert window.export_report(str(out))
    texts = _error_boxes(window)
    assert len(texts) == 1 and "the previous r.pdf is unchanged" in texts[0], texts
    assert out.read_bytes() == before
    assert "Report written" not in window.statusBar().currentMessage()


def test_the_recovery_and_save_questions_show_a_project_name_as_typed(
    qtbot, window, monkeypatch, dead_autosave
):
    shown = []

    def record(box):
        shown.append((box.textFormat(), box.text()))
        return 0

    monkeypatch.setattr(QMessageBox, "exec", record)
    hostile = templates.peer_to_peer(HOSTILE_NAME)
    dead_autosave(hostile)
    window.offer_recovery()
    window._replace_project(hostile, None)
    window.document.rename_node(window.document.project.nodes_of("qapply")[0].id, "x")
    window._ask_discard()
    assert len(shown) == 2
    for text_format, text in shown:
        assert text_format == Qt.PlainText and HOSTILE_NAME in text
    assert window.banner.textFormat() == Qt.PlainText
