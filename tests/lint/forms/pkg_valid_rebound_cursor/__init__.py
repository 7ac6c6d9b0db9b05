"""A helper object built from a base's geometry (another module) and re-pointed at the live
pool every forward: nothing of a pool is kept by building it."""
