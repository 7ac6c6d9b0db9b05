def registered(cls):
    """A class decorator wrapping __init__ that keeps only geometry."""
    original = cls.__init__

    def __init__(self, model_runner, *args, **kwargs):
        original(self, model_runner, *args, **kwargs)
        self.page_size = model_runner.page_size

    cls.__init__ = __init__
    return cls


class CountingMeta(type):
    def __call__(cls, *args, **kwargs):
        instance = super().__call__(*args, **kwargs)
        instance.built_count = 1
        return instance


def registered_as(name):
    def deco(cls):
        original = cls.__init__

        def __init__(self, model_runner, *args, **kwargs):
            original(self, model_runner, *args, **kwargs)
            cls.registered_name = name

        cls.__init__ = __init__
        return cls

    return deco
