"""Every probe, one module each; adding a probe is adding a module here.

Each module defines `probe_for(context) -> Probe | None` (None when it does not apply to
this run) and is found by listing the package, so nothing else names the probes.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import cast

from shardlab.telemetry.probe import Probe, ProbeContext

ProbeFactory = Callable[[ProbeContext], Probe | None]


def probe_modules() -> list[ModuleType]:
    """The probe modules, in name order (private `_modules` are skipped)."""
    return [
        importlib.import_module(f"{__name__}.{module.name}")
        for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name)
        if not module.name.startswith("_")
    ]


def probe_factory(module: ModuleType) -> ProbeFactory:
    factory = getattr(module, "probe_for", None)
    if not callable(factory):
        raise TypeError(f"probe module {module.__name__} defines no probe_for(context)")
    return cast(ProbeFactory, factory)


def probes_for(context: ProbeContext) -> list[Probe]:
    """The probes that apply to the run described by `context`."""
    probes = []
    for module in probe_modules():
        probe = probe_factory(module)(context)
        if probe is not None:
            probes.append(probe)
    return probes
