"""Entry point of the desktop bundle (``dist/qrtune/qrtune``).

* no arguments, or a project file: open the workbench;
* ``--smoke-test DIR``: open the bundled baseline sample offscreen, predict it,
  record the run, export a PDF report into DIR (through File > Export report's
  background task), print what it wrote and exit 0 (1 when a step fails);
* anything else: the ``qrtune`` command line (``qrtune report 12 --out r.pdf``...).

Only the standard library is imported before the mode is known, so the command
line does not load Qt and nothing here imports Dask (the bundle leaves it out).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def bundle_root() -> Path:
    """Folder holding ``assets/`` and ``sample_runs/`` (the bundle's data folder, or the checkout)."""
    return Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1]))


def smoke_test(out_dir: str, sample: str | None = None) -> int:
    """Open a sample offscreen, predict, export a PDF report into ``out_dir``; 0 when every step worked."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sample_path = Path(sample) if sample else bundle_root() / "sample_runs" / "redpaper-baseline.json"
    import tempfile

    from PySide6.QtCore import QEventLoop, QSettings, QStandardPaths, QTimer
    from PySide6.QtWidgets import QApplication

    import app  # noqa: F401 - the binding guard first

    qapp = QApplication.instance() or QApplication(["qrtune"])
    QStandardPaths.setTestModeEnabled(True)
    from app.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix="qrtune-smoke-") as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.IniFormat)
        window = MainWindow(
            settings=settings, db_path=str(Path(tmp) / "runs.duckdb"), autosave_dir=Path(tmp) / "as"
        )
        window.confirm_discard = lambda: True
        if not window.open_project(str(sample_path), ask=False):
            print(f"smoke test: cannot open {sample_path}: {window.last_message}", file=sys.stderr)
            return 1
        run_id = window.predict_and_record()
        if run_id is None or window.live.prediction is None:
            print(f"smoke test: no prediction: {window.last_message}", file=sys.stderr)
            return 1
        pred = window.live.prediction
        pdf = out / "smoke-report.pdf"
        result: dict = {}
        loop = QEventLoop()
        window.tasks.finished.connect(lambda r: (result.update(ok=r), loop.quit()))
        window.tasks.failed.connect(lambda m: (result.update(error=m), loop.quit()))
        QTimer.singleShot(120_000, loop.quit)
        if not window.export_report(str(pdf)):
            print(f"smoke test: export did not start: {window.last_message}", file=sys.stderr)
            return 1
        loop.exec()
        window.close()
        window.deleteLater()
        qapp.processEvents()
    if "ok" not in result or not pdf.is_file() or pdf.stat().st_size < 1000:
        print(f"smoke test: report failed: {result.get('error', 'timed out')}", file=sys.stderr)
        return 1
    from engine.report import format_value  # numbers as the report prints them

    nan = float("nan")
    print(f"sample: {sample_path.name}")
    print(
        f"prediction: {format_value(pred.metrics.get('apply_rows_per_s', nan))} rows/s, END2END_LATENCY "
        f"{format_value(pred.metrics.get('end2end_latency_ms', nan))} ms, bottleneck {pred.bottleneck}"
    )
    print(f"report: {pdf} ({result['ok'][1]} pages, {pdf.stat().st_size} bytes)")
    print(f"dask loaded: {'dask' in sys.modules}")
    print(f"smoke test passed in {time.perf_counter() - t0:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--smoke-test"]:
        if len(args) < 2:
            print("usage: qrtune --smoke-test DIR [SAMPLE.json]", file=sys.stderr)
            return 2
        return smoke_test(args[1], args[2] if len(args) > 2 else None)
    from qrtune.cli import main as cli_main

    if not args or (len(args) == 1 and args[0].endswith(".json") and Path(args[0]).is_file()):
        return cli_main(["gui", *args])
    return cli_main(args)


if __name__ == "__main__":
    import multiprocessing

    multiprocessing.freeze_support()
    status = main()
    from qrtune.cli import exit_with

    exit_with(status)
