"""Load fitted coefficient files from ``assets/coefficients/``.

Coefficients are written by the calibration scripts (``python -m
engine.calibrate.misc``) and read here; the engine itself holds no published
measurement. Files are cached per process.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from engine.errors import QrtuneError
from engine.io.packagedata import asset_path

COEFF_DIR = asset_path("coefficients")


class CoefficientsError(QrtuneError):
    """A coefficient file is missing, unreadable or malformed; rerun its calibration script."""


def read_document(path: Path, what: str, rerun: str) -> dict:
    """Parse the coefficient file ``path``.

    Parameters
    ----------
    path : Path
        The JSON file.
    what : str
        What it holds, for the message (``"coefficients"``).
    rerun : str
        The calibration command that regenerates it, for the message.

    Raises
    ------
    CoefficientsError
        The file is missing or not valid JSON; the message names the file and the command.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise CoefficientsError(f"{path}: cannot read {what} ({e.strerror or e}); run `{rerun}`") from e
    except json.JSONDecodeError as e:
        raise CoefficientsError(f"{path}: not valid JSON at line {e.lineno}: {e.msg}") from e


@cache
def load(name: str) -> dict:
    """Return the parsed ``assets/coefficients/<name>.json``.

    Raises
    ------
    CoefficientsError
        The file is missing or not valid JSON.
    """
    return read_document(COEFF_DIR / f"{name}.json", "coefficients", "python -m engine.calibrate.misc")
