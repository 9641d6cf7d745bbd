"""The shape every workload has: an index definition and a generator the engine compiles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shardlab.errors import UsageError
from shardlab.plan import IndexSettings

OWNER_META = {"created_by": "shardlab"}  # put in the index _meta: marks indexes shardlab may drop


@dataclass(frozen=True)
class Workload:
    name: str
    default_index: str
    variants: tuple[str, ...]
    properties: dict[str, Any]  # the mapping's properties
    summary: str

    def check_variant(self, variant: str) -> str:
        if variant not in self.variants:
            raise UsageError(
                "--variant",
                variant,
                f"is not a {self.name} variant",
                f"use {' or '.join(self.variants)}",
            )
        return variant

    def index_body(self, settings: IndexSettings, shardlab_version: str) -> dict[str, Any]:
        """The create-index request body, carrying shardlab's ownership mark in `_meta`."""
        return {
            "settings": {
                "index": {
                    "number_of_shards": settings.shards,
                    "number_of_replicas": settings.replicas,
                    "refresh_interval": settings.refresh_interval,
                }
            },
            "mappings": {
                "_meta": {
                    **OWNER_META,
                    "workload": self.name,
                    "shardlab_version": shardlab_version,
                },
                "dynamic": "strict",
                "properties": self.properties,
            },
        }

    def generator_spec(self, variant: str, seed: int) -> dict[str, Any]:
        """What the native engine needs to generate this workload's documents."""
        return {"kind": self.name, "variant": self.check_variant(variant), "seed": seed}
