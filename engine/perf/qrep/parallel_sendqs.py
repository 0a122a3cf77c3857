"""Parallel send queues of one queue map: out-of-order arrival at the receive queue, its cost at Q Apply.

With NUM_PARALLEL_SENDQS ``S`` > 1 Q Capture spreads a queue map's messages over ``S`` send queues
and channels, which deliver into the map's one receive queue independently, a channel batch at a
time. Q Apply processes the messages in the order Q Capture sent them; the receive queue holds
them interleaved by batch, so the next one in sequence is often not at the head and the browser
looks past messages of the other channels' batches (browsing deeper into the queue) to find it,
holding those for later.

Messages passed per message (:func:`msgs_passed_per_msg`): consecutive messages go to different
send queues, so the next message is out of order with probability ``(S - 1) / S``, and then sits,
on average, behind half the messages of the other ``S - 1`` channels' batches of ``b`` messages
(``b``: one send queue's channel batch at the operating point, BATCHSZ or its share of one MQ
commit's messages): ``(S - 1)^2 b / (2 S)``, 0 with one send queue.

Each message passed costs the browser ``ooo_browse_share`` browse MQGETs
(``assets/coefficients/topologies.json``; a documented prior of a tenth of a browse per message
passed, the look-up among the messages held and the repositioning of the browse cursor; neither
the seeds nor the MQ component data measure parallel send queues, so no data pins it). Two send
queues therefore lift a channel-bound map by less than x2 once the browser's extra work shows, and
lower a browser-bound one. A message out of order also waits for its predecessors on the other send
queues' batches (:func:`gap_wait_ms`, part of QLATENCY). The browser's extra work is CPU of Q
Apply's LPAR like its other work (:func:`browse_ref_us_per_row`): it lengthens the browser's time
per message and is charged to the LPAR's busy share and to Q Apply's CPU per row.
"""

from __future__ import annotations

#: Metrics a flow with parallel send queues adds, with their units.
UNITS = {"ooo_msgs_passed_per_msg": "messages", "ooo_browse_us_per_msg": "us", "ooo_gap_wait_ms": "ms"}


def msgs_passed_per_msg(sendqs: int, batch_msgs: float) -> float:
    """Messages the browser passes, on average, to find the next message in sequence.

    Parameters
    ----------
    sendqs : int
        Send queues (and channels) of the queue map (NUM_PARALLEL_SENDQS).
    batch_msgs : float
        Messages of one send queue's channel batch (at least 1).
    """
    if sendqs <= 1:
        return 0.0
    s = float(sendqs)
    return (s - 1.0) ** 2 * max(batch_msgs, 1.0) / (2.0 * s)


def batch_msgs_per_sendq(flow, msgs_per_commit_per_map: float) -> float:
    """One send queue's channel batch: BATCHSZ, or its share of one MQ commit's messages to the map."""
    per_queue = msgs_per_commit_per_map / max(flow.inp.topo.parallel_sendqs, 1)
    return min(float(flow.inp.batchsz), max(per_queue, 1.0))


def browse_ref_us_per_row(flow, mpc: float) -> float:
    """The browser's extra reference CPU per row for out-of-order arrival, us (0 with one send queue):
    ``ooo_browse_share`` browse MQGETs per message passed, over the rows of a message.

    Parameters
    ----------
    flow : _Flow
        The flow (its inputs, demands, geometry and topology coefficients).
    mpc : float
        Messages per MQ commit over every queue map at the operating point.
    """
    if flow.inp.topo.parallel_sendqs <= 1:
        return 0.0
    per_map = mpc / flow.inp.topo.queue_maps
    passed = msgs_passed_per_msg(flow.inp.topo.parallel_sendqs, batch_msgs_per_sendq(flow, per_map))
    return flow.k.ooo_browse_share * passed * flow.demands.browse_get_cpu_us / flow.geometry.rows_per_msg


def browse_us_per_msg(flow, point, time_factor: float, inflation: float) -> float:
    """The browser's extra time per message for out-of-order arrival, us (0 with one send queue):
    :func:`browse_ref_us_per_row` of a message at Q Apply's LPAR's speed and contention.

    Parameters
    ----------
    flow : _Flow
        The flow (its inputs, demands and topology coefficients).
    point : _Point
        The operating point (its messages per MQ commit over every queue map, ``mpc``).
    time_factor, inflation : float
        Reference-CPU to elapsed factors of Q Apply's LPAR (CPU model, CPU contention).
    """
    ref_us = browse_ref_us_per_row(flow, point.mpc) * flow.geometry.rows_per_msg
    return ref_us * time_factor * inflation


def gap_wait_ms(flow, stages: dict, point) -> float:
    """Mean wait (ms) of a message for the ones before it that travel on other send queues.

    A message out of order (share ``(S - 1) / S``) waits, on average, half a channel batch of the
    other send queue carrying its predecessor: ``b`` messages at the channel's time per message
    plus the batch's end (syncpoint and confirmation). Part of QLATENCY; 0 with one send queue,
    in a drain and without a channel. ``point`` is one queue map's view of the operating point
    (:func:`engine.perf.qrep.queue_maps.one_map_view`), ``stages`` its stages by name.
    """
    sendqs = flow.inp.topo.parallel_sendqs
    if sendqs <= 1 or flow.drain or "mq_channel" not in stages:
        return 0.0
    batch_us = batch_msgs_per_sendq(flow, point.mpc) * point.channel_us + flow.batch_end_us
    return (sendqs - 1.0) / sendqs * 0.5 * batch_us / 1000.0


def metrics(flow, point, time_factor: float, inflation: float, map_view: tuple) -> dict:
    """``ooo_msgs_passed_per_msg``, ``ooo_browse_us_per_msg`` and ``ooo_gap_wait_ms`` of a map with
    parallel send queues (none with one); ``map_view``: one map's ``(stages by name, point)``."""
    if flow.inp.topo.parallel_sendqs <= 1:
        return {}
    per_map = point.mpc / flow.inp.topo.queue_maps
    return {
        "ooo_msgs_passed_per_msg": msgs_passed_per_msg(
            flow.inp.topo.parallel_sendqs, batch_msgs_per_sendq(flow, per_map)
        ),
        "ooo_browse_us_per_msg": browse_us_per_msg(flow, point, time_factor, inflation),
        "ooo_gap_wait_ms": gap_wait_ms(flow, *map_view),
    }
