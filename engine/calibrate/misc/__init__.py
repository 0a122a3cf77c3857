"""Calibration scripts for the Db2 Mirror, MQ mover and DB2 V8 engines.

``python -m engine.calibrate.misc`` fits every coefficient file
(``assets/coefficients/mirror.json``, ``mq.json``, ``db2v8.json``) from the
published measurements (``assets/validation/calibration.json``) and the seed
documents' tables; each sub-module can also be run alone.
"""


def write_coefficients(path, coeffs: dict) -> None:
    """Write a coefficient file atomically (temporary file, fsync, rename; folders made) and say so.

    Parameters
    ----------
    path : str or os.PathLike
        The coefficient file (``assets/coefficients/<engine>.json``).
    coeffs : dict
        Its content, written as JSON with one-space indents.
    """
    import json
    from pathlib import Path

    from engine.io.atomicfile import atomic_write_text

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(coeffs, indent=1, allow_nan=False) + "\n")
    print(f"wrote {path}")
