"""The hostile inputs issue 17 lists: each ends in exit 0 or a clean one-line error, quickly.

Every case runs in this process (:func:`harness.run_inprocess`, under a 20 s alarm) and
must not be judged ``traceback`` or ``hang``; the cases the issue says must be refused
are also checked to be refused (not exit 0).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, explain, run_inprocess, verdict  # noqa: E402

BASELINE = ROOT / "sample_runs" / "redpaper-baseline.json"


def _project(**changes) -> dict:
    doc = json.loads(BASELINE.read_text())
    doc.update(changes)
    return doc


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Hostile files, built once: name -> path."""
    d = tmp_path_factory.mktemp("hostile")
    out: dict[str, str] = {}

    def put(name: str, data: str | bytes) -> None:
        path = d / name
        (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
        out[name] = str(path)

    put("deep.json", "[" * 100_000 + "]" * 100_000)
    put("deep-object.json", '{"a":' * 5000 + "1" + "}" * 5000)
    put("hugeint.json", json.dumps(_project())[:-1] + ', "x": ' + "9" * 5000 + "}")
    put("surrogate.json", json.dumps(_project(name="\ud800 bad")))
    put("nan.json", json.dumps(_project()).replace('"rows_per_txn": 5', '"rows_per_txn": NaN'))
    put("inf.json", json.dumps(_project()).replace('"row_bytes": 315', '"row_bytes": 1e400'))
    put("binary.bin", bytes(range(256)) * 64)
    put("bigid.json", json.dumps(_project(nodes=[{**_project()["nodes"][0], "id": "x" * 1_000_000}])))
    put("longtext.json", json.dumps(_project(description="d" * 100_000)))
    put("notobject.json", "[1, 2, 3]")
    put("empty.json", "")
    put("scenarios-binary.json", b"\x00\xff\xfe" * 1000)
    put(
        "scenarios-deep.json",
        '{"format": "qrtune-scenarios/1", "scenarios": ' + "[" * 10_000 + "]" * 10_000 + "}",
    )
    put("bigfield.csv", "t_s,rows_per_s\n" + "1" * 200_000 + ",5\n")
    store = d / "good.duckdb"
    assert run_inprocess(["predict", str(BASELINE), "--db", str(store)]).code == 0
    data = store.read_bytes()
    put("truncated.duckdb", data[: len(data) // 2])
    existing = d / "existing-file"
    existing.write_text("not a folder")
    out["existing-file"] = str(existing)
    out["dir"] = str(d)
    return out


P = str(BASELINE)
#: (id, argv with {name} placeholders for the files fixture, must the command refuse it?)
CASES = [
    ("validate-deep-two", ["validate", "{deep.json}", "{deep-object.json}"], True),
    ("predict-deep", ["predict", "{deep.json}"], True),
    ("predict-hugeint", ["predict", "{hugeint.json}"], True),
    ("predict-surrogate", ["predict", "{surrogate.json}"], True),
    ("validate-nan", ["validate", "{nan.json}"], True),
    ("validate-inf", ["validate", "{inf.json}"], True),
    ("predict-binary", ["predict", "{binary.bin}"], True),
    ("predict-dev-zero", ["predict", "/dev/zero"], True),
    ("predict-folder", ["predict", "{dir}"], True),
    ("predict-bigid", ["predict", "{bigid.json}"], True),
    ("validate-longtext", ["validate", "{longtext.json}"], True),
    ("validate-not-object", ["validate", "{notobject.json}"], True),
    ("validate-empty", ["validate", "{empty.json}"], True),
    ("evaluate-binary", ["evaluate", "{scenarios-binary.json}"], True),
    ("evaluate-deep", ["evaluate", "{scenarios-deep.json}"], True),
    ("runs-truncated-store", ["runs", "--db", "{truncated.duckdb}"], True),
    ("predict-truncated-store", ["predict", P, "--db", "{truncated.duckdb}"], True),
    ("compare-truncated-store", ["compare", "1", "2", "--db", "{truncated.duckdb}"], True),
    ("predict-set-nan", ["predict", P, "--set", "channel.network_latency_ms=nan"], True),
    ("predict-set-inf", ["predict", P, "--set", "channel.network_latency_ms=inf"], True),
    ("predict-set-subnormal", ["predict", P, "--set", "source_db2.offered_rows_per_s=1e-320"], True),
    ("predict-set-huge", ["predict", P, "--set", "qapply.num_apply_agents=" + "9" * 5000], True),
    ("predict-set-long", ["predict", P, "--set", "x" * 1_000_000 + ".y=1"], True),
    ("simulate-seed-negative", ["simulate", P, "--seed", "-1", "--quiet"], True),
    ("simulate-duration-huge", ["simulate", P, "--duration", "1e308", "--quiet"], True),
    ("simulate-duration-100000h", ["simulate", P, "--duration", "100000h", "--quiet"], True),
    ("simulate-rate-huge", ["simulate", P, "--rate", "1e308", "--quiet"], True),
    ("simulate-rate-nan", ["simulate", P, "--rate", "nan", "--quiet"], True),
    ("simulate-monitor-csv-file", ["simulate", P, "--monitor-csv", "{existing-file}", "--quiet"], True),
    ("simulate-monitor-csv-tree", ["simulate", P, "--monitor-csv", "{dir}/a/b/c", "--quiet"], True),
    ("simulate-monitor-csv-readonly", ["simulate", P, "--monitor-csv", "/proc/qrtune-out", "--quiet"], True),
    ("simulate-profile-bigfield", ["simulate", P, "--profile", "{bigfield.csv}", "--quiet"], True),
    ("simulate-wait-negative", ["simulate", P, "--wait", "-5", "--quiet"], True),
    ("simulate-wait-nan", ["simulate", P, "--wait", "nan", "--quiet"], True),
    (
        "sweep-range-past-int64",
        [
            "sweep",
            P,
            "--set",
            "qapply.num_apply_agents=1..99999999999999999999",
            "--db",
            "{dir}/s.duckdb",
            "--no-progress",
        ],
        True,
    ),
    (
        "sweep-grid-too-large",
        [
            "sweep",
            P,
            "--set",
            "qapply.num_apply_agents=1..1000",
            "--set",
            "qcapture.trans_batch_sz=1..1000",
            "--db",
            "{dir}/s.duckdb",
            "--no-progress",
        ],
        True,
    ),
    ("sweep-workers-negative", ["sweep", P, "--set", "qapply.num_apply_agents=1,2", "--workers", "-1"], True),
    (
        "sweep-scheduler-not-url",
        ["sweep", P, "--set", "qapply.num_apply_agents=1,2", "--scheduler", "notaurl"],
        True,
    ),
    (
        "sweep-scheduler-bad-ip",
        ["sweep", P, "--set", "qapply.num_apply_agents=1,2", "--scheduler", "tcp://256.1.1.1:99999"],
        True,
    ),
    (
        "sweep-batch-size-zero",
        ["sweep", P, "--set", "qapply.num_apply_agents=1,2", "--batch-size", "0"],
        True,
    ),
    ("runs-limit-negative", ["runs", "--limit", "-1", "--db", "{dir}/none.duckdb"], True),
    ("runs-wait-nan", ["runs", "--wait", "nan"], True),
    ("advise-outage-negative", ["advise", P, "--outage-min", "-5", "--no-store"], True),
    (
        "advise-unknown-metric",
        ["advise", P, "--goal", "max nosuch_metric over qapply.num_apply_agents=1..4", "--no-store"],
        True,
    ),
    ("compare-run-past-int64", ["compare", "99999999999999999999", "1", "--db", "{dir}/none.duckdb"], True),
    ("report-truncated-store", ["report", "1", "--out", "{dir}/r.pdf", "--db", "{truncated.duckdb}"], True),
    ("report-out-unwritable", ["report", P, "--out", "/proc/qrtune-report.pdf"], True),
    ("report-out-missing-folder", ["report", P, "--out", "{dir}/no/such/r.pdf"], True),
    ("predict-db-folder-tree", ["predict", P, "--db", "{dir}/t/u/v/runs.duckdb"], True),
    ("unknown-option", ["predict", P, "--frobnicate"], True),
    ("validate-sample", ["validate", P], False),
]


def _fill(argv: list[str], files: dict[str, str]) -> list[str]:
    out = []
    for a in argv:
        for name, path in files.items():
            a = a.replace("{" + name + "}", path)
        out.append(a)
    return out


@pytest.mark.parametrize("case_id, argv, refused", CASES, ids=[c[0] for c in CASES])
def test_hostile_input_ends_in_a_clean_error(files, tally, case_id, argv, refused):
    outcome = run_inprocess(_fill(argv, files))
    judged = verdict(outcome)
    tally("issue 17's list", judged, outcome)
    assert judged in ("ok", "clean-error"), explain(outcome)
    assert (judged == "clean-error") == refused, explain(outcome)


def test_monitor_csv_never_creates_a_folder_tree(files):
    run_inprocess(_fill(["simulate", P, "--monitor-csv", "{dir}/x/y/z", "--quiet"], files))
    assert not (Path(files["dir"]) / "x").exists()


def test_db_never_creates_a_folder_tree(files):
    run_inprocess(_fill(["predict", P, "--db", "{dir}/t/u/v/runs.duckdb"], files))
    assert not (Path(files["dir"]) / "t").exists()


def test_one_missing_folder_level_is_created_for_monitor_csv(files, tmp_path):
    out = tmp_path / "monitor"
    outcome = run_inprocess(["simulate", P, "--duration", "60", "--monitor-csv", str(out), "--quiet"])
    assert outcome.code == 0, explain(outcome)
    assert sorted(p.name for p in out.iterdir()) == [
        "IBMQREP_APPLYMON.csv",
        "IBMQREP_CAPMON.csv",
        "IBMQREP_CAPQMON.csv",
    ]


def test_error_lines_are_cut_to_a_readable_length(files):
    outcome = run_inprocess(["predict", files["bigid.json"]])
    assert 0 < len(outcome.stderr) < 600, explain(outcome)


@pytest.fixture(autouse=True)
def _no_stray_store(monkeypatch, tmp_path):
    """Commands without --db use a store in this test's folder, never the user's."""
    monkeypatch.setenv("QRTUNE_DB", str(tmp_path / "default.duckdb"))
    yield
    shutil.rmtree(tmp_path, ignore_errors=True)
