"""The start page: each question users bring to qrtune, in their words, linked to the sample that answers it.

Shown when the workbench opens without a project (unless the user turned it off), and from
Help > Start Page and File > Start Page. Each entry is a journey of the user guide: the question,
the sample project of ``sample_runs/`` that answers it (by the project's own name) and where to look
once it is open. Clicking an entry, or choosing it with the arrow keys and pressing Enter, opens the
sample and shows that view; the monitor journey also imports the sample's monitor exports, the
evidence journey opens the Validation view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

#: The sample projects (the same folder as the window's File > Open Sample Monitor Exports).
SAMPLE_RUNS = Path(__file__).resolve().parents[1] / "sample_runs"
#: The setting that says whether the page opens with the workbench.
SHOW_AT_START = "start_page/show_at_start"
#: ``Journey.sample`` of the journeys that open something other than a project file.
MONITOR_SAMPLE = "monitor-baseline"


@dataclass(frozen=True)
class Journey:
    """One question and where its answer is.

    Attributes
    ----------
    question : str
        The question in the user's words.
    sample : str
        The sample project's file in ``sample_runs/``, :data:`MONITOR_SAMPLE`, or empty when the
        answer is a view of its own (the Validation view: the open project stays).
    view : str
        The view shown once it is open (``Topology``, ``Sweep``, ``Simulation`` ...).
    hint : str
        What to do or read there, in one line.
    """

    question: str
    sample: str
    view: str
    hint: str


#: The journeys of the user guide, in its order.
JOURNEYS: tuple[Journey, ...] = (
    Journey(
        "Why is my replication falling behind?",
        "redpaper-baseline.json",
        "Topology",
        "The headline names the stage that limits throughput; Results has the latency breakdown and CPU per row.",
    ),
    Journey(
        "How many apply agents do I need?",
        "redpaper-baseline.json",
        "Sweep",
        "Sweep NUM_APPLY_AGENTS at your target rate; the pick is the fewest agents that hold it.",
    ),
    Journey(
        "Should I batch transactions?",
        "redpaper-baseline.json",
        "Sweep",
        "Sweep TRANS_BATCH_SZ 1, 3, 5, or record runs and compare them side by side.",
    ),
    Journey(
        "The channel was down for 20 minutes: when are we caught up?",
        "redpaper-baseline.json",
        "Simulation",
        "Add an MQ channel stop of 20 minutes and simulate: catch-up time, peak depth, latency over time.",
    ),
    Journey(
        "Is a planned switch-over safe now?",
        "redpaper-baseline.json",
        "Simulation",
        "Simulate the current workload: the time to apply everything in flight is the recovery time.",
    ),
    Journey(
        "Bidirectional or peer-to-peer?",
        "redpaper-bidirectional.json",
        "Results",
        "CPU per row and throughput per system; open the peer-to-peer sample to compare.",
    ),
    Journey(
        "What will Db2 Mirror do to my response times?",
        "mirror-active-passive.json",
        "Results",
        "Response time and CPU on both nodes; the Advisor finds the job sets or cores that restore throughput.",
    ),
    Journey(
        "Does the model match my system?",
        MONITOR_SAMPLE,
        "Monitor",
        "Three days of CAPMON, CAPQMON and APPLYMON exports against the prediction, with the fit's error.",
    ),
    Journey(
        "We are migrating Db2 to V8: what changes?",
        "db2-v8-migration.json",
        "Results",
        "The CPU band, DBM1 storage below the bar and catalog migration time.",
    ),
    Journey(
        "How large must my MQ buffer pools be?",
        "mq-buffer-pool-mover.json",
        "Results",
        "Elapsed time, peak depth and the get rates from the buffer pool and the page set.",
    ),
    Journey(
        "Show me the evidence.",
        "",
        "Validation",
        "How the engine scores against every published measurement.",
    ),
    Journey(
        "Our target moves to Linux: bindings or client?",
        "zos-to-linux-bindings.json",
        "Results",
        "Q Apply on Linux fed by a channel; open the client sample for the MQ client connection.",
    ),
    Journey(
        "How many queue maps?",
        "four-queue-maps.json",
        "Sweep",
        "Sweep the queue maps (or ask the Advisor for the fewest that hold your rate).",
    ),
    Journey(
        "Is the move from SQL Replication worth it?",
        "sql-replication-vs-q.json",
        "Results",
        "Throughput, latency and capture CPU of SQL Replication and Q Replication side by side.",
    ),
    Journey(
        "Production runs at 2,000 rows/s, not at the limit.",
        "redpaper-baseline.json",
        "Simulation",
        "Set a load profile (constant 2,000 rows/s, a daily peak, a quiet night) and simulate.",
    ),
)


def sample_name(journey: Journey, folder: Path = SAMPLE_RUNS) -> str:
    """The name of the journey's sample as its project file gives it (the file name when unreadable)."""
    if journey.sample == MONITOR_SAMPLE:
        return "Redpaper baseline with three days of monitor exports"
    if not journey.sample:
        return "Every published measurement"
    try:
        return str(json.loads((folder / journey.sample).read_text(encoding="utf-8"))["name"])
    except (OSError, ValueError, KeyError, TypeError):
        return journey.sample


