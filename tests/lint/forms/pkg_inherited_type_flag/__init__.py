"""Stale twin of pkg_valid_inherited_mirror: the base's flag is a type test of the runner's
pool (flashinfer 0.5.13:173), so the heir's gates disagree with its resolved pool (#27737)."""
