"""Look-alikes: hooks that keep geometry, or register the class, and decide nothing of the pool."""
import functools

REGISTRY = {}


class LayoutRecorder:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        REGISTRY[cls.__name__] = cls
        original = cls.__init__

        @functools.wraps(original)
        def __init__(self, *args, **kw):
            original(self, *args, **kw)
            self.page_size = self.token_to_kv_pool.page_size

        cls.__init__ = __init__
