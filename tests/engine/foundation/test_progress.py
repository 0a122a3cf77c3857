"""Progress of long commands: a bar redrawn in place on a terminal, a short list of lines in a log."""

from __future__ import annotations

import io

from engine.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_one_line_per_tenth_of_the_work_and_no_carriage_returns():
    log = io.StringIO()
    bar = Progress(600, stream=log, label="simulate", unit=" s")
    for t in range(0, 601, 2):  # a simulation reports its clock 301 times
        bar.update_to(t)
    bar.close()
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 11  # 0%, 10% .. 100%
    assert lines[-1].startswith("simulate [" + "#" * 30 + "] 600/600 s 100.0%") and "eta" not in lines[-1]


def test_a_terminal_gets_one_line_redrawn_in_place_and_ended_once():
    tty = _Terminal()
    bar = Progress(4, done=1, stream=tty, label="sweep")
    bar.update(3)  # a resumed sweep: one point stored, three run now
    bar.close()
    text = tty.getvalue()
    assert (
        text.startswith("\rsweep [")
        and "4/4 100.0%" in text
        and text.endswith("\n")
        and text.count("\n") == 1
    )


def test_quiet_writes_nothing():
    log = io.StringIO()
    bar = Progress(10, stream=log, enabled=False)
    bar.update(10)
    bar.close()
    assert log.getvalue() == ""
