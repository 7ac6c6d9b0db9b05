"""Pool helpers re-exported with star-imports, one of them chosen by a conditional import."""
from ._pool_tools import *  # noqa: F401,F403
from .compat import *  # noqa: F401,F403
