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

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CALIBRATION = ROOT / "assets" / "validation" / "calibration.json"
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
            "or keep the committed coefficients.") from None


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
        raise MissingInputError(f"calibration file {p} cannot be read ({e.strerror or e}); "
                                "pass --calibration FILE (format qrtune-scenarios/1)") from None
    except json.JSONDecodeError as e:
        raise MissingInputError(f"calibration file {p}: not valid JSON at line {e.lineno}: {e.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise MissingInputError(f"calibration file {p}: expected an object with a 'scenarios' list")
    return doc
