"""Reports are pure functions of stored runs; the live display is one more reader of the
same interval records."""
