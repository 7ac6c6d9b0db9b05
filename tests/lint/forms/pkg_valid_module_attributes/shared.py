"""State every backend of a worker shares, set by attribute on this module."""
SWA_ACTIVE = False
WINDOWS = {}
DTYPES = {}
