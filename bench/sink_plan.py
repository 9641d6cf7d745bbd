"""The engine compiled from a shardlab LoadPlan aimed at a NullSink, so the benches measure
exactly what `shardlab run systembase` sends (same spec, same defaults)."""

from __future__ import annotations

from shardlab import _engine
from shardlab.driver import compile_engine, engine_spec
from shardlab.plan import IndexSettings, LoadPlan, StopCondition, Target
from shardlab.workloads import SYSTEMBASE


def sink_engine(
    port: int,
    variant: str,
    clients: int,
    docs: int | None = None,
    duration_s: float | None = None,
    seed: int = 42,
) -> _engine.Engine:
    plan = LoadPlan(
        workload=SYSTEMBASE.name,
        variant=variant,
        index=SYSTEMBASE.default_index,
        index_settings=IndexSettings(shards=1, replicas=0, refresh_interval="30s"),
        clients=clients,
        stop=StopCondition(duration_s=duration_s, docs=docs),
        seed=seed,
    )
    target = Target(urls=(f"http://127.0.0.1:{port}",), kind="remote")
    return compile_engine(engine_spec(plan, target, SYSTEMBASE))
