from . import backend  # noqa: F401  (registers the backend)
from .registry import get_backend_cls

__all__ = ["get_backend_cls"]
