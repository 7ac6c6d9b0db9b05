"""Tables every backend of a worker shares, and their accessors."""
TRANSLATORS = {}
WINDOW_POOLS = {}
PAGE_SIZES = {}


def translator_for(name):
    return TRANSLATORS.get(name)


def window_pool_of(name, default=None):
    found = WINDOW_POOLS.get(name)
    return default if found is None else found


def page_size_of(name):
    return PAGE_SIZES.get(name, 1)
