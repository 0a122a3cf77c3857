"""The PDF report prints Q against SQL Replication for a prediction that compares them."""

from __future__ import annotations

from pathlib import Path

from app.report.layout import Table
from app.report.sql_comparison import run_sql_comparison_blocks
from engine.report.build import run_from_project_file

ROOT = Path(__file__).resolve().parents[2]


def test_the_comparison_table_pairs_every_figure_and_is_absent_without_sql_figures():
    run = run_from_project_file(ROOT / "sample_runs" / "sql-replication-vs-q.json")
    (table,) = [b for b in run_sql_comparison_blocks(run) if isinstance(b, Table)]
    text = " ".join(table.rows)
    assert "END2END_LATENCY" in text and "Most rows/s" in text and "Q Apply CPU per row" in text
    assert not run_sql_comparison_blocks(
        run_from_project_file(ROOT / "sample_runs" / "redpaper-baseline.json")
    )
