"""Pool state that comes back through an event loop or an executor: the loop or the future hands
back what the coroutine or function it ran returned, and a helper that derives it from the pool
it is given derives it whatever runs it (``asyncio.run``, ``run_until_complete``, ``wait_for``,
``gather``, ``submit(...).result()``, ``to_thread``, ``run_in_executor``, ``await``)."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


async def _probe_sub_pool(pool):
    await asyncio.sleep(0)
    return pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None


async def _probe_windowed(pool):
    return isinstance(pool, SWAKVPool)


async def _probe_layout(pool):
    if isinstance(pool, SWAKVPool):
        return True, pool.full_to_swa_index_mapping
    return False, None


def _row_table(pool):
    return getattr(pool, "full_to_swa_index_mapping", None)


class EventLoopProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        loop = asyncio.new_event_loop()
        self.sub_pool = loop.run_until_complete(_probe_sub_pool(self.token_to_kv_pool))  # expect: KVP001
        self.windowed = asyncio.run(asyncio.wait_for(_probe_windowed(model_runner.token_to_kv_pool), 5))  # expect: KVP002
        self.paged, self.page_rows = loop.run_until_complete(_probe_layout(self.token_to_kv_pool))  # expect: KVP001,KVP002
        loop.close()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.windowed:  # expect: KVP003
            return self.sub_pool.get_key_buffer(layer.layer_id)
        if self.paged:  # expect: KVP003
            return self.page_rows
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)


class ExecutorProbeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        with ThreadPoolExecutor(max_workers=1) as workers:
            future = workers.submit(_row_table, self.token_to_kv_pool)
            self.rows = future.result()  # expect: KVP001
            self.sub = workers.submit(lambda p: p.swa_kv_pool, self.token_to_kv_pool).result()  # expect: KVP001

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        if self.rows is not None:  # expect: KVP003
            loc = self.rows[loc]
        return self.sub.get_key_buffer(layer.layer_id), loc


class AsyncSetupAttnBackend(AttentionBackend):
    """The coroutine that sets the backend up awaits the probes itself."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        asyncio.run(self._setup())

    async def _setup(self):
        pool = self.token_to_kv_pool
        self.table = await asyncio.to_thread(_row_table, pool)  # expect: KVP001
        self.found = await asyncio.gather(_probe_sub_pool(pool), _probe_windowed(pool))  # expect: KVP001
        self.split, self.split_rows = await _probe_layout(pool)  # expect: KVP001,KVP002
        loop = asyncio.get_running_loop()
        self.table2 = await loop.run_in_executor(None, _row_table, pool)  # expect: KVP001

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.table2 is not None:  # expect: KVP003
            return torch.empty_like(q), self.table2
        return torch.empty_like(q), self.table
