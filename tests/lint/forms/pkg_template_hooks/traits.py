from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def with_window_trait(cls):
    """A class decorator wrapping __init__: the trait is decided once, on the class."""
    original = cls.__init__

    def __init__(self, model_runner, *args, **kwargs):
        original(self, model_runner, *args, **kwargs)
        cls.window_trait = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    cls.__init__ = __init__
    return cls


class StampingMeta(type):
    """A metaclass stamping each instance once it is built."""

    def __call__(cls, model_runner, *args, **kwargs):
        instance = super().__call__(model_runner, *args, **kwargs)
        instance.stamped = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")
        return instance


def registered_as(name):
    """A decorator factory: the decorator it returns wraps __init__ and sets a class mode."""

    def deco(cls):
        original = cls.__init__

        def __init__(self, model_runner, *args, **kwargs):
            original(self, model_runner, *args, **kwargs)
            cls.mode = 2 if isinstance(self.token_to_kv_pool, SWAKVPool) else 1

        cls.__init__ = __init__
        cls.mode = 1
        return cls

    return deco
