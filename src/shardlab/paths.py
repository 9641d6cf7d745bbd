"""Where shardlab keeps its files.

`SHARDLAB_HOME` moves everything (store, labs, unpacked distributions); downloads are
cached apart under `SHARDLAB_CACHE` so that test runs with a throwaway home share them.
As root the default home is /var/lib/shardlab, not /root/..., because the cluster's JVM
runs as an unprivileged account that cannot enter /root (mode 700 on Debian).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def home_dir() -> Path:
    if env := os.environ.get("SHARDLAB_HOME"):
        return Path(env).expanduser().resolve()
    if os.geteuid() == 0:
        return Path("/var/lib/shardlab")
    return Path(platformdirs.user_data_dir("shardlab"))


def cache_dir() -> Path:
    if env := os.environ.get("SHARDLAB_CACHE"):
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_cache_dir("shardlab"))


def default_store_path() -> Path:
    return home_dir() / "runs.sqlite"


def labs_dir() -> Path:
    return home_dir() / "labs"


def distributions_dir() -> Path:
    return home_dir() / "distributions"
