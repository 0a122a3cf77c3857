"""The start page: every journey in the user's words, each opening the sample that answers it on click or Enter."""

import re

import pytest
from PySide6.QtCore import Qt

from app.start_page import JOURNEYS, MONITOR_SAMPLE, SAMPLE_RUNS, StartPage, sample_name, shows_at_start


@pytest.fixture
def page(window, qtbot):
    window.confirm_discard = lambda: True
    p = StartPage(window)
    qtbot.addWidget(p)
    return p


def _row(question: str) -> int:
    return next(i for i, j in enumerate(JOURNEYS) if j.question == question)


def test_every_journey_is_a_question_with_a_sample_that_exists():
    assert len(JOURNEYS) >= 14
    for journey in JOURNEYS:
        assert journey.question[0].isupper() and journey.question[-1] in "?."
        assert journey.sample in (MONITOR_SAMPLE, "") or (SAMPLE_RUNS / journey.sample).is_file(), journey
        assert journey.view in (
            "Topology",
            "Results",
            "Simulation",
            "Sweep",
            "Compare",
            "Validation",
            "Monitor",
        )
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", journey.hint)  # IBM's names (NUM_APPLY_AGENTS), no ids
        assert ".json" not in sample_name(journey)


def test_the_list_reads_the_question_and_the_samples_own_name(page):
    first = page.list.item(0).text()
    assert first.startswith("Why is my replication falling behind?\n")
    assert "Redpaper baseline (z196, Tables 2-1..2-3)" in first
    texts = [page.list.item(i).text() for i in range(page.list.count())]
    assert any(t.startswith("How many queue maps?") and "four queue maps" in t for t in texts)


def test_enter_opens_the_chosen_journeys_sample_and_its_view(page, window, qtbot):
    page.show()
    qtbot.waitExposed(page)
    page.list.setCurrentRow(_row("How many queue maps?"))
    qtbot.keyClick(page.list, Qt.Key_Return)
    assert window.document.path == str((SAMPLE_RUNS / "four-queue-maps.json").resolve())
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Sweep"
    assert not page.isVisible()  # the page closes once the sample is open


def test_a_click_opens_the_journeys_sample(page, window, qtbot):
    row = _row("Is the move from SQL Replication worth it?")
    page.show()
    qtbot.waitExposed(page)
    page.list.scrollToItem(page.list.item(row))
    rect = page.list.visualItemRect(page.list.item(row))
    qtbot.mouseClick(page.list.viewport(), Qt.LeftButton, pos=rect.center())
    assert window.document.path == str((SAMPLE_RUNS / "sql-replication-vs-q.json").resolve())
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Results"


def test_a_simulation_journey_shows_the_simulation_tab(page, window):
    assert page.open_row(_row("The channel was down for 20 minutes: when are we caught up?"))
    assert window.document.path.endswith("redpaper-baseline.json")
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Simulation"


def test_the_page_is_in_the_file_and_help_menus_and_can_be_turned_off(window, qtbot):
    menus = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    file_items = [a.text().replace("&", "") for a in menus["File"].actions()]
    help_items = [a.text().replace("&", "") for a in menus["Help"].actions()]
    assert "Start Page..." in file_items and "Start Page" in help_items
    page = window.show_start_page()
    qtbot.addWidget(page)
    assert page.isVisible() and window.show_start_page() is page
    assert shows_at_start(window.settings)
    page.show_at_start.setChecked(False)
    assert not shows_at_start(window.settings)
    page.close()


def test_the_evidence_journey_opens_the_validation_view_and_keeps_the_project(page, window, monkeypatch):
    monkeypatch.setattr(window, "validate", lambda: True)  # the scoring itself is the Validation view's test
    before = window.document.project
    assert page.open_row(_row("Show me the evidence."))
    assert window.document.project is before
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Validation"


def test_the_page_opens_with_the_workbench_only_without_a_project(window, qtbot):
    from app.start_page import offer_at_start

    assert offer_at_start(window, "sample_runs/redpaper-baseline.json", recovered=False) is None
    assert offer_at_start(window, None, recovered=True) is None
    page = offer_at_start(window, None, recovered=False)
    qtbot.addWidget(page)
    assert page is not None and page.isVisible() and page.list.currentRow() == 0
    page.show_at_start.setChecked(False)
    page.close()
    assert offer_at_start(window, None, recovered=False) is None
