"""Stores through the instance's namespace (``vars(self).update``, ``self.__dict__.update``:
keywords, a dict display, ``dict(...)``, a local dict, ``**``) and through a name built at
run time (``setattr(self, f"_{mode}_window_map", ...)``, read back as ``getattr(self,
"_decode_window_map")``): the state is kept all the same, and the decisions on it are stale."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class NamespaceStoreAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.token_to_kv_pool = pool
        vars(self).update(is_swa=isinstance(pool, SWAKVPool))  # expect: KVP002
        self.__dict__.update({"swa_pool": getattr(pool, "swa_kv_pool", None)})  # expect: KVP001
        state = {"to_swa": getattr(pool, "full_to_swa_index_mapping", None), "page": 16}
        self.__dict__.update(state)  # expect: KVP001
        vars(self).update(dict(windowed=hasattr(pool, "swa_kv_pool")))  # expect: KVP002
        vars(self).update(**{"halves": (pool.swa_kv_pool, pool.full_kv_pool)})  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.is_swa:  # expect: KVP003
            forward_batch.swa = True
        if self.swa_pool is None:  # expect: KVP003
            return
        forward_batch.loc = self.to_swa[forward_batch.out_cache_loc] if self.to_swa is not None else None  # expect: KVP003
        assert self.windowed  # expect: KVP003
        forward_batch.page = self.page if self.page > 8 else 8


class BuiltNameAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        for mode in ("decode", "extend"):
            setattr(self, f"_{mode}_window_map", getattr(pool, "full_to_swa_index_mapping", None))  # expect: KVP001
        prefix = "swa"
        setattr(self, prefix + "_sub", getattr(pool, "swa_kv_pool", None))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        return q if getattr(self, "_decode_window_map") is not None else v  # expect: KVP003

    def forward_extend(self, q, k, v, layer, forward_batch):
        if self._extend_window_map is None or self.swa_sub is None:  # expect: KVP003
            return q
        return v


class BuiltNameReadAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._decode_swa_sub = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self._extend_swa_sub = getattr(pool, "swa_kv_pool", None)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch):
        mode = forward_batch.forward_mode.name.lower()
        if getattr(self, f"_{mode}_swa_sub") is None:  # expect: KVP003
            return q
        return v


class NamespaceItemAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        vars(self)["window_pool"] = getattr(pool, "swa_kv_pool", None)  # expect: KVP001
        self.__dict__.setdefault("to_swa", getattr(pool, "full_to_swa_index_mapping", None))  # expect: KVP001
        vars(self).setdefault("page", model_runner.page_size)

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.window_pool is None or self.page > 1:  # expect: KVP003
            return q
        return k if self.to_swa is not None else v  # expect: KVP003


class SpreadCallAttnBackend(AttentionBackend):
    """A store call spread over lines is reported on its first line (the statement's)."""

    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.__dict__.update(  # expect: KVP001
            window_pool=getattr(pool, "swa_kv_pool", None),
            to_swa=getattr(pool, "full_to_swa_index_mapping", None),
            page=model_runner.page_size,
        )
        setattr(  # expect: KVP002
            self,
            "windowed",
            isinstance(pool, SWAKVPool),
        )

    def forward_decode(self, q, k, v, layer, forward_batch):
        if self.windowed and self.window_pool is not None:  # expect: KVP003
            return q
        return k if self.to_swa is not None else v  # expect: KVP003
