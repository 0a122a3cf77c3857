"""Open and save round trip, recent files, autosave and recovery, the layout kept between sessions."""

import json
import os

from PySide6.QtCore import QSettings

from app.autosave import Autosaver, find_recoverable, recover
from app.document import Document
from engine import projectfile, templates


def test_open_save_round_trip_and_recent_files(window, tmp_path, root):
    sample = root / "sample_runs" / "redpaper-baseline.json"
    assert window.open_project(str(sample))
    original = projectfile.load(sample)
    assert window.document.project == original and not window.document.is_modified()
    assert window.recent_files()[0] == str(sample.resolve())
    qapply = window.document.project.nodes_of("qapply")[0].id
    window.document.set_param(qapply, "num_apply_agents", 9)
    assert window.isWindowModified() and "Modified" in window.modified_label.text()
    out = tmp_path / "copy.json"
    assert window.save_as(str(out))
    assert not window.isWindowModified() and window.document.path == str(out)
    again = projectfile.load(out)
    assert again.node(qapply).params["num_apply_agents"] == 9
    assert again == window.document.project
    assert window.recent_files()[:2] == [str(out.resolve()), str(sample.resolve())]
    assert [a.statusTip() for a in window.recent_menu.actions()][:2] == window.recent_files()[:2]


def test_open_a_bad_file_keeps_the_current_project(window, root):
    before = window.document.project
    bad = root / "tests" / "data" / "projects" / "bad" / "out-of-range.json"
    assert not window.open_project(str(bad), ask=False)
    assert window.document.project is before
    assert "is not allowed" in window.last_message


def test_a_file_from_a_newer_qrtune_is_refused_naming_its_version_and_an_older_one_opens(
    window, root, tmp_path
):
    data = json.loads((root / "tests/data/projects/v4-simulation.json").read_text())
    data["format_version"] = projectfile.FORMAT_VERSION + 1
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(data))
    before = window.document.project
    assert not window.open_project(str(newer), ask=False)
    assert window.document.project is before
    assert window.last_message == (
        f"format_version: {projectfile.FORMAT_VERSION + 1} is newer than this qrtune understands "
        f"(1 to {projectfile.FORMAT_VERSION}); update qrtune to open it"
    )
    assert window.open_project(str(root / "tests/data/projects/v3-simulation.json"), ask=False)
    assert window.document.project.simulation.event_texts() == ["channel-stop@2m+20m"]
    out = tmp_path / "saved.json"
    assert window.save_as(str(out))
    assert json.loads(out.read_text())["format_version"] == projectfile.FORMAT_VERSION


def test_new_from_each_template(window):
    for key in ("unidirectional", "bidirectional", "peer-to-peer", "db2-mirror-pair"):
        assert window.new_from_template(key)
        assert window.document.project == templates.TEMPLATES[key]()
        assert len(window.scene.nodes) == len(window.document.project.nodes)
        assert window.document.undo_stack.count() == 0


def test_autosave_then_recovery_after_a_crash(qtbot, tmp_path):
    saved = tmp_path / "p.json"
    projectfile.save(templates.unidirectional("Mine"), saved)
    doc = Document.open(saved)
    auto = Autosaver(doc, tmp_path / "autosave", delay_ms=10)
    qapply = doc.project.nodes_of("qapply")[0].id
    doc.set_param(qapply, "num_apply_agents", 5)
    qtbot.waitUntil(lambda: auto.writes == 1, timeout=2000)
    assert auto.file.exists()
    data = json.loads(auto.file.read_text())
    assert data["original_path"] == str(saved) and data["pid"] == os.getpid()
    # our own live process's autosave is not offered
    assert find_recoverable(tmp_path / "autosave") == []
    # simulate a crash: the writing process is gone
    data["pid"] = 2**22 + 12345
    auto.file.write_text(json.dumps(data))
    entries = find_recoverable(tmp_path / "autosave")
    assert len(entries) == 1 and entries[0].project_name == "Mine"

    fresh = Document(templates.unidirectional())
    recover(fresh, entries[0])
    assert fresh.project.node(qapply).params["num_apply_agents"] == 5
    assert fresh.path == str(saved) and fresh.is_modified()
    assert entries[0].file.exists()  # the only copy on disk until a new autosave replaces it
    Autosaver(fresh, tmp_path / "autosave").take_over(entries[0].file)
    assert json.loads(entries[0].file.read_text())["pid"] == os.getpid()
    assert find_recoverable(tmp_path / "autosave") == []
    fresh.undo_stack.undo()  # back to what is on disk
    assert fresh.project == projectfile.load(saved)


def test_autosave_removed_on_save(qtbot, tmp_path):
    doc = Document(templates.unidirectional())
    auto = Autosaver(doc, tmp_path / "autosave", delay_ms=10)
    doc.rename_node(doc.project.nodes[0].id, "X")
    assert auto.save_now() == auto.file and auto.file.exists()
    doc.save(tmp_path / "x.json")
    assert not auto.file.exists()


def test_window_offers_recovery(window, dead_autosave):
    project = templates.bidirectional("Lost work")
    dead_autosave(project)
    assert window.offer_recovery(ask=False)
    assert window.document.project == project and window.document.is_modified()


def test_dock_layout_is_remembered(qtbot, tmp_path, db_path):
    from app.main_window import MainWindow

    ini = str(tmp_path / "layout.ini")
    w = MainWindow(settings=QSettings(ini, QSettings.IniFormat), db_path=db_path, autosave_dir=tmp_path / "a")
    qtbot.addWidget(w)
    w.runs_dock.setFloating(True)
    w.confirm_discard = lambda: True
    w.close()
    w2 = MainWindow(
        settings=QSettings(ini, QSettings.IniFormat), db_path=db_path, autosave_dir=tmp_path / "a"
    )
    qtbot.addWidget(w2)
    assert w2.runs_dock.isFloating()
    assert not w2.palette_dock.isFloating()


def test_shortcuts(window):
    keys = {a.text().replace("&", ""): [s.toString() for s in a.shortcuts()] for a in window.actions()}
    assert "Ctrl+S" in keys["Save"] and "Ctrl+O" in keys["Open..."]
    assert "F5" in keys["Predict and Record"] and "Ctrl+0" in keys["Fit to View"]
    assert "Del" in keys["Delete"]
    assert "Ctrl+Z" in [s.toString() for s in window.act_undo.shortcuts()]


def test_new_from_control_tables_builds_one_flow_per_queue_map(window, root, monkeypatch):
    files = sorted(str(p) for p in (root / "sample_runs" / "control-tables").glob("*.del"))
    assert window.new_from_control_tables(files)
    agents = sorted(n.params["num_apply_agents"] for n in window.document.project.nodes_of("qapply"))
    assert agents == [4, 12] and not window.document.path  # a new, unsaved project
    warned = []
    monkeypatch.setattr("app.dialogs.show_warning", lambda parent, title, text: warned.append(text))
    assert not window.new_from_control_tables(files[:2])  # CAPPARMS and APPLYPARMS only
    assert warned and "lack IBMQREP_" in warned[0]
    assert sorted(n.params["num_apply_agents"] for n in window.document.project.nodes_of("qapply")) == [4, 12]