def open_journey(window, journey: Journey, ask: bool = True) -> bool:
    """Open ``journey``'s sample in ``window`` (an :class:`app.main_window.MainWindow`) and show its view."""
    if journey.sample == MONITOR_SAMPLE:
        return window.open_monitor_sample(ask=ask)
    if not journey.sample:
        window.open_validation()  # scores the engine the first time; the open project stays
        return True
    if not window.open_project(str(SAMPLE_RUNS / journey.sample), ask=ask):
        return False
    window.show_view(journey.view)
    return True


class StartPage(QDialog):
    """The list of journeys; an entry opens on click or Enter and the page closes.

    Parameters
    ----------
    window : app.main_window.MainWindow
        The window the samples open in.
    """

    def __init__(self, window):
        super().__init__(window)
        self.main_window = window
        self.setWindowTitle("qrtune: start")
        layout = QVBoxLayout(self)
        intro = QLabel(
            "<b>What do you want to find out?</b> Each question opens a sample project that answers it; "
            "change it to your own system from there."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setAccessibleName("journeys")
        for journey in JOURNEYS:
            item = QListWidgetItem(f"{journey.question}\n    {sample_name(journey)}: {journey.hint}")
            item.setToolTip(f"Opens {sample_name(journey)} and shows {journey.view}")
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemActivated.connect(lambda item: self.open_row(self.list.row(item)))
        self.list.itemClicked.connect(lambda item: self.open_row(self.list.row(item)))
        layout.addWidget(self.list, 1)
        self.show_at_start = QCheckBox("Show this page when qrtune opens without a project")
        self.show_at_start.setChecked(shows_at_start(window.settings))
        self.show_at_start.toggled.connect(lambda on: window.settings.setValue(SHOW_AT_START, on))
        buttons = QHBoxLayout()
        self.blank = QPushButton("Blank project")
        self.blank.setToolTip("Start from the unidirectional template")
        self.blank.clicked.connect(self._blank)
        self.open_file = QPushButton("Open a project file...")
        self.open_file.clicked.connect(self._open_file)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        for b in (self.blank, self.open_file, close):
            b.setAutoDefault(False)  # Enter opens the chosen journey, never a button
            buttons.addWidget(b)
        buttons.insertStretch(2, 1)
        layout.addWidget(self.show_at_start)
        layout.addLayout(buttons)
        self.list.setFocus(Qt.OtherFocusReason)
        self.resize(720, 560)

    def open_row(self, row: int) -> bool:
        """Open the journey of list row ``row``; the page closes when it opened."""
        if not 0 <= row < len(JOURNEYS):
            return False
        if not open_journey(self.main_window, JOURNEYS[row]):
            return False
        self.accept()
        return True

    def _blank(self) -> None:
        if self.main_window.new_from_template("unidirectional"):
            self.accept()

    def _open_file(self) -> None:
        if self.main_window.open_dialog():
            self.accept()


def shows_at_start(settings) -> bool:
    """Whether the page opens with the workbench (on unless the user turned it off)."""
    value = settings.value(SHOW_AT_START, True)
    return value not in (False, "false", "0", 0)


def offer_at_start(window, project_path: str | None, recovered: bool) -> StartPage | None:
    """The page the workbench opens with: shown when it started without a project, recovered none and the
    user has not turned the page off; None otherwise."""
    if project_path or recovered or not shows_at_start(window.settings):
        return None
    return show_start_page(window)


def show_start_page(window) -> StartPage:
    """Show the start page over ``window`` (one page per window, raised when already open)."""
    page = getattr(window, "start_page", None)
    if page is None:
        page = window.start_page = StartPage(window)
    page.list.setCurrentRow(0)
    page.show()
    page.raise_()
    page.activateWindow()
    return page
