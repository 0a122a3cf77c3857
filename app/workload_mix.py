"""Rows per transaction and the insert/update/delete mix never disagree (no Qt here).

A source's ``ROWS_PER_TXN`` is the size of a transaction; ``INSERTS_PER_TXN``,
``UPDATES_PER_TXN`` and ``DELETES_PER_TXN`` split it. An edit of one side brings the
other along in the same undo step: a new size rescales the mix (largest remainders,
so the parts stay whole rows and add up), a new part sets the size to the new sum.
A project file whose figures disagree is named by :func:`mix_problems` when opened.
"""

from __future__ import annotations

from engine.model import Project

SIZE = "rows_per_txn"
MIX = ("inserts_per_txn", "updates_per_txn", "deletes_per_txn")


def _scaled(parts: list[int], total: int) -> list[int]:
    """``parts`` rescaled to whole numbers that add up to ``total`` (largest remainders)."""
    weight = sum(parts)
    if weight <= 0:
        return [total] + [0] * (len(parts) - 1)
    exact = [p * total / weight for p in parts]
    out = [int(x) for x in exact]
    order = sorted(range(len(parts)), key=lambda i: exact[i] - out[i], reverse=True)
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def sync_mix(project: Project, node_id: str, changed: str) -> tuple[Project, str]:
    """Bring the other side of the workload mix along after ``changed`` was set on ``node_id``.

    Parameters
    ----------
    project : Project
        The project with the new value already set.
    node_id : str
        The node edited.
    changed : str
        The knob set (only ``rows_per_txn`` and the three mix knobs have an effect).

    Returns
    -------
    project : Project
        With the mix rescaled or the size set to the mix's sum (unchanged when they agree).
    note : str
        What was brought along (for the undo text and the status bar), or "".
    """
    node = project.node(node_id)
    if changed not in (SIZE, *MIX) or not all(isinstance(node.params.get(k), int) for k in (SIZE, *MIX)):
        return project, ""
    size, parts = node.params[SIZE], [node.params[k] for k in MIX]
    if sum(parts) == size:
        return project, ""
    if changed == SIZE:
        for key, value in zip(MIX, _scaled(parts, size)):
            project = project.with_param(node_id, key, value)
        new = project.node(node_id).params
        return project, "; mix " + " + ".join(f"{k.upper()} {new[k]}" for k in MIX) + f" = {size}"
    total = sum(parts)
    if total < 1:
        raise_mix_error(node_id, parts)
    return project.with_param(node_id, SIZE, total), f"; ROWS_PER_TXN {total} (the mix's sum)"


def raise_mix_error(node_id: str, parts: list[int]) -> None:
    """Refuse a mix that changes no row at all, naming the fields."""
    from engine.errors import FieldError

    raise FieldError(
        f"{node_id}: INSERTS_PER_TXN + UPDATES_PER_TXN + DELETES_PER_TXN",
        sum(parts),
        "at least 1 row: a transaction changes ROWS_PER_TXN rows, split by the mix",
    )


def mix_problems(project: Project) -> list[str]:
    """One line per source whose ROWS_PER_TXN differs from INSERTS_PER_TXN + UPDATES_PER_TXN + DELETES_PER_TXN."""
    out = []
    for node in project.nodes:
        values = [node.params.get(k) for k in (SIZE, *MIX)]
        if all(isinstance(v, int) for v in values) and sum(values[1:]) != values[0]:
            out.append(
                f"{node.label}: ROWS_PER_TXN {values[0]} but INSERTS_PER_TXN + UPDATES_PER_TXN + "
                f"DELETES_PER_TXN = {sum(values[1:])}; set one of them so they agree"
            )
    return out
