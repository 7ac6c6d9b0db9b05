"""Pool state handed out by a context manager entered once: what ``with m as x`` binds is the
manager's ``__enter__`` result (or a generator's yield), entered by ``with``, ``async with``
or an ``ExitStack``; kept, it is the pool of that moment."""
from __future__ import annotations

import contextlib

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SubPoolCheckout:
    def __init__(self, pool):
        self.pool = pool

    def __enter__(self):
        return getattr(self.pool, "swa_kv_pool", None)

    def __exit__(self, *exc):
        return None


class PoolLock:
    def __init__(self, pool):
        self.pool = pool

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class MappingSession:
    def __init__(self, pool):
        self.pool = pool

    async def __aenter__(self):
        return self.pool.full_to_swa_index_mapping

    async def __aexit__(self, *exc):
        return None


@contextlib.contextmanager
def pinned_translate(pool):
    yield pool.translate_loc_from_full_to_swa


class CheckoutAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._exits = contextlib.ExitStack()
        with SubPoolCheckout(self.token_to_kv_pool) as sub:
            self.window_sub = sub  # expect: KVP001
        with PoolLock(model_runner.token_to_kv_pool) as lock:
            self.locked_pool = lock.pool  # expect: KVP001
        self.translate = self._exits.enter_context(pinned_translate(self.token_to_kv_pool))  # expect: KVP001

    async def init_cuda_graph_state(self, max_bs, max_num_tokens):
        async with contextlib.AsyncExitStack() as stack:
            self.graph_map = await stack.enter_async_context(MappingSession(self.token_to_kv_pool))  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.window_sub is not None and layer.sliding_window_size > 0:  # expect: KVP003
            return self.translate(forward_batch.out_cache_loc)
        return self.graph_map
