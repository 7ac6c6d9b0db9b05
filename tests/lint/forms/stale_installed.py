"""Backend code that is not an ordinary method of its class statement: decorator wrappers,
classes made with type(), functions assigned to a class later, memoising descriptors."""
from __future__ import annotations

import functools

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


def with_swa_setup(init):
    @functools.wraps(init)
    def run(obj, model_runner, *args, **kwargs):
        init(obj, model_runner, *args, **kwargs)
        obj.window_pool = getattr(model_runner.token_to_kv_pool, "swa_kv_pool", None)  # expect: KVP001
        obj.window_kind = obj.token_to_kv_pool.__class__.__name__  # expect: KVP002
    return run


def profiled(method):
    def inner(self, q, k, v, layer, forward_batch):
        if self.window_kind.endswith("SWAKVPool"):  # expect: KVP003
            q = q.contiguous()
        return method(self, q, k, v, layer, forward_batch)
    return inner


class WrappedInitAttnBackend(AttentionBackend):
    @with_swa_setup
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    @profiled
    def forward_decode(self, q, k, v, layer, forward_batch):
        return q


class FirstAnswer:
    def __set_name__(self, owner, name):
        self.slot = name

    def __get__(self, obj, owner=None):
        answer = type(obj.token_to_kv_pool) is SWAKVPool
        setattr(obj, self.slot, answer)
        return answer


class VarsMemo:
    def __set_name__(self, owner, name):
        self.slot = name

    def __get__(self, obj, owner=None):
        found = getattr(obj.token_to_kv_pool, "full_to_swa_index_mapping", None)
        vars(obj)[self.slot] = found
        return found


class DescriptorAttnBackend(AttentionBackend):
    is_windowed = FirstAnswer()  # expect: KVP002
    mapping_view = VarsMemo()  # expect: KVP001

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        if self.is_windowed:  # expect: KVP003
            forward_batch.windowed = True


def _graph_state(self, max_bs, max_num_tokens):
    self.graph_mapping = self.token_to_kv_pool.full_to_swa_index_mapping  # expect: KVP001


def _init(self, model_runner):
    self.token_to_kv_pool = model_runner.token_to_kv_pool
    self.uses_window = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")  # expect: KVP002


def _metadata(self, forward_batch):
    if not self.uses_window:  # expect: KVP003
        return
    forward_batch.window = True


class PatchedAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool


PatchedAttnBackend.init_cuda_graph_state = _graph_state
BuiltAttnBackend = type("BuiltAttnBackend", (PatchedAttnBackend,),
                        {"__init__": _init, "init_forward_metadata": _metadata})
