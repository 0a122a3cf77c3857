"""MQ transport component models: distributed queue managers' logs and CPU, client connections,
channels over distance, MQ for z/OS log and channel initiator.

Each module is one mechanism, written as a function of the settings IBM's MQ performance reports
vary (message size, persistence, connection, concurrent committers, log device, network round
trip, TCP window, cipher). The coefficients are fitted to those reports' component measurements by
``python -m engine.calibrate.mq_components`` and stored in ``assets/coefficients/mq_components.json``
(:func:`coefficients`); the fit and the Q Replication engine evaluate the same functions.
"""

from __future__ import annotations

import functools
import json

from engine.io.packagedata import asset_path

#: Bytes in the "KB" of the MQ performance reports' message sizes (2 KB is 2,048 bytes).
KIB = 1024.0
#: Bytes in the "MB" of MB/s rates of the reports and of this package (10^6 bytes).
MB = 1e6
#: Bytes of an MQ log page (distributed queue managers write the log in 4 KB pages).
LOG_PAGE_BYTES = 4096.0


@functools.lru_cache(maxsize=1)
def parameter_entries() -> dict:
    """The stored component coefficients as the fit wrote them: name -> its entry (``value``,
    ``unit``, ``bounds``, ``fitted``, ``meaning``) of ``assets/coefficients/mq_components.json``.

    Raises
    ------
    FileNotFoundError
        The coefficient file is missing (run ``python -m engine.calibrate.mq_components``).
    """
    with open(asset_path("coefficients", "mq_components.json"), encoding="utf-8") as f:
        return json.load(f)["parameters"]


@functools.lru_cache(maxsize=1)
def coefficients() -> dict:
    """The fitted component coefficients (:func:`parameter_entries`), name -> value.

    Raises
    ------
    FileNotFoundError
        The coefficient file is missing (run ``python -m engine.calibrate.mq_components``).
    """
    return {name: float(entry["value"]) for name, entry in parameter_entries().items()}


def version() -> str:
    """Version string of the stored component coefficients."""
    with open(asset_path("coefficients", "mq_components.json"), encoding="utf-8") as f:
        return str(json.load(f)["version"])
