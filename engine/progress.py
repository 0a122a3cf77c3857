"""Progress of long commands on stderr: sweeps, studies and simulations.

On a terminal the bar is one line redrawn in place (at most 10 times a second); written to
a file or a pipe (a CI log, ``2> run.log``) it is one plain line at every tenth of the work,
so a log reads as a short list instead of hundreds of carriage returns.
"""

from __future__ import annotations

import math
import sys
import time

#: A terminal's bar is redrawn at most this often (s).
REDRAW_S = 0.1
#: Away from a terminal a line is written each time this share of the work is done.
LOG_STEP = 0.1
#: Characters of the bar.
WIDTH = 30


class Progress:
    """Work done out of ``total`` units, with the elapsed time and an estimate of the time left.

    Parameters
    ----------
    total : float
        Units of work in all (points, runs, simulated seconds).
    done : float
        Units already done before this command (a resumed sweep's stored points).
    stream : file, optional
        Where to write (stderr by default).
    enabled : bool
        False writes nothing (``--quiet``, ``--no-progress``).
    label : str
        The word before the bar (``sweep``, ``study``, ``simulate``).
    unit : str
        Appended to the counts (`` s`` for simulated seconds).
    """

    def __init__(
        self,
        total: float,
        done: float = 0,
        stream=None,
        enabled: bool = True,
        label: str = "sweep",
        unit: str = "",
    ):
        self.total, self.done, self.label, self.unit = total, done, label, unit
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self.start_done = done
        self._last = 0.0
        self._logged_step = -1
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, n: float) -> None:
        """Count ``n`` more units done."""
        self.update_to(self.done + n)

    def update_to(self, done: float) -> None:
        """Set the units done to ``done`` (a simulation reports how far its clock has run)."""
        self.done = done
        if not self.enabled:
            return
        finished = self.done >= self.total
        if self._tty:
            now = time.monotonic()
            if now - self._last >= REDRAW_S or finished:
                self._last = now
                self._write("\r" + self._text(now))
            return
        step = int(self._fraction() / LOG_STEP + 1e-9)
        if step > self._logged_step:
            self._logged_step = step
            self._write(self._text(time.monotonic()) + "\n")

    def close(self) -> None:
        """End the terminal's line (a log's lines are already ended)."""
        if self.enabled and self._tty:
            self._write("\n")

    def _fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 1.0

    def _text(self, now: float) -> str:
        frac = self._fraction()
        filled = int(frac * WIDTH)
        elapsed = now - self.start
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else math.nan
        text = (
            f"{self.label} [{'#' * filled}{'-' * (WIDTH - filled)}] {self.done:,.0f}/{self.total:,.0f}{self.unit} "
            f"{100 * frac:5.1f}% {elapsed:6.1f}s"
        )
        if math.isfinite(eta) and self.done < self.total:
            text += f" eta {eta:5.1f}s"
        return text

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
