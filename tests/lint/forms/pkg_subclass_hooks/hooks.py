"""A mixin whose ``__init_subclass__`` wraps each heir's ``__init__``: the wrapper runs as the
heir's constructor, so what it keeps is kept by every heir."""
import functools

from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class LayoutRecorder:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        original = cls.__init__

        @functools.wraps(original)
        def __init__(self, *args, **kw):
            original(self, *args, **kw)
            self.split_spaces = isinstance(self.token_to_kv_pool, SWAKVPool)

        cls.__init__ = __init__
