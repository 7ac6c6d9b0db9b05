"""A plan mixin shared by a stale and a live composition in another module: its gate is judged
as each class built on it (package-wide)."""
