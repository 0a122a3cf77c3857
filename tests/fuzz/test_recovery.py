"""Crash recovery that cannot harm: damaged autosaves are set aside, hostile original paths are not kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QStandardPaths

from app.autosave import AUTOSAVE_FORMAT, DAMAGED_SUFFIX, recover, scan
from app.document import Document
from engine import projectfile, templates

QStandardPaths.setTestModeEnabled(True)
GONE_PID = 2**22 + 12345  # no process has this id: the writing session crashed


def _autosave(folder: Path, name: str, original_path, project=None, pid: int = GONE_PID) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    project = project or templates.unidirectional("Recovered")
    path = folder / f"{name}.autosave.json"
    path.write_text(
        json.dumps(
            {
                "format": AUTOSAVE_FORMAT,
                "pid": pid,
                "saved_at": 1.0,
                "original_path": original_path,
                "project": json.loads(projectfile.dumps(project)),
            }
        )
    )
    return path


DAMAGED = {
    "deep-nesting": "[" * 200_000 + "]" * 200_000,
    "truncated": '{"format": "qrtune-autosave/1", "pid": 1, "proj',
    "binary": b"\x00\xff" * 500,
    "nan": '{"format": "qrtune-autosave/1", "pid": 1, "saved_at": NaN, "project": {}}',
    "wrong-types": '{"format": "qrtune-autosave/1", "pid": "x", "saved_at": [], "project": 3}',
}


@pytest.mark.parametrize("kind", sorted(DAMAGED))
def test_a_damaged_autosave_is_set_aside_not_read_again(tmp_path, kind):
    folder = tmp_path / "autosave"
    folder.mkdir()
    bad = folder / "bad.autosave.json"
    (bad.write_bytes if isinstance(DAMAGED[kind], bytes) else bad.write_text)(DAMAGED[kind])
    good = _autosave(folder, "good", "")
    found = scan(folder)
    assert [e.file for e in found.entries] == [good]
    assert found.set_aside == [folder / ("bad.autosave.json" + DAMAGED_SUFFIX)]
    assert not bad.exists() and found.set_aside[0].exists()  # kept for the user, renamed
    assert scan(folder).set_aside == []  # never read again


def test_the_window_starts_past_a_damaged_autosave_and_says_so(qtbot, tmp_path):
    from app.main_window import MainWindow

    folder = tmp_path / "autosave"
    folder.mkdir()
    (folder / "crash.autosave.json").write_text("[" * 200_000 + "]" * 200_000)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    w = MainWindow(settings=settings, db_path=str(tmp_path / "runs.duckdb"), autosave_dir=folder)
    qtbot.addWidget(w)
    assert w.offer_recovery(ask=False) is False
    assert "set aside" in w.last_message and DAMAGED_SUFFIX in w.last_message


def test_an_autosave_whose_project_is_damaged_is_set_aside_when_recovery_fails(qtbot, tmp_path):
    from app.main_window import MainWindow

    folder = tmp_path / "autosave"
    path = _autosave(folder, "x", "")
    data = json.loads(path.read_text())
    data["project"]["nodes"][0]["params"] = {"row_bytes": -5}
    path.write_text(json.dumps(data))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    w = MainWindow(settings=settings, db_path=str(tmp_path / "runs.duckdb"), autosave_dir=folder)
    qtbot.addWidget(w)
    assert w.offer_recovery(ask=False) is False
    assert "set aside" in w.last_message and not path.exists()


def _hostile_paths(tmp_path: Path) -> dict:
    victim = tmp_path / "notes.txt"
    victim.write_text("the user's notes")
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"format_version": 2, "name": ')
    return {
        "a text file": str(victim),
        "a damaged project": str(damaged),
        "a folder": str(tmp_path),
        "missing": str(tmp_path / "gone.json"),
        "not text": 42,
        "the null device": os.devnull,
    }


@pytest.mark.parametrize(
    "what", ["a text file", "a damaged project", "a folder", "missing", "not text", "the null device"]
)
def test_a_hostile_original_path_leaves_the_recovered_document_untitled(qtbot, tmp_path, what):
    hostile = _hostile_paths(tmp_path)[what]
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    _autosave(tmp_path / "autosave", "x", hostile)
    entry = scan(tmp_path / "autosave").entries[0]
    doc = Document(templates.unidirectional())
    recover(doc, entry)
    assert doc.path == "" and doc.is_modified() and doc.project.name == "Recovered"
    with pytest.raises(ValueError):
        doc.save()  # no file to save over: Save must ask for a name
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_an_original_path_that_is_a_project_is_kept(qtbot, tmp_path):
    original = tmp_path / "mine.json"
    projectfile.save(templates.unidirectional("On disk"), original)
    _autosave(tmp_path / "autosave", "x", str(original))
    doc = Document(templates.unidirectional())
    recover(doc, scan(tmp_path / "autosave").entries[0])
    assert doc.path == str(original) and doc.project.name == "Recovered"
    doc.undo_stack.undo()
    assert doc.project.name == "On disk"
