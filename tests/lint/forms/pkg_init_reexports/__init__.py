from .surface import *  # noqa: F401,F403
