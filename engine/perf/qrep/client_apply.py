"""Q Apply as an MQ client: a SVRCONN channel to a remote queue manager instead of bindings mode.

In bindings mode Q Apply's MQ calls are cross-memory calls to a queue manager on its own
server, fed by a sender-receiver channel. As a client (``qapply.mq_connection: client``) every
MQI call is a request over the network to the remote queue manager's SVRCONN channel and a
reply, so each one costs a round trip (``hardware.client_rtt_us``) plus the server's channel
instance CPU for the call (``svrconn_call_us`` reference us on the server's processors, more
when conversations share an instance: SHARECNV 1 or more, ``sharecnv_call_share``). There is
no queue manager, and so no log, on Q Apply's server. Modelled (assumptions in
``assets/coefficients/platforms.json``):

* **Browser** (one thread per receive queue): each browse MQGET waits for its round trip, so the
  thread's time per message is its own CPU plus the round trip and the server's call time. The
  stage ``mq_client`` is that thread: the client round trips limit it, and its M/M/1 time
  replaces the browser's in QLATENCY.
* **Agents**: each destructive MQGET of a message and each MQCMIT of a target transaction is a
  round trip: ``(messages + 1) * (round trip + call)`` more per target transaction, in
  APPLY_LATENCY and the agents' capacity.
* **Channel instances** (``mq_svrconn``): the browser's and the agents' conversations share
  ``ceil(conversations / SHARECNV)`` instances (one each with SHARECNV 0); each instance serves its
  calls one at a time, ``2 + 1 / messages per target transaction`` calls per message.

Small persistent messages therefore apply slower as a client than in bindings mode, and the gap
grows with the round-trip time.

**Reading the send queue** (``qapply.reads_send_queue: true``): the client connects to Q Capture's
own queue manager and gets from the send queue, so there is no channel and no receiving queue
manager (no channel stage, no second log, no receive queue); its MQGETs and SVRCONN calls run on
Q Capture's z/OS LPAR instead of Q Apply's server, and the sender channel's work disappears.
"""

from __future__ import annotations

import math

from engine.registry.platform_knobs import ZOS

#: Stage name -> bottleneck vocabulary of ../shared/validation/README.md (the SVRCONN channel).
STAGE_VOCABULARY = {"mq_svrconn": "mq_channel", "mq_client": "mq_channel"}


def call_ref_us(platform, k: dict) -> float:
    """Reference-CPU us of one client call on the SVRCONN channel instance (SHARECNV sharing included)."""
    sharing = 1.0 + (k["sharecnv_call_share"] if platform.sharecnv > 0 else 0.0)
    return k["svrconn_call_us"] * sharing


def calls_per_msg(geometry) -> float:
    """Client calls per message: a browse MQGET, a destructive MQGET and a share of the MQCMIT."""
    return 2.0 + 1.0 / geometry.msgs_per_target_txn


def server_call_us(flow, fp) -> float:
    """Channel-instance time (us) of one client call on the remote queue manager's processors.

    A z/OS queue manager runs at the solver's z/OS time factor; a distributed one is taken to have
    the cores of Q Apply's server (the project gives no other server's cores).
    """
    speed = 1.0 if fp.inputs.recv_qm.os == ZOS else fp.role_speed["A"]
    return call_ref_us(fp.inputs, fp.k) * flow.time_factor * speed


#: Stages a client reading the send queue does not have: the channel and the receiving queue manager's log.
NO_CHANNEL_STAGES = frozenset({"mq_channel", "apply_mq_log", "apply_mq_log_disk"})


def adjust(flow, fp) -> None:
    """Add the agents' round trips to their fixed time per target transaction (client mode only)."""
    if not fp.inputs.client:
        return
    fp.client_call_us = server_call_us(flow, fp)
    per_call_ms = (fp.inputs.client_rtt_us + fp.client_call_us) / 1000.0
    flow.agent_fixed_ms += (flow.geometry.msgs_per_target_txn + 1.0) * per_call_ms
    if fp.inputs.no_channel:
        _move_gets_to_capture_lpar(flow, fp)


def _move_gets_to_capture_lpar(flow, fp) -> None:
    """Charge the MQGETs and SVRCONN calls to Q Capture's LPAR (the send queue's queue manager), not
    Q Apply's server; take out the channels' work (reference-CPU us per row)."""
    d, rpm = flow.demands, flow.geometry.rows_per_msg
    gets = d.browse_get_cpu_us + d.get_cpu_us
    flow.apply_row_ref_us -= (gets + d.apply_mq_other_msg_us) / rpm
    svrconn = calls_per_msg(flow.geometry) * call_ref_us(fp.inputs, fp.k)
    sender = d.chinit_msg_us + d.channel_send_us
    flow.capture_fixed_row_ref_us += (gets + svrconn - sender) / rpm


def capacities(flow, fp, point) -> None:
    """Put the client stages (``mq_client``, ``mq_svrconn``) in ``point.caps`` (client mode only)."""
    p = fp.inputs
    if not p.client:
        return
    if p.no_channel:
        point.caps[:] = [cap for cap in point.caps if cap[0] not in NO_CHANNEL_STAGES]
    g = flow.geometry
    thread_us = point.browser_us + p.client_rtt_us + fp.client_call_us
    point.caps.append(("mq_client", g.rows_per_msg * 1e6 / thread_us, 1, thread_us / 1000.0))
    conversations = 1 + flow.agents
    instances = conversations if p.sharecnv == 0 else math.ceil(conversations / p.sharecnv)
    instance_us_per_msg = calls_per_msg(g) * fp.client_call_us
    point.caps.append(
        (
            "mq_svrconn",
            instances * g.rows_per_msg * 1e6 / instance_us_per_msg,
            instances,
            instance_us_per_msg / 1000.0,
        )
    )
