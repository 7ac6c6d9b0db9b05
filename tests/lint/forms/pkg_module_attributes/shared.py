"""State every backend of a worker shares, set by attribute on this module."""
SWA_ACTIVE = False
SUB_POOLS = {}
WINDOWS = {}


def sub_pool_of(layer_id):
    return SUB_POOLS.get(layer_id)
