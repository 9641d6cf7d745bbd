"""Pure computation over measured records: no I/O, tested with hand-computed values."""
