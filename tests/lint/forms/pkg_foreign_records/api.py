from .layouts import Routes as KernelRoutes  # noqa: F401
from .layouts import WindowLayout  # noqa: F401
