"""Module-level pool helpers, one a resolver (clean) and one not, imported under other names."""
