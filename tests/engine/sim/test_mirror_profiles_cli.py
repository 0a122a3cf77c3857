"""Db2 Mirror suspend/resync, workload profiles, and the ``qrtune simulate`` command."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from engine.errors import FieldError
from engine.sim import profiles
from engine.sim.events import Event, parse_duration_s, parse_event
from engine.sim.mirror import simulate_mirror_rates

SAMPLE = "sample_runs/redpaper-baseline.json"


def simulate_30s(*options) -> int:
    """``qrtune simulate`` of the baseline sample for 30 s without a progress bar, with ``options``; its exit code."""
    from engine.cli import main

    return main(["simulate", SAMPLE, "--duration", "30s", "--quiet", *options])


def test_mirror_suspend_tracks_changes_and_resyncs_at_the_resync_rate():
    ev = Event("mirror_suspend", 60.0, 120.0)
    res = simulate_mirror_rates(100.0, 400.0, 600, seed=1, events=[ev])
    e = res.summary["events"][0]
    assert e["tracked_changes_at_resume"] == pytest.approx(100 * 120, rel=0.05)
    assert e["resync_time_s"] == pytest.approx(e["tracked_changes_at_resume"] / 400.0)
    assert e["catch_up_s"] == pytest.approx(e["resync_time_s"], abs=1.0)
    tracked = res.timeseries["mirror.tracked_changes"]
    assert tracked[:59].max() == 0 and tracked[-1] == 0
    # every tracked change is resynchronised once
    assert res.timeseries["mirror.resync_changes_per_s"].sum() == pytest.approx(
        (res.timeseries["mirror.changes_per_s"] * res.timeseries["mirror.suspended_fraction"]).sum(), rel=0.05
    )


def test_mirror_refuses_qrep_events():
    with pytest.raises(FieldError, match="mirror_suspend"):
        simulate_mirror_rates(100.0, 400.0, 60, events=[Event("channel_stop", 1, 2)])


def test_profiles_rates_and_poisson_counts():
    p = profiles.from_dict(
        {"kind": "bursts", "base_rows_per_s": 1000, "burst_rows_per_s": 9000, "period_s": 60, "burst_s": 10}
    )
    assert p.rate_at([5, 15, 65, 75]).tolist() == [9000, 1000, 9000, 1000]
    assert p.mean_rows_per_s(600) == pytest.approx((9000 * 10 + 1000 * 50) / 60)
    rng = np.random.default_rng(0)
    tx = profiles.generate(p, 0, 600, 5, rng)
    assert np.all(np.diff(tx.commit_s) >= 0)
    assert tx.rows.sum() == pytest.approx(p.mean_rows_per_s(600) * 600, rel=0.02)
    b = profiles.from_dict(
        {
            "kind": "batch_window",
            "base_rows_per_s": 100,
            "start_s": 10,
            "duration_s": 20,
            "batch_rows_per_s": 5000,
            "batch_rows_per_txn": 1000,
        }
    )
    tx = profiles.generate(b, 0, 60, 5, rng)
    big = tx.rows == 1000
    assert big.sum() == pytest.approx(100, abs=35) and np.all(
        (tx.commit_s[big] >= 10) & (tx.commit_s[big] < 30)
    )
    assert np.allclose(tx.commit_s[big] - tx.begin_s[big], 0.2)  # 1000 rows at 5000 rows/s


@pytest.mark.parametrize(
    "doc",
    [
        {"kind": "constant", "rows_per_s": 43000},
        {
            "kind": "bursts",
            "base_rows_per_s": 1000,
            "burst_rows_per_s": 9000,
            "period_s": 7.5,
            "burst_s": 2.5,
        },
        {
            "kind": "batch_window",
            "base_rows_per_s": 100,
            "start_s": 3,
            "duration_s": 4,
            "batch_rows_per_s": 5000,
            "batch_rows_per_txn": 1000,
        },
    ],
)
def test_block_draws_are_the_per_block_draws_joined(doc):
    """generate_blocks writes into one set of arrays; it must draw exactly what generate does per block."""
    p = profiles.from_dict(doc)
    seeds = np.random.SeedSequence(7).spawn(12)
    bounds = [0.0, 1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.25, 8.0, 9.0, 10.0, 11.0, 11.5]
    each = profiles.concat(
        [
            profiles.generate(p, a, b, 15, np.random.default_rng(s))
            for a, b, s in zip(bounds, bounds[1:], seeds)
        ]
    )
    joined = profiles.generate_blocks(p, bounds, 15, [np.random.default_rng(s) for s in seeds])
    assert len(joined) == len(each) > 50
    for name in ("commit_s", "rows", "begin_s"):
        assert np.array_equal(getattr(joined, name), getattr(each, name)), name
    assert np.array_equal(joined.uniforms(), each.uniforms())
    assert np.array_equal(joined.dependency_uniforms(), each.dependency_uniforms())


def test_block_draws_grow_past_their_room():
    """Arrays that start too small for the draws grow and keep every draw."""
    p = profiles.constant(43000.0)
    seeds = np.random.SeedSequence(3).spawn(5)
    draws = profiles._OltpDraws(p, 15, capacity=4)
    for a, s in zip(range(5), seeds):
        draws.draw_block(float(a), a + 1.0, np.random.default_rng(s))
    joined = draws.transactions()
    each = profiles.concat(
        [profiles.generate(p, a, a + 1, 15, np.random.default_rng(s)) for a, s in zip(range(5), seeds)]
    )
    assert len(joined) > 10_000
    assert np.array_equal(joined.commit_s, each.commit_s) and np.array_equal(
        joined.uniforms(), each.uniforms()
    )


def test_profile_csv_and_errors(tmp_path):
    f = tmp_path / "rate.csv"
    f.write_text("t_s,rows_per_s\n0,100\n60,500\n")
    p = profiles.load(f)
    assert p.rate_at([30, 90]).tolist() == [100, 500]
    f.write_text("t_s,rows_per_s\n0,100\n60,lots\n")
    with pytest.raises(FieldError, match="rate.csv:3"):
        profiles.load(f)
    with pytest.raises(FieldError, match="profile.kind"):
        profiles.from_dict({"kind": "sawtooth"})
    with pytest.raises(FieldError, match="rows_per_s"):
        profiles.from_dict({"kind": "constant", "rows_per_s": -3})


def test_event_and_duration_parsing():
    assert (
        parse_duration_s("10m") == 600 and parse_duration_s("500ms") == 0.5 and parse_duration_s("90") == 90
    )
    e = parse_event("target-slow@1m+5m*0.25")
    assert (e.kind, e.start_s, e.duration_s, e.factor) == ("target_slow", 60, 300, 0.25)
    with pytest.raises(FieldError, match="--event"):
        parse_event("channel-stop at noon")
    with pytest.raises(FieldError, match="event.kind"):
        parse_event("power-cut@1m+1m")
    with pytest.raises(FieldError, match="duration"):
        parse_duration_s("ten minutes")


def test_cli_simulate_json_and_monitor_csv(fake_engine, tmp_path, capsys):
    from engine.cli import main

    code = main(
        [
            "simulate",
            "sample_runs/redpaper-baseline.json",
            "--duration",
            "60s",
            "--seed",
            "3",
            "--rate",
            "20000",
            "--event",
            "channel-stop@20+10",
            "--json",
            "--monitor-csv",
            str(tmp_path),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    doc = json.loads(out)
    assert doc["summary"]["seed"] == 3 and len(doc["monitor"]["IBMQREP_APPLYMON"]) == 6
    assert doc["summary"]["events"][0]["kind"] == "channel_stop"
    assert "100.0%" in err  # the progress bar on stderr
    assert (tmp_path / "IBMQREP_CAPQMON.csv").read_text().startswith("MONITOR_TIME,SENDQ,ROWS_PUBLISHED")


def test_cli_simulate_text_and_bad_event(fake_engine, capsys):
    from engine.cli import main

    assert simulate_30s() == 0
    out = capsys.readouterr().out
    assert "END2END_LATENCY" in out and "throughput (applied)" in out
    assert main(["simulate", "sample_runs/redpaper-baseline.json", "--event", "nonsense"]) == 2
    assert "--event" in capsys.readouterr().err


def test_cli_simulate_records_in_the_store(fake_engine, tmp_path, capsys):
    from engine.store import Store

    db = tmp_path / "runs.duckdb"
    assert simulate_30s("--seed", "9", "--db", str(db)) == 0
    assert "recorded as run" in capsys.readouterr().out
    with Store.open(db, read_only=True) as store:
        runs = store.list_runs(kind="simulate")
        assert len(runs) == 1 and runs[0].seed == 9
        data = store.load_run(runs[0].id)
        assert data.metric("throughput_rows_per_s") > 0


def test_cli_simulate_records_a_failed_run_like_predict(tmp_path, capsys):
    """A simulation the engine refuses is kept as a failed run with its error, seed and label."""
    from engine.cli import main
    from engine.store import Store

    db = tmp_path / "runs.duckdb"
    # a Q Replication project cannot have its Db2 Mirror suspended: the simulator raises
    assert simulate_30s("--seed", "4", "--event", "mirror-suspend@5s+5s", "--db", str(db)) == 2
    err = capsys.readouterr().err
    assert "recorded as failed run 1 in" in err and "mirror" in err.splitlines()[-1]
    # a kind the simulator does not handle at all
    assert main(["simulate", "sample_runs/db2-v8-migration.json", "--quiet", "--db", str(db)]) == 2
    assert "recorded as failed run 2 in" in capsys.readouterr().err
    with Store.open(db, read_only=True) as store:
        runs = store.list_runs(kind="simulate")
        assert [r.status for r in runs] == ["failed", "failed"]
        first = runs[1]
        assert first.seed == 4 and first.label == "30 s seed 4 mirror-suspend@5s+5s"
        assert first.scenario_kind == "qrep" and "mirror" in first.error
        settings = json.loads(first.settings_json)
        assert (
            settings["simulation"]["events"] == ["mirror-suspend@5s+5s"]
            and settings["simulation"]["seed"] == 4
        )
        assert runs[0].scenario_kind == "db2-v8-storage" and "cannot simulate" in runs[0].error
    # bad input of the command itself is not a run
    assert (
        main(["simulate", "sample_runs/redpaper-baseline.json", "--event", "nonsense", "--db", str(db)]) == 2
    )
    with Store.open(db, read_only=True) as store:
        assert store.count_runs() == 2


def test_mirror_project_through_the_engine():
    from pathlib import Path

    from engine import projectfile
    from engine.sim import simulate

    project = projectfile.load(
        Path(__file__).resolve().parents[3] / "sample_runs" / "mirror-active-passive.json"
    )
    res = simulate(project, 300, seed=1, events=[parse_event("mirror-suspend@1m+2m")])
    e = res.summary["events"][0]
    assert e["tracked_changes_at_resume"] == pytest.approx(res.summary["changes_per_s"] * 120, rel=0.05)
    assert e["resync_time_s"] == pytest.approx(
        e["tracked_changes_at_resume"] / res.summary["resync_changes_per_s"]
    )


def test_cli_simulate_set_changes_a_knob_for_the_run(fake_engine, capsys):

    assert simulate_30s("--json", "--set", "queue_manager.buffpool_pages=20000") == 0
    small = json.loads(capsys.readouterr().out)["summary"]["notes"]
    assert simulate_30s("--json") == 0
    default = json.loads(capsys.readouterr().out)["summary"]["notes"]
    pool = [n for n in small if n.startswith("transmit queue holds")]
    assert pool and pool != [n for n in default if n.startswith("transmit queue holds")]
    assert simulate_30s("--json", "--set", "queue_manager.read_ahead=maybe") == 2
    assert "--set" in capsys.readouterr().err
    assert simulate_30s("--json", "--set", "qapply.num_apply_agents=2,4") == 2
    assert "one value per knob" in capsys.readouterr().err


def test_cli_simulate_names_the_kinds_it_handles(capsys):
    from engine.cli import main

    assert main(["simulate", "sample_runs/mq-buffer-pool-mover.json", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "'mq-mover'" in err and "'qrep'" in err and "'db2mirror'" in err and "qrtune predict" in err


def test_cli_simulate_help_names_every_event_kind_and_the_duration_forms(capsys):
    from engine.cli import main
    from engine.cli.options import DURATION_FORMS
    from engine.sim.events import EVENT_TARGETS

    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(kind.replace("_", "-") in text for kind in EVENT_TARGETS), text
    assert f"{DURATION_FORMS} (default 10m)" in text
    for form in DURATION_FORMS.split(", "):
        assert parse_duration_s(form) > 0


def test_cli_simulate_text_reports_the_switch_over_drain(fake_engine, capsys):

    assert simulate_30s("--rate", "5000") == 0
    out = capsys.readouterr().out
    assert "switch-over" in out and "in flight is applied" in out


def test_simulate_summary_reads_in_units_that_suit_each_value(monkeypatch, capsys):
    """Seconds of latency read as s, bytes as KB or MB, queue depths as whole messages."""
    monkeypatch.chdir(Path(__file__).resolve().parents[3])
    assert simulate_30s("--event", "channel-stop@5s+10s") == 0
    out = capsys.readouterr().out
    assert re.search(r"END2END_LATENCY\s+mean [\d.]+ s, p50 [\d.]+ (?:ms|s), p95 [\d.]+ s", out), out
    assert re.search(r"Apply peak [\d.]+ (?:KB|MB)", out) and re.search(r"transmit queue [\d,]+ msgs,", out)
    assert "e+0" not in out and " bytes" not in out
