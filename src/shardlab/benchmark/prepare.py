"""Before the load: compile the engine, record the environment, (re)create the index.

The engine is compiled first: a plan the engine refuses must not cost the user their index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shardlab import __version__, _engine
from shardlab.cluster.client import ClusterClient
from shardlab.driver import BUILD_PROFILE, check_in_flight_memory, compile_engine, engine_spec
from shardlab.environment import cluster_environment, host_environment, host_memory_bytes
from shardlab.plan import LoadPlan, Target
from shardlab.workloads.base import Workload
from shardlab.workloads.index import recreate_index


@dataclass(frozen=True)
class Prepared:
    engine: _engine.Engine
    engine_spec: dict[str, Any]  # as compiled, credentials left out: stored with the run
    environment: dict[str, Any]


def redacted(spec: dict[str, Any]) -> dict[str, Any]:
    """The engine spec without secrets: header values other than the harmless ones."""
    headers = [
        [name, value if name.lower() != "authorization" else "(hidden)"]
        for name, value in spec.get("headers", [])
    ]
    return spec | {"headers": headers}


def prepare(
    plan: LoadPlan, target: Target, workload: Workload, client: ClusterClient, force: bool
) -> Prepared:
    spec = engine_spec(plan, target, workload)
    engine = compile_engine(spec)
    memory_bytes = host_memory_bytes()
    check_in_flight_memory(plan.clients, engine.estimated_bulk_bytes, memory_bytes)
    environment = host_environment(BUILD_PROFILE) | {"cluster": cluster_environment(client)}
    recreate_index(client, plan.index, workload.index_body(plan.index_settings, __version__), force)
    return Prepared(engine, redacted(spec), environment)
