"""State made once from the runner's KVIndexTranslator (rel6 M-2). The runner builds the
translator on its own pool (``is_translating`` is its verdict on that pool and allocator);
FROZEN_KV MTP swaps only the backend's pool, so a backend keeping the runner's translator is
told to swap it too (KVP001 at the store). What a backend makes from it outside per-forward code
-- capture tables, a graph buffer allocated only when it translates -- stays as it was made even
once the translator is swapped: KVP001 there too. Reads of it per forward read what that swap
rebinds (no finding), and so do its geometry and a boot-time assert."""
from __future__ import annotations

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ToyModelRunner:
    """What SGLang's ModelRunner does: one translator, built on the runner's own pool."""

    def init_translator(self):
        self.kv_index_translator = KVIndexTranslator(
            req_to_token=self.req_to_token_pool.req_to_token,
            token_to_kv_pool_allocator=self.token_to_kv_pool_allocator,
            token_to_kv_pool=self.token_to_kv_pool,
        )


class CaptureTablesAttnBackend(AttentionBackend):
    """0.5.19's shape: capture tables and a write buffer made at graph init."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_index_translator = model_runner.kv_index_translator  # expect: KVP001
        self.page_size = self.kv_index_translator.page_size
        assert not self.kv_index_translator.is_translating or self.page_size > 0
        self.kv_read_tables = None

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        if self.kv_index_translator.is_translating:
            self.cuda_graph_out_cache_loc_full = torch.zeros(max_num_tokens)  # expect: KVP001
        self.kv_read_tables = self.kv_index_translator.make_capture_tables(  # expect: KVP001
            max_bs=max_bs, max_context_len=4096
        )

    def init_forward_metadata(self, forward_batch):
        if self.kv_index_translator.is_translating:
            forward_batch.tables = self.kv_index_translator.make_capture_tables(max_bs=1)
        self.forward_tables = self.kv_index_translator.make_capture_tables(max_bs=2)


class VerdictFormsAttnBackend(AttentionBackend):
    """The verdict in a ternary of a helper that __init__ calls."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_index_translator = model_runner.kv_index_translator  # expect: KVP001
        self._init_loc()

    def _init_loc(self):
        self.loc = torch.zeros(8) if self.kv_index_translator.is_translating else None  # expect: KVP001


class BuilderLookalikeAttnBackend(AttentionBackend):
    """An object the backend builds around the pool (its own finding): what its method
    allocates from geometry at graph init is no state of the runner's object."""

    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.local_builder = LocalAttnBuilder(  # expect: KVP001
            self.token_to_kv_pool.translate_loc_from_full_to_swa
        )

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.local_buffers = self.local_builder.alloc_cuda_graph_buffers(max_bs)
