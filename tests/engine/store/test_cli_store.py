"""The store's commands as a user runs them: sweep, runs, compare, import-monitor, predict --db."""

from __future__ import annotations

import json
import re

import pytest
from cli_run import qrtune as run_qrtune


def qrtune(env, *args):
    return run_qrtune(*args, env=env)


@pytest.mark.slow
def test_sweep_runs_compare_round_trip(db, env_with_fakes):
    env = env_with_fakes
    out = qrtune(
        env,
        "sweep",
        "sample_runs/redpaper-baseline.json",
        "--set",
        "qapply.num_apply_agents=1,4,8,16",
        "--set",
        "qcapture.trans_batch_sz=1,3,5",
        "--db",
        str(db),
        "--workers",
        "0",
        "--predictor",
        "store_fakes:predict",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["points"] == 12 and summary["run_now"] == 12 and summary["failed"] == 0
    assert "12/12 100.0%" in out.stderr  # the progress bar
    table = qrtune(env, "runs", "--db", str(db), "--sweep", str(summary["sweep_id"]), "--limit", "5").stdout
    lines = table.splitlines()
    assert "ROWS_APPLIED (rows/s)" in lines[0] and "APPLY_LATENCY (ms)" in lines[0]
    assert lines[1].split()[:4] == ["1", "ok", "900.0", "105.0"]  # point 0: 1 agent, batch 1 (point order)
    assert "qapply.num_apply_agents=1 qcapture.trans_batch_sz=1" in lines[1]
    assert lines[-1] == "(5 of 12 runs shown; --limit 0 shows all)"
    sweeps = qrtune(env, "runs", "--db", str(db), "--sweeps").stdout.splitlines()
    assert sweeps[1].split()[3] == "12/12"
    assert sweeps[1].endswith("qapply.num_apply_agents=1,4,8,16 x qcapture.trans_batch_sz=1,3,5")
    runs = json.loads(qrtune(env, "runs", "--db", str(db), "--json", "--limit", "0").stdout)
    assert len(runs) == 12 and {r["kind"] for r in runs} == {"sweep"}
    by_label = {r["label"]: r["id"] for r in runs}
    a = by_label["qapply.num_apply_agents=1 qcapture.trans_batch_sz=1"]
    b = by_label["qapply.num_apply_agents=4 qcapture.trans_batch_sz=1"]
    cmp = json.loads(qrtune(env, "compare", str(a), str(b), "--db", str(db), "--format", "json").stdout)
    assert cmp["settings_that_differ"] == [{"path": "qapply.num_apply_agents", "values": [1, 4]}]
    rate = next(m for m in cmp["metrics"] if m["metric"] == "apply_rows_per_s")
    assert rate["values"][0] == 900 and abs(rate["pct_delta"][1] - 100 * (4000 / 1.2 - 900) / 900) < 1e-9
    table = qrtune(env, "compare", str(a), str(b), "--db", str(db))
    assert table.returncode == 0 and "Settings that differ" in table.stdout
    # IBM's names, the path for --set, and no difference made of round-off
    assert re.search(r"NUM_APPLY_AGENTS\s+qapply\.num_apply_agents\s+1\s+4", table.stdout)
    assert re.search(r"^\s+ROWS_APPLIED\s+rows/s\s+900\.0\s", table.stdout, re.MULTILINE)
    assert "e-1" not in table.stdout and "different engines" not in table.stdout
    csv_out = qrtune(env, "compare", str(a), str(b), "--db", str(db), "--format", "csv").stdout
    assert csv_out.splitlines()[1].startswith("setting,qapply.num_apply_agents,,1,4")


def test_user_errors_are_one_line(db, env_with_fakes):
    env = env_with_fakes
    bad = qrtune(
        env,
        "sweep",
        "sample_runs/redpaper-baseline.json",
        "--set",
        "qapply.num_apply_agents=0..2",
        "--db",
        str(db),
    )
    assert bad.returncode == 2 and "0 is not allowed" in bad.stderr and "Traceback" not in bad.stderr
    missing = qrtune(env, "compare", "1", "2", "--db", str(db.parent / "none.duckdb"))
    assert missing.returncode == 3 and "no results store at" in missing.stderr  # EXIT_INPUT
    csv_file = db.parent / "x_CAPQMON.csv"
    csv_file.write_text("MONITOR_TIME,SENDQ,ROWS_PUBLISHED\n2013-04-02 10:00:10,Q,abc\n")
    imp = qrtune(env, "import-monitor", str(csv_file), "--db", str(db))
    assert imp.returncode == 3 and f"{csv_file}:2: ROWS_PUBLISHED 'abc' is not a number" in imp.stderr


def test_import_monitor_command(db, env_with_fakes, tmp_path):
    f = tmp_path / "IBMQREP_APPLYMON.csv"
    f.write_text(
        "MONITOR_TIME,RECVQ,ROWS_APPLIED,END2END_LATENCY,NOTE\n"
        "2013-04-02-10.00.10.000000,Q,5000,40,a\n2013-04-02-10.00.20.000000,Q,5100,42,b\n"
    )
    out = qrtune(
        env_with_fakes,
        "import-monitor",
        str(f),
        "--db",
        str(db),
        "--project",
        "sample_runs/redpaper-baseline.json",
    )
    assert out.returncode == 0, out.stderr
    assert (
        "2 rows of IBMQREP_APPLYMON" in out.stdout
        and "columns qrtune does not read, not imported: NOTE" in out.stdout
    )
    assert "2013-04-02 10:00:10 .. 2013-04-02 10:00:20;" in out.stdout  # to the second, as a DBA reads it
    assert "for project 'Redpaper baseline" in out.stdout
