"""A simulation as a run to store: its settings, label, metrics, stages and time series.

``qrtune simulate --db``, the window's Simulation tab and simulation studies all record their
runs through :func:`simulation_bundle` (or :func:`bundle_simulation` when only the summary
travels back from a worker), with settings from :func:`simulation_settings` and the label of
:func:`simulation_label`, so one simulation gives the same rows whoever runs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.perf.result import StageResult
from engine.sim.result import flat_metrics
from engine.store.bundles import RunBundle, metric_rows, project_identity, run_record, stage_rows


def simulation_settings(
    scenario: Mapping,
    *,
    duration_s: float,
    seed: int | None,
    events: Iterable[str] = (),
    changes: Iterable[str] = (),
    profile: Mapping | None = None,
) -> dict:
    """The settings a simulation ran on: the project's scenario plus its ``simulation`` options.

    Parameters
    ----------
    scenario : Mapping
        ``project_to_scenario(project)`` ({} when that failed).
    duration_s : float
        Simulated time, s.
    seed : int or None
        The generator seed.
    events : iterable of str
        The outages as typed (``channel-stop@2m+20m``).
    changes : iterable of str
        ``--set TARGET.PARAM=VALUE`` what-ifs applied to the project file (the window has none:
        its project is already edited).
    profile : Mapping, optional
        The workload profile the run used (``summary["profile"]``), or the one asked for when
        the run failed; None when there is neither.
    """
    return {
        **scenario,
        "simulation": {
            "duration_s": float(duration_s),
            "seed": seed,
            "events": list(events),
            "changes": list(changes),
            "profile": None if profile is None else dict(profile),
        },
    }


def simulation_label(duration_s: float, seed: int | None, events: Iterable[str] = (), note: str = "") -> str:
    """What a run list shows for a simulation: ``120 s seed 1 channel-stop@30s+20s, TRANS_BATCH_SZ=3``.

    ``note`` says what was changed (the CLI's ``--set`` items, the window's settings changed since
    saving); "" for none.
    """
    events = list(events)
    return (
        f"{duration_s:g} s seed {seed}"
        + (" " + " ".join(events) if events else "")
        + (f", {note}" if note else "")
    )


def simulation_stages(summary: Mapping) -> list[StageResult]:
    """The stages of a simulation summary with their capacity (rows/s) and the utilisation simulated.

    A stage of Q Apply's group takes the group's utilisation (``apply``); a Db2 Mirror summary has
    no stages.
    """
    util = summary.get("utilisation") or {}
    return [
        StageResult(
            st["name"],
            st["capacity_rows_per_s"],
            util.get("apply" if st["group"] == "apply" else st["name"], 0.0),
            "rows/s",
        )
        for st in summary.get("stages") or ()
    ]


def bundle_simulation(
    *, summary: Mapping, settings: Mapping, timeseries: Mapping | None = None, **run
) -> RunBundle:
    """A :class:`RunBundle` of a finished simulation (kind ``simulate``) from its summary.

    Parameters
    ----------
    summary : Mapping
        :attr:`engine.sim.result.SimResult.summary`: its flat metrics
        (:func:`engine.sim.result.flat_metrics`), stages, seed and coefficients version are stored.
    settings : Mapping
        :func:`simulation_settings`.
    timeseries : Mapping, optional
        :attr:`~engine.sim.result.SimResult.timeseries` (``t_s`` and one array per series); None
        keeps none (a study's many runs keep their summaries only).
    **run
        What identifies the run, as for :func:`engine.store.bundles.run_record` (``project_name``,
        ``project_hash_``, ``label``, ``sweep_id``, ``point_index``).
    """
    metrics, units = flat_metrics(summary)
    series = {}
    if timeseries:
        t_s = timeseries["t_s"]
        series = {name: (t_s, values) for name, values in timeseries.items() if name != "t_s"}
    record = run_record(
        settings=settings,
        kind="simulate",
        seed=settings.get("simulation", {}).get("seed"),
        coefficients_version=str(summary.get("coefficients_version") or ""),
        scenario_kind=str(settings.get("kind", "")),
        **run,
    )
    return RunBundle(record, metric_rows(metrics, units), stage_rows(simulation_stages(summary)), series)


def simulation_bundle(project, result, *, settings: Mapping, label: str) -> RunBundle:
    """The :class:`RunBundle` of simulation ``result`` (:class:`engine.sim.result.SimResult`) of ``project``,
    with its summary, stages and every time series."""
    return bundle_simulation(
        summary=result.summary,
        settings=settings,
        timeseries=result.timeseries,
        label=label,
        **project_identity(project),
    )
