"""Sweep reports: `qrtune report --sweep ID` and the Sweep view's Export PDF..., checked with pdftotext.

The fake Q Replication engine of tests/app/conftest.py gives known numbers: Q Apply
holds 800 rows/s per agent, the channel 3000 rows/s per TRANS_BATCH_SZ, APPLY_LATENCY
is 4000 / agents ms and the apply LPAR is 30 + agents % busy.
"""

import re

import pytest
from test_report_pdf import ink_fraction, pdf_pages, pdf_text, render_pages

from engine import projectfile, templates
from engine.cli.exitcodes import EXIT_OK, EXIT_PARTIAL
from engine.report import format_value
from qrtune.cli import main


def project_file(tmp_path, offered=None, batch=1):
    p = templates.unidirectional("Sweep report test")
    p = p.with_param(p.nodes_of("qcapture")[0].id, "trans_batch_sz", batch)
    if offered is not None:
        p = p.with_param(p.nodes_of("source_db2")[0].id, "offered_rows_per_s", offered)
    path = tmp_path / "project.json"
    projectfile.save(p, path)
    return path


def sweep(tmp_path, *axes, offered=None, exit_code=EXIT_OK):
    db = tmp_path / "runs.duckdb"
    args = ["sweep", str(project_file(tmp_path, offered)), "--db", str(db), "--workers", "0", "--no-progress"]
    for a in axes:
        args += ["--set", a]
    assert main(args) == exit_code
    return db


def rate(agents, batch=1):
    return min(800.0 * agents, 3000.0 * batch)


def test_sweep_report_shows_the_knob_every_point_the_pick_and_the_settings(fake_engine, tmp_path, capsys):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..10")
    out = tmp_path / "sweep.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"]) == 0
    assert "wrote" in capsys.readouterr().out
    text = pdf_text(out)
    # title block: project, the swept knob with its values, versions
    assert "Sweep report test: NUM_APPLY_AGENTS sweep" in text
    assert re.search(r"Swept\s+NUM_APPLY_AGENTS \(agents\) = 1 \.\. 10 \(10 values", text)
    assert "num_apply_agents" not in text  # IBM's name only, never the settings path
    assert "fake-1" in text and "#1 in runs.duckdb" in text
    # the pick: 4 agents are the fewest holding the channel's 3,000 rows/s; apply LPAR 34% busy
    assert (
        "Fewest NUM_APPLY_AGENTS reaching 99% of the best throughput (3,000 rows/s) with every CPU under 90%: "
        "4 (3,000 rows/s, busiest CPU 34.0%)"
    ) in re.sub(r"\s+", " ", text)
    # every point: value, throughput, APPLY_LATENCY, END2END_LATENCY, CPU busy, bottleneck; the pick marked
    for agents in range(1, 11):
        row = (
            rf"^\s*{agents}\s+{re.escape(format_value(rate(agents)))}\s+{re.escape(format_value(4000 / agents))}"
            rf"\s+{re.escape(format_value(150 + 4000 / agents))}\s+{30 + agents:.1f}\s+"
            + ("Q Apply agents" if agents < 4 else "MQ channel")
        )
        assert re.search(row, text, re.MULTILINE), (agents, row)
    assert re.search(r"^\s*4\s+3,000.*MQ channel PICK", text, re.MULTILINE)
    assert len(re.findall(r"PICK", text)) == 1
    # the base settings with the swept knob marked
    assert re.search(r"NUM_APPLY_AGENTS\s+\S+\s+1 \.\. 10\s+agents\s+16\s+swept", text)
    assert "How the engine scores against the published measurements" not in text  # --no-validation
    pages = render_pages(out, tmp_path)
    assert len(pages) == pdf_pages(out) >= 2 and all(ink_fraction(p) > 0.01 for p in pages)


def test_the_projects_target_rate_is_the_goal_of_the_pick(fake_engine, tmp_path):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..6", offered=2400.0)
    out = tmp_path / "target.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out)]) == 0
    text = re.sub(r"\s+", " ", pdf_text(out))
    assert "Target rate 2,400 rows/s (OFFERED_ROWS_PER_S" in text
    # best throughput 3,000 rows/s needs 4 agents; the target 2,400 rows/s needs 3
    assert (
        "Fewest NUM_APPLY_AGENTS reaching 99% of the target rate (2,400 rows/s) with every CPU under 90%: 3"
        in text
    )
    assert (
        "How the engine scores against the published measurements" in text
    )  # the validation page by default


