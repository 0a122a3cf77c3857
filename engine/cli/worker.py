"""``qrtune worker SCHEDULER [--nworkers N] [DASK WORKER OPTIONS]``: this machine's cores for a Dask cluster.

Starts ``dask worker SCHEDULER --nworkers N --nthreads 1`` in this process, with the allocator
setting that keeps simulations on Dask as fast as on a local pool (glibc's
``MALLOC_MMAP_THRESHOLD_``, set by each nanny before its worker starts; see
:mod:`engine.studies.cluster`). Options after the scheduler go to ``dask worker`` as they are,
for example ``--host 10.0.0.7`` (the interface to listen on) or TLS:
``--tls-ca-file ca.pem --tls-cert worker.pem --tls-key worker.key`` with a ``tls://`` scheduler.
Runs until Ctrl-C. Needs the ``dask`` extra (``pip install 'qrtune[dask]'``).
"""

from __future__ import annotations

import argparse

from engine.cli import argtypes


def register(sub) -> None:
    p = sub.add_parser(
        "worker", help="run Dask workers for qrtune sweeps on this machine", description=__doc__
    )
    p.add_argument(
        "scheduler",
        type=argtypes.scheduler_address,
        metavar="SCHEDULER",
        help="tcp://HOST:PORT or tls://HOST:PORT",
    )
    argtypes.add_integer(
        p, "--nworkers", "worker processes (one thread each)", minimum=1, maximum=1024, default=1
    )
    p.add_argument("options", nargs=argparse.REMAINDER, metavar="...", help="further dask worker options")
    p.set_defaults(func=run)


def run(args) -> int:
    from engine.studies.cluster import run_worker

    return run_worker(args.scheduler, args.nworkers, list(args.options))
