"""ROWS_PER_TXN and the insert/update/delete mix cannot disagree."""

from __future__ import annotations

import pytest

from app.document import Document
from app.workload_mix import mix_problems
from engine import projectfile
from engine.errors import FieldError


@pytest.fixture
def doc(root):
    return Document(projectfile.load(root / "sample_runs" / "redpaper-baseline.json"))


def _mix(doc):
    p = doc.project.nodes_of("source_db2")[0].params
    return p["rows_per_txn"], p["inserts_per_txn"], p["updates_per_txn"], p["deletes_per_txn"]


def test_a_new_size_rescales_the_mix_in_one_undo_step(doc):
    src = doc.project.nodes_of("source_db2")[0].id
    assert _mix(doc) == (5, 1, 3, 1)
    doc.set_param(src, "rows_per_txn", 10)
    assert _mix(doc) == (10, 2, 6, 2)
    assert "mix" in doc.undo_stack.undoText()
    doc.set_param(src, "rows_per_txn", 7)
    size, *parts = _mix(doc)
    assert size == 7 and sum(parts) == 7
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert _mix(doc) == (5, 1, 3, 1)


def test_a_new_part_sets_the_size_to_the_sum(doc):
    src = doc.project.nodes_of("source_db2")[0].id
    doc.set_param(src, "inserts_per_txn", 4)
    assert _mix(doc) == (8, 4, 3, 1)


def test_a_mix_of_no_rows_is_refused_naming_the_fields(doc):
    src = doc.project.nodes_of("source_db2")[0].id
    doc.set_param(src, "updates_per_txn", 0)
    doc.set_param(src, "deletes_per_txn", 0)
    with pytest.raises(FieldError, match="INSERTS_PER_TXN \\+ UPDATES_PER_TXN \\+ DELETES_PER_TXN"):
        doc.set_param(src, "inserts_per_txn", 0)
    assert _mix(doc) == (1, 1, 0, 0)


def test_a_file_that_disagrees_is_named(doc):
    src = doc.project.nodes_of("source_db2")[0].id
    bad = doc.project.with_param(src, "rows_per_txn", 10)
    (line,) = mix_problems(bad)
    assert "ROWS_PER_TXN 10" in line and "= 5" in line
    assert mix_problems(doc.project) == []
