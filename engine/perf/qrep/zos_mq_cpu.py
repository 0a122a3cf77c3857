"""z/OS CPU of MQ per message: the queue manager (MSTR and the MQ calls) and the channel initiator (CHIN).

The figures a z/OS capacity planner asks for first, in CP microseconds per message on the z/OS
processors of the project (``hardware.cpu_model``, with the LPAR's multiprocessor loss), from the
demands the solver charges:

* **Sending queue manager on z/OS**: Q Capture's MQPUT with its buffer-pool and log work and its
  share of the MQCMIT (queue manager); the sender channel's work and any TLS or compression
  (channel initiator).
* **Receiving queue manager on z/OS, Q Apply in bindings mode**: the browse and destructive MQGETs
  with their buffer-pool and log work (queue manager); the receiver channel (channel initiator).
* **Receiving queue manager on z/OS, Q Apply a client**: the same MQGETs, run for the client
  (queue manager), and the SVRCONN channel instance's work for each call, a browse, a get and a
  share of the commit (:func:`engine.perf.qrep.client_apply.calls_per_msg`; channel initiator).
  A client reading the send queue (``qapply.reads_send_queue``) is served by Q Capture's queue
  manager on Q Capture's LPAR, and there is no sender or receiver channel.
* A queue manager on Linux/UNIX/Windows costs z/OS nothing: its work is on its own server.

``zos_mq_cpu_us_per_msg`` is the sum. Units: us/msg.
"""

from __future__ import annotations

from engine.perf.qrep import client_apply
from engine.perf.qrep.platforms import assumptions

UNITS = {
    "zos_qmgr_cpu_us_per_msg": "us/msg",
    "zos_chinit_cpu_us_per_msg": "us/msg",
    "zos_mq_cpu_us_per_msg": "us/msg",
}


def _zos_cp_factor(sol, role: str, mp_loss: float) -> float:
    """Reference-CPU us -> CP us on the z/OS LPAR hosting ``role`` (multiprocessor loss included).

    An LPAR the solution does not model (Q Capture's while a drain runs without capture, where a
    client reading the send queue still gets its messages) costs one CP's time, no loss.
    """
    lpar = next((lp for lp in sol.lpars if role in lp.roles), None)
    if lpar is None:
        return sol.time_factor
    return sol.time_factor * (1.0 + mp_loss * (lpar.cps - 1))


def _sending(sol, mp_loss: float) -> tuple[float, float]:
    d, f = sol.demands, _zos_cp_factor(sol, "C", mp_loss)
    sender = d.chinit_msg_us + d.channel_send_us
    qmgr = d.put_cpu_us + d.commit_cpu_us / sol.msgs_per_commit + d.capture_mq_other_msg_us - sender
    chinit = 0.0 if sol.inputs.platform.no_channel else sender
    return qmgr * f, chinit * f


def _receiving_factor(sol, mp_loss: float) -> float:
    """Reference-CPU us -> CP us where Q Apply's MQGETs run."""
    p = sol.inputs.platform
    if p.no_channel:
        return _zos_cp_factor(sol, "C", mp_loss)  # the send queue's queue manager, on Q Capture's LPAR
    if p.client:
        return sol.time_factor  # the remote queue manager's LPAR is not one of the flow's
    return _zos_cp_factor(sol, "A", mp_loss)


def _receiving(sol, mp_loss: float) -> tuple[float, float]:
    d, p = sol.demands, sol.inputs.platform
    receiver = 0.0 if p.no_channel else d.apply_channel_msg_us
    qmgr = d.browse_get_cpu_us + d.get_cpu_us
    if not p.no_channel:
        qmgr += d.apply_mq_other_msg_us - receiver  # the receiving queue manager's buffer pool and log
    svrconn = 0.0
    if p.client:
        svrconn = client_apply.calls_per_msg(sol.geometry) * client_apply.call_ref_us(p, assumptions())
    f = _receiving_factor(sol, mp_loss)
    return qmgr * f, (receiver + svrconn) * f


def metrics(sol, coefficients) -> dict:
    """``zos_qmgr_cpu_us_per_msg``, ``zos_chinit_cpu_us_per_msg`` and their sum for a solved flow.

    Parameters
    ----------
    sol : Solution
        A steady-state solution (:func:`engine.perf.qrep.pipeline.solve`).
    coefficients : Coefficients
        The coefficients the solution was solved with (their multiprocessor loss per extra CP).
    """
    mp_loss = coefficients.mp_loss
    p = sol.inputs.platform
    qmgr = chinit = 0.0
    if not p.send_qm.distributed and sol.inputs.mode != "drain":
        q, ch = _sending(sol, mp_loss)
        qmgr, chinit = qmgr + q, chinit + ch
    if not p.served_by.distributed:
        q, ch = _receiving(sol, mp_loss)
        qmgr, chinit = qmgr + q, chinit + ch
    return {
        "zos_qmgr_cpu_us_per_msg": qmgr,
        "zos_chinit_cpu_us_per_msg": chinit,
        "zos_mq_cpu_us_per_msg": qmgr + chinit,
    }
