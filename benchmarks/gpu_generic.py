"""Two attention backends no poolguard table names, launching flashinfer's XQA decode kernel the
way SGLang's trtllm backend does: material for the generic (table-free) guard on the GPU.

Both subclass SGLang's ``AttentionBackend`` directly (no table class in their MRO), build page
tables from ``req_to_token`` in ``init_forward_metadata``, and reach the kernel through two
helpers (``_reshape_paged_kv_cache``, ``_run_fixed_q_len_decode``, spelled as SGLang's own).
``CachedSwaXqaAttnBackend`` resolves its SWA pool once, at ``__init__`` (#26957's bug under
another class: a FROZEN_KV draft's own pool is not an SWA pool, so its SWA layers get full-pool
page ids over the target's SWA buffer); ``LiveSwaXqaAttnBackend`` resolves it from
``self.token_to_kv_pool`` at each launch. Used by ``gpu_bug_replay`` (cases ``generic, ...``)
and ``gpu_generic_cost``.
"""

from __future__ import annotations

from types import SimpleNamespace

import gpu_sglang as gs


def classes(sg):
    """(CachedSwaXqaAttnBackend, LiveSwaXqaAttnBackend), defined over SGLang's own base."""
    import torch
    from sglang.kernels.ops.attention.utils import canonicalize_stride
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
    from sglang.srt.mem_cache.layout.paged_view import paged_kv_view

    from runtime_guard.demo import scenarios as sc

    class _XqaBase(AttentionBackend):
        def __init__(self, model_runner, geo: gs.Geometry):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.req_to_token = model_runner.req_to_token_pool.req_to_token
            self.page_size, self.max_context_len = geo.page, geo.context
            self.q_data_type = sc.DTYPE
            device = model_runner.device
            self.workspace_buffer = torch.zeros(
                gs.XQA_SEMAPHORE_BYTES + gs.WORKSPACE_BYTES if device == "cuda" else 1,
                dtype=torch.uint8, device=device)
            self._ctas = (sg.trtllm_mha_backend.make_persistent_multi_ctas_kv_counter_buffer(
                torch.device(device), num_q_heads=gs.Q_HEADS, max_batch_size=geo.batch + 1)
                if device == "cuda" else None)

        def init_forward_metadata(self, forward_batch):
            rows = self.req_to_token[forward_batch.req_pool_indices]
            first = rows[:, :: self.page_size].long()  # each page's first token (full pool)
            self.forward_metadata = SimpleNamespace(
                first_tokens=first, page_table=(first // self.page_size).int(),
                seq_lens=forward_batch.seq_lens.int())

        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            table = self._layer_table(layer)
            k_cache, v_cache = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
            kv = self._reshape_paged_kv_cache(k_cache, v_cache, layer, layer.head_dim)
            out = self._run_fixed_q_len_decode(
                q.view(-1, layer.tp_q_head_num, layer.head_dim), kv, table,
                self.forward_metadata.seq_lens, bmm1_scale=layer.scaling, bmm2_scale=1.0,
                window_left=layer.sliding_window_size, sinks=None, out_dtype=self.q_data_type)
            return out.view(-1, layer.tp_q_head_num * layer.head_dim)

        def _layer_table(self, layer):
            """SWA layers read the SWA buffer: their pages go through the full->SWA mapping."""
            meta, swa = self.forward_metadata, self._swa_pool()
            if layer.sliding_window_size < 0 or swa is None:
                return meta.page_table
            return (swa.full_to_swa_index_mapping[meta.first_tokens] // self.page_size).int()

        def _reshape_paged_kv_cache(self, k_cache, v_cache, layer, head_dim):
            return tuple(canonicalize_stride(paged_kv_view(
                buf, self.page_size, layer.tp_k_head_num, head_dim).permute(0, 2, 1, 3))
                for buf in (k_cache, v_cache))

        def _run_fixed_q_len_decode(self, query, kv_cache, block_tables, seq_lens, *,
                                    bmm1_scale, bmm2_scale, window_left, sinks, out_dtype):
            decode = sg.trtllm_mha_backend.flashinfer.decode  # the real package on CUDA
            extra = {"multi_ctas_kv_counter_buffer": self._ctas} if self._ctas is not None else {}
            return decode.trtllm_batch_decode_with_kv_cache(
                query=query, kv_cache=kv_cache, workspace_buffer=self.workspace_buffer,
                block_tables=block_tables, seq_lens=seq_lens, max_seq_len=self.max_context_len,
                bmm1_scale=bmm1_scale, bmm2_scale=bmm2_scale, window_left=window_left,
                sinks=sinks, out_dtype=out_dtype, **extra)

    class CachedSwaXqaAttnBackend(_XqaBase):
        """Resolves the SWA pool once, from the pool it was built with (stale after a swap)."""

        def __init__(self, model_runner, geo):
            super().__init__(model_runner, geo)
            pool = model_runner.token_to_kv_pool
            # the bug on purpose: this class is the stale form the replay shows
            self.swa_kv_pool = pool if isinstance(pool, sg.SWAKVPool) else None  # noqa: KVP001

        def _swa_pool(self):
            return self.swa_kv_pool

    class LiveSwaXqaAttnBackend(_XqaBase):
        """Resolves the SWA pool from the pool this launch reads."""

        def _swa_pool(self):
            pool = self.token_to_kv_pool
            return pool if isinstance(pool, sg.SWAKVPool) else None

    return CachedSwaXqaAttnBackend, LiveSwaXqaAttnBackend
