"""The seed documents by title: a user reads "Redpaper ..., Table 4-3", never a file hash."""

from __future__ import annotations

import re

#: Seed file -> the document's title (as /work/shared/validation/calibration.json names them).
SEED_TITLES = {
    "000_b67a63c5fea2a7a6.txt": "Redpaper: Q Replication for z/OS performance study",
    "001_538a2843961b4ba9.txt": "developerWorks 2005: WebSphere Information Integrator Q replication, "
    "performance considerations",
    "002_4094ace59eb76d2a.txt": "Db2 Mirror for i: Performance Considerations",
    "003_ae22eb27d25a695a.txt": "SupportPac MP1J: WebSphere MQ V8.0 for z/OS performance report",
    "004_ffcf34fd6a8d592a.txt": "Performance Considerations in Migrating to DB2 UDB for z/OS V8",
}

_FILE = re.compile(r"\b\d{3}_[0-9a-f]{16}\.txt\b")


def source_title(text: str) -> str:
    """``text`` with each seed file name replaced by its document's title.

    ``"000_b67a63c5fea2a7a6.txt, Table 4-3"`` becomes ``"Redpaper: Q Replication for z/OS
    performance study, Table 4-3"``; a file name followed by its own parenthesised title
    (``"000_....txt (Redpaper: ...), Table 2-4"``) keeps only the title. Unknown files stay.

    Parameters
    ----------
    text : str
        A source or seed reference (``"<seed file>, <section>"`` or free text).

    Returns
    -------
    str
        The same reference by title and section.
    """

    def title(match: re.Match) -> str:
        return SEED_TITLES.get(match.group(0), match.group(0))

    text = re.sub(r"\b(\d{3}_[0-9a-f]{16}\.txt) \(([^)]*)\)", r"\2", text or "")
    return _FILE.sub(title, text)