def test_two_knob_sweep_has_a_pick_per_curve_and_every_point(fake_engine, tmp_path):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..6", "qcapture.trans_batch_sz=1,2")
    out = tmp_path / "two.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"]) == 0
    text = pdf_text(out)
    assert "NUM_APPLY_AGENTS x TRANS_BATCH_SZ sweep" in text
    # each batch size: the fewest agents holding its channel (3,000 -> 4 agents, 6,000 -> 6 agents... of 1..6: 6)
    assert re.search(r"TRANS_BATCH_SZ=1\s+4\s+3,000\s+3,000\s+34.0%", text)
    assert re.search(r"TRANS_BATCH_SZ=2\s+6\s+4,800\s+4,800\s+36.0%", text)
    for agents in range(1, 7):
        for batch in (1, 2):
            assert re.search(
                rf"^\s*{agents}\s+{batch}\s+{re.escape(format_value(rate(agents, batch)))}\s",
                text,
                re.MULTILINE,
            ), (agents, batch)


def test_sweep_report_can_carry_a_project_after_the_sweep(fake_engine, tmp_path):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..4")
    out = tmp_path / "both.pdf"
    assert (
        main(
            [
                "report",
                "--sweep",
                "1",
                str(project_file(tmp_path)),
                "--db",
                str(db),
                "--out",
                str(out),
                "--no-validation",
            ]
        )
        == 0
    )
    text = pdf_text(out)
    assert "NUM_APPLY_AGENTS sweep" in text and "Also reported" in text
    assert "Prediction" in text and "Latency breakdown" in text  # the project's own section follows


def test_bad_sweep_id_is_a_one_line_error_naming_it(fake_engine, tmp_path, capsys):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..3")
    out = tmp_path / "bad.pdf"
    assert main(["report", "--sweep", "99", "--db", str(db), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no sweep 99" in err and "qrtune runs --sweeps" in err and "sweeps there: 1" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    with pytest.raises(SystemExit) as e:
        main(["report", "--sweep", "abc", "--db", str(db), "--out", str(out)])
    assert e.value.code == 2 and "abc" in capsys.readouterr().err
    assert main(["report", "--out", str(out)]) == 2
    assert "--sweep ID" in capsys.readouterr().err


@pytest.mark.slow
def test_long_sweeps_page_their_table_without_losing_or_repeating_a_point(fake_engine, tmp_path):
    db = sweep(tmp_path, "qapply.num_apply_agents=1..128", "qcapture.trans_batch_sz=1,2")
    out = tmp_path / "long.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"]) == 0
    text = pdf_text(out)
    rows = re.findall(
        r"^\s*(\d+)\s+([12])\s+[\d.,]+\s+[\d.,]+\s+[\d.,]+\s+[\d.]+\s+(?:Q Apply agents|MQ channel)",
        text,
        re.MULTILINE,
    )
    assert [(int(a), int(b)) for a, b in rows] == [(a, b) for a in range(1, 129) for b in (1, 2)]
    assert "(continued)" in text and pdf_pages(out) >= 6


