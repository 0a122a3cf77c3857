"""The report's tables of figures per system (bidirectional and peer-to-peer runs).

:func:`run_systems_blocks` prints one run's systems side by side (one column per system) with
the engine's note on how it models them; :func:`comparison_systems_blocks` prints each system's
figures in every compared run with deltas against the first, so comparing a bidirectional run
with a peer-to-peer one shows what the triggers cost.
"""

from __future__ import annotations

import html

from app.report.layout import Block, Html, Table
from engine.report import Report, ReportRun, format_delta, format_value


def _esc(text) -> str:
    return html.escape(str(text))


def _row(cells: list[str], right: set) -> str:
    return (
        "<tr>"
        + "".join(f"<td{' class=num' if i in right else ''}>{c}</td>" for i, c in enumerate(cells))
        + "</tr>"
    )


def run_systems_blocks(run: ReportRun) -> list[Block]:
    """The Systems table of one run (empty list when the run has no systems)."""
    if not run.systems:
        return []
    from engine.perf.qrep.systems import FIGURES

    n = len(run.systems)
    right = set(range(1, 1 + n))
    rows = []
    for name, label, unit in FIGURES:
        values = [s.get(name) for s in run.systems]
        if all(v is None for v in values):
            continue
        rows.append(
            _row([_esc(label), *("-" if v is None else format_value(v) for v in values), _esc(unit)], right)
        )
    value_w = max(10, 36 // n)
    out: list[Block] = [
        Table(
            ["Figure", *(_esc(s.label) for s in run.systems), "Unit"],
            rows,
            [100 - 12 - value_w * n, *([value_w] * n), 12],
            right=right,
            caption="Systems (each runs its own workload, captures it and applies its partner's)",
        )
    ]
    if run.systems_note:
        out.append(Html(f"<p class='muted small'>{_esc(run.systems_note)}</p>"))
    return out


def comparison_systems_blocks(report: Report) -> list[Block]:
    """Each system's figures in every compared run with deltas (empty list when no run has systems)."""
    cmp = report.comparison
    rows_in = tuple(getattr(cmp, "systems", ()) or ())
    if not rows_in:
        return []
    labels = list(cmp.labels)
    n = len(labels)
    right = set(range(3, 3 + 2 * n - 1))
    rows = []
    for m in rows_in:
        cells = [
            _esc(m.system),
            _esc(m.label),
            _esc(m.unit),
            *(format_value(v) if v is not None else "-" for v in m.values),
        ]
        for a, p in zip(m.abs_delta[1:], m.pct_delta[1:]):
            cells.append(f"{format_delta(a)} ({format_delta(p, pct=True)})")
        rows.append(_row(cells, right))
    val_w = max(7, 24 // n)
    delta_w = max(10, (100 - 9 - 37 - 8 - val_w * n) // max(n - 1, 1))
    return [
        Table(
            ["System", "Figure", "Unit", *map(_esc, labels), *(f"delta {_esc(lab)}" for lab in labels[1:])],
            rows,
            [9, 37, 8] + [val_w] * n + [delta_w] * (n - 1),
            right=right,
            caption=f"Systems (deltas against {_esc(labels[0])})",
        )
    ]
