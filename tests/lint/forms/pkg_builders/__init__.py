"""Builders: functions outside any backend class that keep pool state on a backend they built
(registry creators) or were handed, in a module of their own; the backends' gates on what
they keep, and the look-alikes (geometry, the resolver's result, per-forward code, builders
that only build)."""
