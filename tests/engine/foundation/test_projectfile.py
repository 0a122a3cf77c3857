"""Project files: round trips, migration, atomic save and every bad-input message."""

import json
import os
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import (
    DanglingLinkError,
    DuplicateIdError,
    DuplicateLinkError,
    FormatVersionError,
    IncompatibleLinkError,
    MalformedJsonError,
    ProjectFileError,
    TopologyError,
    UnknownKindError,
    UnknownParameterError,
    ValueRangeError,
)
from engine.topology import check_complete

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted((ROOT / "sample_runs").glob("*.json"))
BAD = ROOT / "tests" / "data" / "projects" / "bad"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_round_trip(path, tmp_path):
    project = projectfile.load(path)
    check_complete(project)
    out = tmp_path / path.name
    projectfile.save(project, out)
    assert projectfile.load(out) == project
    assert json.loads(out.read_text()) == json.loads(path.read_text())


def test_every_format_version_has_an_example():
    examples = {
        json.loads(p.read_text())["format_version"] for p in (ROOT / "tests/data/projects").glob("*.json")
    }
    assert examples == set(range(1, projectfile.FORMAT_VERSION + 1))


def test_v1_migrates_to_current():
    old = projectfile.load(ROOT / "tests/data/projects/v1-unidirectional.json")
    assert [n.kind for n in old.nodes][:3] == ["source_db2", "qcapture", "queue_manager"]
    assert [link.id for link in old.links] == [f"link-{i}" for i in range(1, 7)]
    assert old.node("ab-1-qcapture").param("trans_batch_sz") == 3
    assert old.node("ab-1-qcapture").param("commit_interval_ms") == 500  # default filled in
    check_complete(old)


@pytest.mark.parametrize("name, mode", [("v2-drain.json", "drain"), ("v2-unidirectional.json", "steady")])
def test_v2_pre_loaded_queue_migrates_to_a_drain_run(name, mode):
    """Version 2 made any pre-loaded depth a drain; version 3 says so with run_mode."""
    project = projectfile.load(ROOT / "tests/data/projects" / name)
    receive_qm = [n for n in project.nodes if n.kind == "queue_manager"][-1]
    assert receive_qm.param("run_mode") == mode
    assert (
        projectfile.load(ROOT / "tests/data/projects/v3-drain.json").node(receive_qm.id).param("run_mode")
        == "drain"
    )


def test_v3_with_a_simulation_migrates_to_v4_and_round_trips(tmp_path):
    """Version-3 files written before the ``simulation`` object had its own version keep it; saved
    again they are version 4, and a version-4 file reads back unchanged."""
    old = projectfile.load(ROOT / "tests/data/projects/v3-simulation.json")
    current = projectfile.load(ROOT / "tests/data/projects/v4-simulation.json")
    assert old == current
    assert old.simulation.event_texts() == ["channel-stop@2m+20m"]
    assert old.simulation.profile == {"kind": "constant", "rows_per_s": 2000}
    out = tmp_path / "saved.json"
    projectfile.save(old, out)
    saved = json.loads(out.read_text())
    assert saved["format_version"] == projectfile.FORMAT_VERSION == 4
    assert saved == json.loads((ROOT / "tests/data/projects/v4-simulation.json").read_text())
    assert projectfile.load(out) == old


def test_v3_without_a_simulation_gains_none():
    project = projectfile.load(ROOT / "tests/data/projects/v3-drain.json")
    assert project.simulation.is_empty()
    assert '"simulation"' not in projectfile.dumps(project)


def test_a_file_newer_than_this_qrtune_is_refused_naming_both_versions(tmp_path):
    data = json.loads((ROOT / "tests/data/projects/v4-simulation.json").read_text())
    data["format_version"] = projectfile.FORMAT_VERSION + 1
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatVersionError) as info:
        projectfile.load(path)
    text = str(info.value)
    assert f"format_version: {projectfile.FORMAT_VERSION + 1} is newer" in text
    assert f"1 to {projectfile.FORMAT_VERSION}" in text and "\n" not in text


@pytest.mark.parametrize(
    "name, error, words",
    [
        ("malformed.json", MalformedJsonError, ["line 2", "column"]),
        ("newer-version.json", FormatVersionError, ["99", "newer"]),
        ("unknown-version.json", FormatVersionError, ["0", "unknown"]),
        ("missing-version.json", FormatVersionError, ["format_version", "missing"]),
        (
            "wrong-type.json",
            ValueRangeError,
            ["nodes[5].params.num_apply_agents", '"six"', "integer from 1 to 128"],
        ),
        ("unknown-kind.json", UnknownKindError, ["nodes[2].kind", "queue_mgr", "queue_manager"]),
        ("unknown-param.json", UnknownParameterError, ["trans_batch_size", "trans_batch_sz"]),
        ("dangling-link.json", DanglingLinkError, ["links[3].target", "ab-9-nowhere"]),
        ("out-of-range.json", ValueRangeError, ["nodes[1].params.trans_batch_sz", "0", "1 to 10,000"]),
        ("incompatible-link.json", IncompatibleLinkError, ["cannot feed", "Db2 B (target)"]),
        ("duplicate-link.json", DuplicateLinkError, ["already linked", "link-1"]),
        ("duplicate-node-id.json", DuplicateIdError, ["nodes[1].id", "ab-0-source-db2"]),
    ],
)
def test_bad_files_name_field_value_and_allowed(name, error, words):
    with pytest.raises(error) as info:
        projectfile.load(BAD / name)
    for w in words:
        assert w in str(info.value)


def test_incomplete_topology_loads_but_cannot_predict():
    project = projectfile.load(BAD / "incomplete-topology.json")
    with pytest.raises(TopologyError, match="needs 1 complete flow"):
        check_complete(project)


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    project = projectfile.load(SAMPLES[0])
    target = tmp_path / "p.json"
    target.write_text("previous content")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        projectfile.save(project, target)
    assert target.read_text() == "previous content"
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_fifo_device_or_folder_is_refused_as_a_project_without_waiting(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "p.json"
        os.mkfifo(path)  # no writer: opening it for reading would wait forever
        what = r"named pipe \(FIFO\)"
    elif kind == "device":
        path, what = "/dev/zero", "device"
    else:
        path, what = tmp_path, "folder"
    with pytest.raises(ProjectFileError, match=rf"{what}, not a regular file; not a qrtune file"):
        projectfile.load(path)
