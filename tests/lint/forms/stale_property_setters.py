"""A property setter runs where its attribute is assigned (self.x = v, setattr): its stores are
kept when that is once-only code (__init__, init_cuda_graph_state), the setter in a base too."""
from __future__ import annotations

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class ReflectiveSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        setattr(self, "window_source", model_runner.token_to_kv_pool)  # expect: KVP001

    @property
    def window_source(self):
        return self._rows

    @window_source.setter
    def window_source(self, pool):
        self._rows = getattr(pool, "full_to_swa_index_mapping", None)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self._rows is not None:  # expect: KVP003
            forward_batch.rows = self._rows


class _SetterBase(AttentionBackend):
    @property
    def layout_pool(self):
        return None

    @layout_pool.setter
    def layout_pool(self, pool):
        self._windowed = isinstance(pool, SWAKVPool)  # expect: KVP002


class InheritedSetterAttnBackend(_SetterBase):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.layout_pool = model_runner.token_to_kv_pool  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self._windowed:  # expect: KVP003
            forward_batch.swa = True


class CaptureSetterAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.graph_pool = self.token_to_kv_pool  # expect: KVP001

    @property
    def graph_pool(self):
        return None

    @graph_pool.setter
    def graph_pool(self, pool):
        self._graph_rows = pool.full_to_swa_index_mapping  # expect: KVP001
