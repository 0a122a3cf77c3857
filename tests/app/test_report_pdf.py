"""PDF reports: `qrtune report` output checked with pdftotext (content) and pdftoppm (pages render).

The fake Q Replication engine of tests/app/conftest.py gives known numbers; one
test uses the real engine on the baseline sample and checks the PDF against
`predict_project`.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import projectfile, templates
from engine.metrics.stages import stage_label
from engine.report import format_value
from qrtune.cli import main

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "sample_runs" / "redpaper-baseline.json"


def pdf_text(path) -> str:
    """Text of the PDF in its layout (one table row per line)."""
    assert shutil.which("pdftotext"), "pdftotext is missing: apt-get install poppler-utils"
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def pdf_pages(path) -> int:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", out).group(1))


def render_pages(path, out_dir) -> list[Path]:
    """Render every page at 30 dpi with pdftoppm; returns the PNG files."""
    subprocess.run(["pdftoppm", "-png", "-r", "30", str(path), str(Path(out_dir) / "page")], check=True)
    return sorted(Path(out_dir).glob("page-*.png"))


def ink_fraction(png: Path) -> float:
    """Share of pixels that are not white (0 for a blank page)."""
    from PySide6.QtGui import QImage

    img = QImage(str(png)).convertToFormat(QImage.Format_Grayscale8)
    w, h = img.width(), img.height()
    data = bytes(img.constBits())[: img.bytesPerLine() * h]
    dark = sum(1 for y in range(0, h, 2) for x in range(0, w, 2) if data[y * img.bytesPerLine() + x] < 200)
    return dark / ((h // 2 + 1) * (w // 2 + 1))


def project_file(tmp_path, name, agents=6, batch=3):
    p = templates.unidirectional(name)
    p = p.with_param(p.nodes_of("qapply")[0].id, "num_apply_agents", agents)
    p = p.with_param(p.nodes_of("qcapture")[0].id, "trans_batch_sz", batch)
    path = tmp_path / f"{name.replace(' ', '_')}.json"
    projectfile.save(p, path)
    return path


def line_of(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


def test_one_project_report_has_title_settings_marks_and_engine_values(fake_engine, tmp_path, capsys):
    path = project_file(tmp_path, "Agents six", agents=6, batch=3)
    out = tmp_path / "report.pdf"
    assert main(["report", str(path), "--out", str(out), "--no-validation"]) == 0
    assert "wrote" in capsys.readouterr().out
    text = pdf_text(out)
    assert (
        "Agents six" in text and "qrtune" in text and "fake-1" in text
    )  # title block: project, coefficients
    # settings: IBM names, changed-from-default marks exactly on the knobs changed
    agents_row, batch_row = line_of(text, "NUM_APPLY_AGENTS"), line_of(text, "TRANS_BATCH_SZ")
    assert re.search(r"NUM_APPLY_AGENTS\s+6\s+agents\s+16\s+changed", agents_row), agents_row
    assert re.search(r"TRANS_BATCH_SZ\s+3\s+txns\s+1\s+changed", batch_row), batch_row
    # IBM's name, its unit in its own column (not COMMIT_INTERVAL_MS), left at its default
    assert re.search(r"COMMIT_INTERVAL\s+500\s+ms\s+500\s*$", line_of(text, "COMMIT_INTERVAL")), text
    # results equal the engine's: fake CAPTURE 100, Q 50 x batch, APPLY 4000 / agents ms
    for name, value in (
        ("CAPTURE_LATENCY", 100.0),
        ("QLATENCY", 150.0),
        ("APPLY_LATENCY", 4000 / 6),
        ("END2END_LATENCY", 100 + 150 + 4000 / 6),
    ):
        assert re.search(rf"^\s*{name}\s+{re.escape(format_value(value))}\s+ms", text, re.MULTILINE), name
    assert re.search(r"Q Apply\s+4,800\s+rows/s", text)  # min(800 x 6 agents, 3000 x 3) rows/s
    assert "END2END_LATENCY 916.7 ms" in text  # the latency chart's label is text too
    assert "80% band" in text and "90% band" not in text  # the bands' own coverage (it said 90%)
    assert re.search(r"Q Apply agents\s+4,800\s+rows/s\s+100.0%.*BOTTLENECK", text)
    pages = render_pages(out, tmp_path)
    assert len(pages) == pdf_pages(out) >= 2
    assert all(ink_fraction(p) > 0.01 for p in pages)


def test_two_runs_compared_with_deltas(fake_engine, tmp_path):
    db = tmp_path / "runs.duckdb"
    for agents in (6, 3):
        assert (
            main(["predict", str(project_file(tmp_path, f"agents {agents}", agents=agents)), "--db", str(db)])
            == 0
        )
    out = tmp_path / "cmp.pdf"
    assert main(["report", "1", "2", "--db", str(db), "--out", str(out), "--no-validation"]) == 0
    text = pdf_text(out)
    assert "Comparison of 2 runs" in text and "Settings that differ" in text
    assert re.search(r"NUM_APPLY_AGENTS\s+6\s+3", text)
    assert "qapply." not in text  # IBM's names only, never a settings path
    # Q Apply 4,800 -> 2,400 rows/s; END2END 916.7 -> 1,583 ms (APPLY_LATENCY 4000 / agents)
    assert re.search(r"Q Apply\s+rows/s\s+4,800\s+2,400\s+-2,400 \(-50.0%\)", text)
    assert re.search(r"END2END_LATENCY\s+ms\s+916.7\s+1,583\s+\+666.7 \(\+72.7%\)", text)
    assert all(ink_fraction(p) > 0.01 for p in render_pages(out, tmp_path))


def test_report_mixes_project_files_and_run_ids_and_scores_the_engine(fake_engine, tmp_path):
    db = tmp_path / "runs.duckdb"
    path = project_file(tmp_path, "Mixed", agents=4)
    assert main(["predict", str(path), "--db", str(db)]) == 0
    out = tmp_path / "mixed.pdf"
    assert main(["report", str(path), "1", "--db", str(db), "--out", str(out)]) == 0
    text = pdf_text(out)
    assert "How the engine scores against the published measurements" in text
    assert re.search(r"\d+ published scenarios; \d+ of \d+ measured", text)
    assert "Settings: identical" not in text and "The runs have identical settings." in text


def test_bad_output_and_unknown_items_are_one_line_errors(tmp_path, capsys):
    assert main(["report", str(BASELINE), "--out", str(tmp_path / "r.txt")]) == 2
    assert "must name a .pdf file" in capsys.readouterr().err
    assert main(["report", "no-such-thing", "--out", str(tmp_path / "r.pdf")]) == 2
    assert "neither a project file nor a run id" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_failed_render_leaves_no_file(fake_engine, tmp_path, monkeypatch):
    from app.report import compose, write_pdf
    from engine.report import build_report, run_from_project_file

    report = build_report([run_from_project_file(project_file(tmp_path, "Atomic"))], validation=False)
    target = tmp_path / "out.pdf"
    target.write_bytes(b"previous report")
    monkeypatch.setattr(compose, "compose", lambda r: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        write_pdf(report, target)
    assert target.read_bytes() == b"previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Atomic.json", "out.pdf"]


def test_real_engine_values_in_the_pdf_match_predict_project(tmp_path):
    from engine.predict import predict_project

    pred = predict_project(projectfile.load(BASELINE))
    out = tmp_path / "baseline.pdf"
    assert main(["report", str(BASELINE), "--out", str(out), "--no-validation"]) == 0
    text = pdf_text(out)
    for metric, name in (
        ("capture_latency_ms", "CAPTURE_LATENCY"),
        ("qlatency_ms", "QLATENCY"),
        ("apply_latency_ms", "APPLY_LATENCY"),
        ("end2end_latency_ms", "END2END_LATENCY"),
    ):
        assert re.search(
            rf"^\s*{name}\s+{re.escape(format_value(pred.metrics[metric]))}\s+ms", text, re.MULTILINE
        ), name
    assert re.search(rf"Q Apply\s+{re.escape(format_value(pred.metrics['apply_rows_per_s']))}\s+rows/s", text)
    assert f"bottleneck {stage_label(pred.bottleneck)}" in text.replace("\n", " ")
    assert re.search(r"NUM_APPLY_AGENTS\s+6\s+agents\s+16\s+changed", text)
    assert os.path.getsize(out) < 2_000_000


def test_a_run_with_one_group_of_results_has_no_heading_row_under_the_caption():
    """A Db2 Mirror run's results are one group: no "Results" row under the "Results" caption,
    while a Q Replication run keeps its Throughput, Latency ... headings."""
    from app.report.compose import results_table
    from engine.report import run_from_project

    samples = Path(__file__).resolve().parents[2] / "sample_runs"
    mirror = results_table(run_from_project(projectfile.load(samples / "mirror-active-active.json")))
    qrep = results_table(run_from_project(projectfile.load(samples / "redpaper-baseline.json")))
    assert not any('class="group"' in row for row in mirror.rows)
    assert sum('class="group"' in row for row in qrep.rows) >= 4


def test_a_comparison_of_two_engines_carries_the_note_the_cli_prints():
    from app.report.compose import comparison_blocks
    from engine.report import build_report, run_from_project

    samples = Path(__file__).resolve().parents[2] / "sample_runs"
    runs = [
        run_from_project(projectfile.load(samples / f))
        for f in ("redpaper-baseline.json", "mirror-active-active.json")
    ]
    intro = comparison_blocks(build_report(runs, validation=False))[0].html
    assert "different engines (qrep, db2mirror)" in intro
    same = [run_from_project(projectfile.load(samples / "redpaper-baseline.json"))] * 2
    assert "different engines" not in comparison_blocks(build_report(same, validation=False))[0].html


def test_a_report_to_a_full_disk_exits_3_and_keeps_the_previous_pdf(fake_engine, full_disk, tmp_path, capsys):
    path = project_file(tmp_path, "Full", agents=4)
    out = full_disk.folder / "rep.pdf"
    assert main(["report", str(path), "--out", str(out), "--no-validation"]) == 0
    before = out.read_bytes()
    full_disk.fill()
    capsys.readouterr()
    assert main(["report", str(path), "--out", str(out), "--no-validation"]) == 3
    out_text, err = capsys.readouterr()
    assert "wrote" not in out_text
    assert err.count("\n") == 1 and "No space left on device; the previous rep.pdf is unchanged" in err
    assert out.read_bytes() == before and pdf_text(out)
    assert not [p for p in os.listdir(full_disk.folder) if p.endswith(".tmp")]


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_report_to_a_fifo_or_folder_is_refused_before_any_work(tmp_path, capsys, kind):
    target = tmp_path / "out.pdf"
    os.mkfifo(target) if kind == "fifo" else target.mkdir()
    assert main(["report", str(BASELINE), "--out", str(target)]) == 3
    assert "not a regular file; nothing was written" in capsys.readouterr().err


def test_a_long_title_is_shortened_in_the_footer_and_never_covers_the_page_number(fake_engine, tmp_path):
    name = "A project with a very long name " + "that keeps going " * 8 + "and ends here"
    out = tmp_path / "long.pdf"
    assert main(["report", str(project_file(tmp_path, name)), "--out", str(out), "--no-validation"]) == 0
    footers = [line for line in pdf_text(out).splitlines() if re.search(r"page \d+ of \d+", line)]
    assert len(footers) == pdf_pages(out) >= 2
    for line in footers:
        # the version and the date whole, then the page number, on one line: nothing drawn over them
        assert re.search(r"….* - qrtune \S+ - \d{4}-\d\d-\d\d \d\d:\d\d\s+page \d+ of \d+\s*$", line), line
        assert line.lstrip().startswith("A project with a very long name")
