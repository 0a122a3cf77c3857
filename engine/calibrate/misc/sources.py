"""Where the calibration scripts read their inputs: the calibration file and the seed documents.

The calibration file defaults to the committed copy ``assets/validation/calibration.json``,
so the Db2 Mirror fit runs from a bare clone. The MQ and DB2 V8 coefficients also read
tables that only the seed documents publish (seed 003's 64 KB costs by task, seed 004's
storage growth factors and CPU ranges); the seed folder is, in order, ``--seeds DIR``,
the ``QRTUNE_SEEDS`` environment variable, ``../shared/seeds`` beside the repository,
``/work/shared/seeds``. A missing file stops the script with a message saying what was
looked for and how to point at it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.io.packagedata import asset_path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CALIBRATION = asset_path("validation", "calibration.json")
SEED_DIR_CANDIDATES = (ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds"))


class MissingInputError(SystemExit):
    """A calibration input is missing or unreadable: uncaught, Python prints the message and exits 1."""


def seeds_dir(arg: str | os.PathLike | None = None) -> Path:
    """The seed folder to read: ``arg``, else ``$QRTUNE_SEEDS``, else the first default that exists.

    Returns the first candidate even when none exists, so :func:`seed_text` can name it.
    """
    if arg:
        return Path(arg)
    env = os.environ.get("QRTUNE_SEEDS")
    if env:
        return Path(env)
    for cand in SEED_DIR_CANDIDATES:
        if cand.is_dir():
            return cand
    return SEED_DIR_CANDIDATES[0]


def seed_text(seeds: Path, name: str, what: str) -> str:
    """Text of seed ``name`` in ``seeds``.

    Raises
    ------
    MissingInputError
        The file does not exist or cannot be read; the message names the path, what needs it
        and how to point the script at the seed documents.
    """
    path = Path(seeds) / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise MissingInputError(
            f"seed document {path} cannot be read ({e.strerror or e}); it holds {what}, which the calibration "
            f"file does not. Pass --seeds DIR or set QRTUNE_SEEDS to the folder holding {name}, "
            "or keep the committed coefficients."
        ) from None


def load_calibration(path: str | os.PathLike | None = None) -> dict:
    """The scenario file (default: the committed ``assets/validation/calibration.json``).

    Raises
    ------
    MissingInputError
        Missing file, invalid JSON, or no ``scenarios`` list.
    """
    p = Path(path) if path else DEFAULT_CALIBRATION
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise MissingInputError(
            f"calibration file {p} cannot be read ({e.strerror or e}); "
            "pass --calibration FILE (format qrtune-scenarios/1)"
        ) from None
    except json.JSONDecodeError as e:
        raise MissingInputError(f"calibration file {p}: not valid JSON at line {e.lineno}: {e.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise MissingInputError(f"calibration file {p}: expected an object with a 'scenarios' list")
    return doc


def without_scenarios(doc: dict, patterns) -> tuple[dict, list[str]]:
    """A copy of a scenario document without the scenarios whose id matches any of ``patterns``.

    Used by the calibration scripts' ``--exclude`` and by :mod:`engine.calibrate.crossval` to refit
    without one published table. Relations naming a removed scenario are removed too.

    Parameters
    ----------
    doc : dict
        A ``qrtune-scenarios/1`` document.
    patterns : iterable of str
        Shell-style patterns (:func:`fnmatch.fnmatchcase`) matched against scenario ids,
        e.g. ``"rp-t3-3-*"``.

    Returns
    -------
    (dict, list of str)
        The reduced document and the removed ids, in file order.

    Raises
    ------
    ValueError
        A pattern matches no scenario id (the message names the pattern).
    """
    from fnmatch import fnmatchcase

    patterns = list(patterns or ())
    ids = [s.get("id", "") for s in doc.get("scenarios", [])]
    for p in patterns:
        if not any(fnmatchcase(i, p) for i in ids):
            raise ValueError(
                f"exclude: pattern {p!r} matches no scenario id (ids look like {ids[0]!r})"
                if ids
                else f"exclude: pattern {p!r}: the document has no scenarios"
            )
    removed = [i for i in ids if any(fnmatchcase(i, p) for p in patterns)]
    gone = set(removed)
    out = dict(doc)
    out["scenarios"] = [s for s in doc.get("scenarios", []) if s.get("id") not in gone]
    out["relations"] = [
        r for r in doc.get("relations", []) if r.get("a") not in gone and r.get("b") not in gone
    ]
    return out, removed


def add_exclude_option(parser, example: str) -> None:
    """Add a calibration script's ``--exclude PATTERN`` option (repeatable) for :func:`without_scenarios`.

    ``example`` is a pattern shown in the help (``"rp-t3-3-*"``).
    """
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help=f"leave scenarios whose id matches PATTERN (shell style, e.g. '{example}') out of the "
        "fit; repeatable. Use with --out elsewhere than assets/ (cross-validation)",
    )
