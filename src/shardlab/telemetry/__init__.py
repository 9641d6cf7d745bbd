"""Watching a run: probes (one file each in probes/) driven by one Sampler."""
