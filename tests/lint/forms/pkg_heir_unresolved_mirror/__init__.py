"""Its twin: the base keeps the pool of the moment under the resolved name (no allocator asked),
so the heir's mirror of it, and its gates, are stale."""