def test_sweep_view_export_button_writes_the_report_in_the_background(
    fake_engine, window, qtbot, tmp_path, monkeypatch
):
    from PySide6.QtCore import Qt

    import app.main_window

    view = window.view_widget("Sweep")
    assert not view.export_button.isEnabled()  # nothing to export before a sweep
    view.set_axis("qapply", "num_apply_agents", "1..6")
    with qtbot.waitSignal(window.tasks.finished, timeout=30000):
        assert window.sweep(view.axis_text())
    assert view.export_button.isEnabled() and view.sweep_id is not None
    out = tmp_path / "agents sweep.pdf"
    asked = []

    def ask(parent, caption, default, filters):
        asked.append(default)
        return str(out.with_suffix("")), filters  # the user typed no .pdf: it is added

    monkeypatch.setattr(app.main_window.QFileDialog, "getSaveFileName", ask)
    with qtbot.waitSignal(window.tasks.finished, timeout=60000) as done:
        qtbot.mouseClick(view.export_button, Qt.LeftButton)
        assert not window.progress.isHidden()  # progress shown while it runs
        assert not view.export_button.isEnabled() and not view.run_button.isEnabled()
    assert asked and asked[0].endswith(f"sweep {view.sweep_id}.pdf")
    assert done.args[0][0] == str(out) and done.args[0][1] >= 2
    assert window.last_report == str(out) and "Report written" in view.status.text()
    assert view.export_button.isEnabled() and view.run_button.isEnabled()
    assert out.read_bytes().startswith(b"%PDF") and not list(tmp_path.glob(".*.tmp"))
    text = pdf_text(out)
    assert "NUM_APPLY_AGENTS sweep" in text
    assert "Fewest NUM_APPLY_AGENTS reaching 99% of the best throughput (3,000 rows/s)" in re.sub(
        r"\s+", " ", text
    )
    for agents in range(1, 7):
        assert re.search(rf"^\s*{agents}\s+{re.escape(format_value(rate(agents)))}\s", text, re.MULTILINE)
    assert "How the engine scores against the published measurements" in text
    # a failed export says why and leaves nothing behind; the sweep stays exportable
    bad = tmp_path / "no such folder" / "x.pdf"
    with qtbot.waitSignal(window.tasks.failed, timeout=60000):
        assert window.export_sweep_report(path=str(bad))
    assert "failed" in window.last_message and "no such folder" in view.status.text()
    assert not bad.parent.exists() and view.export_button.isEnabled()
    # a new sweep disables the button until it has finished
    with qtbot.waitSignal(window.tasks.finished, timeout=30000):
        assert window.sweep("qapply.num_apply_agents=1..3")
        assert not view.export_button.isEnabled()
    assert view.export_button.isEnabled()


def test_failed_points_are_listed_with_their_error_and_left_out_of_the_pick(
    fake_engine, tmp_path, monkeypatch
):
    import sys

    from engine.errors import FieldError
    from engine.perf import ENGINE_MODULES

    def predict(settings):
        if settings["qapply"]["num_apply_agents"] == 4:
            raise FieldError("qapply.num_apply_agents", 4, "anything but four (a test)")
        return fake_engine(settings)

    monkeypatch.setattr(sys.modules[ENGINE_MODULES["qrep"]], "predict", predict)  # the fake engine's module
    db = sweep(tmp_path, "qapply.num_apply_agents=1..6", exit_code=EXIT_PARTIAL)  # one point failed
    out = tmp_path / "failed.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"]) == 0
    text = pdf_text(out)
    assert "6 of 6 points recorded, 1 failed" in text
    assert re.search(
        r"^\s*4\s+-\s+-\s+-\s+-\s+failed: FieldError: qapply.num_apply_agents: 4", text, re.MULTILINE
    )
    assert "anything but four" in text
    # 4 agents would be the pick; failed, the fewest holding 3,000 rows/s is 5
    assert "with every CPU under 90%: 5 (3,000 rows/s" in re.sub(r"\s+", " ", text)


def test_a_simulation_study_is_reported_with_its_scenario_and_seed_axes(tmp_path, root):
    db = tmp_path / "study.duckdb"
    sample = root / "sample_runs" / "redpaper-baseline.json"
    study = ["sweep", str(sample), "--simulate", "--duration", "20s", "--seeds", "2", "--rate", "30000"]
    assert main([*study, "--scenario", "channel-stop@5s+5s", "--db", str(db), "--workers", "0"]) == EXIT_OK
    out = tmp_path / "study.pdf"
    assert main(["report", "--sweep", "1", "--db", str(db), "--out", str(out), "--no-validation"]) == EXIT_OK
    text = pdf_text(out)
    assert "Outage scenario x Seed" in text.replace("\n", " ") and "2 of 2 points recorded" in text
    assert (
        "Outage scenario = channel-stop@5s+5s" in text
        and "Seed = 0, 1 (2 values)" in text
        and "study.seed" not in text
    )
