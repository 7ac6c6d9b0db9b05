"""What the package exports: the probes, re-exported from their private module."""
from ._pool_probe import *  # noqa: F401,F403
