"""A metaclass's ``__call__`` runs once per construction, after ``__init__``: what it stores on
the instance it built (``super().__call__``, ``type.__call__``, ``cls.__new__``) is kept, for
the classes built with it and their subclasses. Geometry and the swap point are not state."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class _FlagMeta(type):
    def __call__(cls, model_runner, *args, **kwargs):
        backend = type.__call__(cls, model_runner, *args, **kwargs)
        backend.windowed = isinstance(model_runner.token_to_kv_pool, SWAKVPool)  # expect: KVP002
        backend.page_size = model_runner.page_size
        return backend


class _NewMeta(type):
    def __call__(cls, model_runner):
        obj = cls.__new__(cls)
        obj.__init__(model_runner)
        obj.rows = model_runner.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001
        return obj


class _RegistryMeta(type):
    built = []

    def __call__(cls, *args, **kwargs):
        _RegistryMeta.built.append(cls.__name__)
        return super().__call__(*args, **kwargs)


class MetaFlagAttnBackend(AttentionBackend, metaclass=_FlagMeta):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if self.page_size > 1:
            forward_batch.paged = True


class MetaFlagDecodeAttnBackend(MetaFlagAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:  # expect: KVP003
            forward_batch.swa = True
        return q


class MetaRowsAttnBackend(AttentionBackend, metaclass=_NewMeta):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        forward_batch.loc = self.rows[forward_batch.out_cache_loc] if self.rows is not None else None  # expect: KVP003


class MetaRegisteredAttnBackend(AttentionBackend, metaclass=_RegistryMeta):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if isinstance(self.token_to_kv_pool, SWAKVPool):
            forward_batch.swa = True
