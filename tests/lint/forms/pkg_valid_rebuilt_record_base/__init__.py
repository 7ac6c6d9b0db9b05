"""A base of one module builds the per-forward metadata anew each forward (through a local);
an heir of another module fills a field of it when missing: a fill of this for's record."""
