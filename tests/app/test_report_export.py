"""File > Export report: the window writes the PDF in the background with progress, atomically."""

import re
import shutil
import subprocess


def test_export_report_action_writes_the_pdf_in_the_background(fake_engine, window, qtbot, tmp_path):
    assert window.act_export_report in window.menuBar().actions()[0].menu().actions()  # in the File menu
    project = window.document.project
    window.document.set_param(project.nodes_of("qapply")[0].id, "num_apply_agents", 5)
    out = tmp_path / "exported.pdf"
    progress = []
    window.tasks.progress.connect(lambda f, t: progress.append(f))
    with qtbot.waitSignal(window.tasks.finished, timeout=60000) as done:
        assert window.export_report(str(out))
        assert not window.progress.isHidden()  # progress shown while it runs
    assert done.args[0][0] == str(out) and done.args[0][1] >= 2
    assert window.progress.isHidden() and progress[-1] == 1.0
    assert window.last_report == str(out)
    assert out.read_bytes().startswith(b"%PDF") and not list(tmp_path.glob(".*.tmp"))
    assert shutil.which("pdftotext"), "pdftotext is missing: apt-get install poppler-utils"
    text = subprocess.run(
        ["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert window.document.project.name in text
    assert re.search(r"NUM_APPLY_AGENTS\s+5\s+agents\s+16\s+changed", text)
    assert re.search(r"Q Apply\s+3,000\s+rows/s", text)  # fake: min(800 x 5 agents, 3000 x TRANS_BATCH_SZ 1)
    assert "How the engine scores against the published measurements" in text
    assert "END2END_LATENCY" in text


def test_export_refused_while_another_task_runs(fake_engine, window, qtbot, tmp_path):
    import threading

    gate = threading.Event()
    window._start("slow", "slow", lambda p, c, s: gate.wait(5))
    assert not window.export_report(str(tmp_path / "r.pdf"))
    assert "still running" in window.last_message
    with qtbot.waitSignal(window.tasks.finished, timeout=10000):
        gate.set()
    assert not (tmp_path / "r.pdf").exists()
