"""Message geometry: bytes per row by operation, rows per MQ message, pages and segments.

Q Capture sends one MQ message per group of up to ``TRANS_BATCH_SZ`` source transactions:
fewer when one pass over the log finds fewer (``txns_available``) or when the group would pass
``MAX_MESSAGE_SIZE``; a transaction larger than that spans several messages. A message larger
than the queue's ``MAXMSGL`` is refused by MQ (the put fails), so the flow is an error. A row in a message carries a row header, a
header per column sent and the column data:

* INSERT: every column (the after image);
* UPDATE: every column, or with column suppression (``CHANGED_COLS_ONLY`` and a conflict
  action other than F) only the key and the changed columns; in both cases the before
  values of the unique-index keys, which Q Apply's dependency analysis needs;
* DELETE: every column, or with column suppression only the key.

Header sizes are fitted coefficients (``msg_header_bytes``, ``txn_header_bytes``,
``row_header_bytes``, ``column_header_bytes``, and ``partial_row_header_bytes`` for a
suppressed row, which carries its column map and key description). Output bytes use decimal units
(``msg_size_kb`` = bytes / 1000), as the published monitor figures do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.perf.qrep.inputs import QrepInputs

PAGE_BYTES = 4096.0  # MQ buffer pool page
SEGMENT_BYTES = 32768.0  # channel transmission segment
SSL_SEGMENT_BYTES = 16384.0  # channel transmission segment with TLS
MQ_MESSAGE_OVERHEAD_BYTES = 512.0  # MQMD and page header stored with each message

#: Relative decode/bind cost of one column by type family (INTEGER = 1), before the per-byte
#: character cost. The seeds only say integer is cheapest and decimal and character dearer
#: (character adding code-page work); these weights are modelling assumptions, not fitted.
TYPE_WEIGHTS = {"int": 1.0, "datetime": 1.5, "float": 1.5, "decimal": 2.0, "char": 1.5}
#: Default extra weight per character byte (code-page processing); the engine uses the fitted
#: coefficient ``char_byte_weight`` (the column-count table of seed 000, 3.1, separates the
#: per-column from the per-byte cost).
CHAR_BYTE_WEIGHT = 0.05
#: Weight of a column whose type is not stated: the default schema's average.
UNSPECIFIED_WEIGHT = 1.75


@dataclass(frozen=True)
class Geometry:
    """Message layout of one flow (bytes decimal, counts per message).

    Attributes
    ----------
    column_weight : float
        Sum of the columns' relative decode weights (:data:`TYPE_WEIGHTS`).
    bytes_per_row : float
        Mean message bytes per row (headers included, message header excluded).
    txn_bytes : float
        Bytes of one source transaction in a message.
    txns_per_msg : float
        Source transactions per message (fractional when a transaction spans messages).
    rows_per_msg : float
        Rows per MQ message.
    msg_bytes : float
        Mean MQ message size.
    pages_per_msg : float
        4 KB buffer-pool pages per message (MAXSHORTMSGS -1: whole pages).
    segments_per_msg : int
        32 KB channel segments per message.
    rows_per_target_txn : float
        Rows Q Apply commits together (a message group times COMMIT_COUNT).
    msgs_per_target_txn : float
        Messages per target transaction.
    """

    column_weight: float
    bytes_per_row: float
    txn_bytes: float
    txns_per_msg: float
    rows_per_msg: float
    msg_bytes: float
    pages_per_msg: float
    segments_per_msg: int
    rows_per_target_txn: float
    msgs_per_target_txn: float

    @property
    def msg_kb(self) -> float:
        """Message size in KB (1000 bytes)."""
        return self.msg_bytes / 1000.0


def column_weight(inputs: QrepInputs, char_byte_weight: float = CHAR_BYTE_WEIGHT) -> float:
    """Sum over the table's columns of their relative decode weights.

    Parameters
    ----------
    inputs : QrepInputs
    char_byte_weight : float
        Extra weight per byte of a character column (relative to one INTEGER column).
    """
    total = 0.0
    for g in inputs.columns:
        if g.family == "unspecified":
            total += g.count * UNSPECIFIED_WEIGHT
        elif g.family == "char":
            total += g.count * (TYPE_WEIGHTS["char"] + char_byte_weight * g.bytes_each)
        else:
            total += g.count * TYPE_WEIGHTS[g.family]
    return total


def message_geometry(inputs: QrepInputs, c, txns_available: float = math.inf) -> Geometry:
    """Compute the message layout of a flow from its inputs and coefficients ``c``.

    Parameters
    ----------
    inputs : QrepInputs
    c : Coefficients
    txns_available : float
        Mean source transactions Q Capture's worker has at hand when it builds a message
        (:func:`engine.perf.qrep.latency.txns_per_pass`; at least 1, infinite when TRANS_BATCH_SZ
        groups are full).
    """
    n_cols = float(inputs.n_columns)
    h_row, h_col = c.row_header_bytes, c.column_header_bytes
    full_row = h_row + n_cols * h_col + inputs.row_bytes
    key = h_col + inputs.key_bytes
    suppress = inputs.changed_cols_only and inputs.conflict_action != "F"
    uix_before = max(inputs.unique_indexes, 1) * key
    if suppress:
        changed = inputs.columns_changed_per_update
        col_bytes = inputs.row_bytes / n_cols
        h_partial = c.partial_row_header_bytes
        update = h_partial + key + changed * (h_col + col_bytes) + uix_before
        delete = h_partial + max(inputs.unique_indexes, 1) * key
    else:
        update = full_row + uix_before
        delete = full_row
    bytes_per_row = inputs.insert_frac * full_row + inputs.update_frac * update + inputs.delete_frac * delete
    txn_bytes = c.txn_header_bytes + inputs.rows_per_txn * bytes_per_row

    limit = inputs.max_message_size_kb * 1024.0  # Q Capture splits at MAX_MESSAGE_SIZE, not MAXMSGL
    room = max(limit - c.msg_header_bytes, 1.0)
    if txn_bytes > room:  # one transaction spans several messages
        msgs_per_txn = math.ceil(txn_bytes / room)
        txns_per_msg = 1.0 / msgs_per_txn
    else:
        txns_per_msg = min(
            float(inputs.trans_batch_sz), max(1.0, room // txn_bytes), max(txns_available, 1.0)
        )
    rows_per_msg = txns_per_msg * inputs.rows_per_txn
    msg_bytes = c.msg_header_bytes + txns_per_msg * txn_bytes
    if msg_bytes > inputs.maxmsgl:
        raise ValueRangeError(
            "mq.maxmsgl",
            int(inputs.maxmsgl),
            f"at least the {math.ceil(msg_bytes):,}-byte messages Q Capture puts (MQ fails a larger put: "
            "MQRC_MSG_TOO_BIG_FOR_Q); lower MAX_MESSAGE_SIZE or TRANS_BATCH_SZ to send smaller ones",
        )

    stored = msg_bytes + MQ_MESSAGE_OVERHEAD_BYTES
    if inputs.maxshortmsgs == -1 or stored > PAGE_BYTES:
        pages = math.ceil(stored / PAGE_BYTES)
    else:
        pages = stored / PAGE_BYTES
    segment = SSL_SEGMENT_BYTES if inputs.ssl else SEGMENT_BYTES
    segments = max(1, math.ceil(msg_bytes / segment))

    msgs_per_group = 1.0 / txns_per_msg if txns_per_msg < 1.0 else 1.0
    msgs_per_target = msgs_per_group * inputs.commit_count
    rows_per_target = rows_per_msg * msgs_per_target
    return Geometry(
        column_weight=column_weight(inputs, c.char_byte_weight),
        bytes_per_row=bytes_per_row,
        txn_bytes=txn_bytes,
        txns_per_msg=txns_per_msg,
        rows_per_msg=rows_per_msg,
        msg_bytes=msg_bytes,
        pages_per_msg=float(pages),
        segments_per_msg=segments,
        rows_per_target_txn=rows_per_target,
        msgs_per_target_txn=msgs_per_target,
    )
