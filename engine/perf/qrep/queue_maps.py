"""Several replication queue maps: the tables spread over ``qcapture.queue_maps`` maps.

Each queue map (REPLQMAP) has its own send queue, channel, receive queue and Q Apply browser
with its own NUM_APPLY_AGENTS agents; Q Capture (one log reader and worker), the queue
managers' logs, the LPARs' CPUs and the CF are shared. With ``qcapture.num_parallel_sendqs``
a map's messages travel over several send queues and channels into its one receive queue.

The tables are spread evenly (each map carries ``1/N`` of the rows; the seed (001) warns
that no transaction may span maps, so a real split follows the applications). A per-map
stage is reported once per map (``qapply_browser_map2``...) with its capacity expressed in
rows/s *of the whole flow* (the map's own capacity over its share), so every stage's
utilisation is the flow's rate over its capacity and the busiest stage limits the flow.
All the maps' agents share the target Db2: a busy agent's time grows with the busy agents
of every map (``agent_latch_share``), so adding maps lifts a browser-bound flow until the
shared CPU, log, Db2 or Q Capture saturates.
"""

from __future__ import annotations

import copy
import re

#: Stages every queue map has its own of.
PER_MAP_STAGES = ("mq_channel", "qapply_browser", "qapply_agents")
_MAP_SUFFIX = re.compile(r"_map\d+$")


def base_name(stage_name: str) -> str:
    """The stage name without its queue-map suffix (``qapply_browser_map2`` -> ``qapply_browser``)."""
    return _MAP_SUFFIX.sub("", stage_name)


def map_index(stage_name: str) -> int:
    """The queue map a stage belongs to (0 for a shared stage or a single map)."""
    m = re.search(r"_map(\d+)$", stage_name)
    return int(m.group(1)) if m else 0


def total_parallelism(parallelism_per_map: float, inp) -> float:
    """Agents working in parallel across every queue map."""
    return parallelism_per_map * inp.topo.queue_maps


def split(caps: list, inp) -> list:
    """Stage capacities with the per-map stages repeated for each queue map.

    Parameters
    ----------
    caps : list of (name, capacity rows/s, servers, service ms)
        The stages of one map carrying the whole flow (capacities of one map's resources).
    inp : QrepInputs

    Returns
    -------
    list
        Shared stages unchanged; each per-map stage once per map, its capacity over the map's
        share of the rows (flow rows/s); a map's channel capacity times its parallel send queues.
    """
    maps, sendqs = inp.topo.queue_maps, inp.topo.parallel_sendqs
    out = []
    for name, cap, servers, service_ms in caps:
        if name == "mq_channel":
            cap *= sendqs
        if name not in PER_MAP_STAGES or maps == 1:
            out.append((name, cap, servers, service_ms))
            continue
        out.extend((f"{name}_map{i}", cap * maps, servers, service_ms) for i in range(1, maps + 1))
    return out


def one_map_view(stages_by_name: dict, point, inp) -> tuple[dict, object]:
    """The stages and operating point as one queue map sees them (for its latencies).

    The per-map stages of map 1 under their base names, capacities of the map alone (same
    utilisation); Q Capture's MQ commit spread over the maps' send queues.
    """
    maps = inp.topo.queue_maps
    if maps == 1:
        return stages_by_name, point
    view = dict(stages_by_name)
    for name in PER_MAP_STAGES:
        st = stages_by_name.get(f"{name}_map1")
        if st is None:  # a drain has no channel
            continue
        view[name] = type(st)(
            name,
            st.capacity_rows_per_s / maps,
            st.capacity_msgs_per_s / maps,
            st.utilisation,
            st.servers,
            st.service_ms,
            st.latency_ms,
            st.fixed_delay_ms,
        )
    map_point = copy.copy(point)
    map_point.mpc = max(point.mpc / maps, 1.0)
    return view, map_point
