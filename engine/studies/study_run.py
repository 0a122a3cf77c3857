"""Running a simulation study (:mod:`engine.studies.study`) into the store, locally or on a Dask cluster.

The study is registered as a sweep (``sweeps``; its ``axes_json`` holds the whole plan); each run
is recorded as it finishes, so running the same study again resumes it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.model import Project
from engine.progress import Progress
from engine.studies.cluster import dask_executor
from engine.studies.study import StudyPlan, distribution, run_study_points, study_key
from engine.studies.sweep import run_batches

STUDY_BATCH = 2
"""Runs per task: a 10-minute simulation takes about 1.5 s, so small tasks keep every worker busy."""


@dataclass(frozen=True)
class StudyResult:
    """What a study did and what it found.

    Attributes
    ----------
    sweep_id : int
        The study's id in the store (``qrtune runs --sweep ID``, ``qrtune export --sweep ID``).
    n_runs, n_skipped, n_run, n_failed : int
        Runs in the study, already recorded before, run now, failed now.
    elapsed_s : float
        Wall time, s.
    distribution : list of dict
        :func:`engine.studies.study.distribution` of every recorded run.
    """

    sweep_id: int
    n_runs: int
    n_skipped: int
    n_run: int
    n_failed: int
    elapsed_s: float
    distribution: list


class _Recorder:
    """Writes each finished batch of runs into the store as ``simulate`` runs of the study."""

    def __init__(self, store, project: Project, digest: str, plan: StudyPlan, sweep_id: int, bar: Progress):
        self.store, self.project, self.digest, self.plan, self.sweep_id, self.bar = (
            store,
            project,
            digest,
            plan,
            sweep_id,
            bar,
        )
        self.n_failed = 0

    def add(self, results: list) -> None:
        from engine.sim.bundle import bundle_simulation
        from engine.store.bundles import bundle_failed

        bundles = []
        for index, settings, summary, error in results:
            common = {
                "project_name": self.project.name,
                "project_hash_": self.digest,
                "settings": settings,
                "label": self.plan.label(index),
                "sweep_id": self.sweep_id,
                "point_index": index,
            }
            if summary is None:
                self.n_failed += 1
                bundles.append(
                    bundle_failed(error=error, kind="simulate", seed=self.plan.point(index)[2], **common)
                )
            else:  # a study keeps its many runs' summaries and stages, not their time series
                bundles.append(bundle_simulation(summary=summary, **common))
        self.store.record_runs(bundles)
        self.bar.update(len(results))


def recorded_metrics(store, sweep_id: int) -> dict[int, dict]:
    """Run index -> metric values of the study's runs that finished (``ok``)."""
    runs = [r for r in store.list_runs(sweep_id=sweep_id) if r.status == "ok"]
    values = store.metrics_of([r.id for r in runs])
    return {r.point_index: {name: v for name, (v, _) in values[r.id].items()} for r in runs}


def run_study(
    project: Project,
    plan: StudyPlan,
    store,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    executor=None,
) -> StudyResult:
    """Run every run of ``plan`` not yet recorded, record each, and summarise the study.

    Parameters
    ----------
    workers : int, optional
        Local worker processes (default: CPU count; 0: in this process).
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler to run on instead.
    executor : concurrent.futures.Executor, optional
        Run on this executor instead (tests, benchmarks).

    Raises
    ------
    QrtuneError
        The Dask cluster cannot be used (see :func:`engine.studies.cluster.dask_executor`).
    """
    from engine.sim import SIM_VERSION
    from engine.store import engine_version, project_hash

    t0 = time.perf_counter()
    digest = project_hash(project)
    key = study_key(digest, plan, f"{engine_version()} {SIM_VERSION}")
    sweep_id = store.sweep_by_key(key) or store.create_sweep(key, project, plan.as_data(), plan.n_runs)
    done = store.done_points(sweep_id)
    todo = [i for i in range(plan.n_runs) if i not in done]
    bar = Progress(plan.n_runs, len(done), enabled=progress, label="study")
    recorder = _Recorder(store, project, digest, plan, sweep_id, bar)
    client = None
    try:
        if scheduler and executor is None:
            client, executor = dask_executor(scheduler)
        if workers == 0 and executor is None:
            for k in range(0, len(todo), STUDY_BATCH):
                recorder.add(run_study_points(project, plan, todo[k : k + STUDY_BATCH]))
        elif todo:
            run_batches(
                run_study_points,
                lambda batch: (project, plan, batch),
                todo,
                recorder.add,
                workers=workers,
                client=client,
                batch_size=batch_size or STUDY_BATCH,
                executor=executor,
            )
    finally:
        bar.close()
        if client is not None:
            client.close()
    found = distribution(plan, recorded_metrics(store, sweep_id))
    return StudyResult(
        sweep_id, plan.n_runs, len(done), len(todo), recorder.n_failed, time.perf_counter() - t0, found
    )
