"""Tables of geometry every backend of a worker shares, and their accessors."""
PAGE_SIZES = {}
TRANSLATORS = {}


def page_size_of(name):
    return PAGE_SIZES.get(name, 1)


def translator_for(name):
    return TRANSLATORS.get(name)
