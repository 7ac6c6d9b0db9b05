"""Shared setup of the GPU benchmarks: real SGLang 0.5.23 pools and trtllm backend on a device,
driven into flashinfer's XQA decode kernel through SGLang's own ``forward_decode``.

What is SGLang's own: ``SWAKVPool``, ``SWATokenToKVPoolAllocator`` (its
``set_full_to_swa_mapping``), ``MHATokenToKVPool``, ``RadixAttention``, ``ForwardBatch``,
``KVIndexTranslator`` and ``KVLocPlan``, ``frozen_kv_target_view``, the backend's
``init_forward_metadata`` (on CUDA its page tables come from SGLang's Triton builder,
including the full->SWA translation) and ``forward_decode`` → ``_get_layer_page_table`` →
``_reshape_paged_kv_cache`` → ``_run_fixed_q_len_decode`` →
``flashinfer.decode.trtllm_batch_decode_with_kv_cache``. What is substituted, because it
needs a running server (a loaded model, the scheduler's runtime context):

* the backend ``__init__`` runs until its first runtime-context read (``get_exec()``, after
  the SWA state is resolved); the attributes the rest of ``__init__`` sets for an SM90 bf16
  decode are set by ``complete_backend`` with the values it would compute;
* the ``model_runner`` is a namespace with the attributes ``__init__`` reads; requests are
  ``req_to_token`` rows laid out directly (no scheduler), and their full->SWA token mapping
  is written through the allocator's own ``set_full_to_swa_mapping``;
* decode launches pass ``save_kv_cache=False`` (a FROZEN_KV draft reads the target's KV);
* SGLang's import-time probes ran with CUDA hidden (no ``sgl_kernel`` on the host), so the
  modules that import ``flashinfer`` only when it is available (the trtllm MHA and MLA
  backends among them) did not bind it: the real package is bound to that same name.

On a machine without CUDA (the CPU smoke path) the kernel is ``torch_paged_decode`` (a
bounds-unchecked torch paged decode with the same signature) and the page tables are filled
by torch with the builder's formula. That path is a smoke test, never a measurement.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runtime_guard from this checkout

Q_HEADS = 8  # grouped-query: 8 query heads share the one KV head
XQA_SEMAPHORE_BYTES = 8 << 20  # SGLang reserves this before the XQA workspace
WORKSPACE_BYTES = 512 << 20


class Geometry(NamedTuple):
    """A decode batch: ``batch`` requests of ``context - 1`` tokens, pages of ``page``
    tokens, a sliding window of ``window`` tokens, KV heads of ``head_dim``."""

    batch: int
    context: int
    page: int
    window: int
    head_dim: int

    @property
    def pages(self) -> int:
        return self.context // self.page

    @property
    def swa_pages_per_request(self) -> int:
        return self.window // self.page + 1  # an unaligned window spans one page more


def stack():
    """SGLang's modules (imported the CPU-safe way) and the decode kernel in use:
    (namespace, kernel label)."""
    import torch

    from runtime_guard.demo import scenarios

    sg = scenarios.sglang()
    if torch.cuda.is_available():
        import flashinfer

        _bind_skipped_flashinfer(flashinfer)
        return sg, f"flashinfer {flashinfer.__version__} XQA"
    sg.trtllm_mha_backend.flashinfer = SimpleNamespace(
        decode=SimpleNamespace(trtllm_batch_decode_with_kv_cache=torch_decode_standin)
    )
    return sg, "torch stand-in (CPU smoke)"


def _bind_skipped_flashinfer(flashinfer) -> None:
    """Bind the real package in every imported SGLang module whose import-time guard
    (``if is_flashinfer_available(): import flashinfer``) skipped it with CUDA hidden."""
    import re

    guarded = re.compile(r"^\s+import flashinfer\s*$", re.M)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not name.startswith("sglang.") or not path or hasattr(module, "flashinfer"):
            continue
        with open(path, encoding="utf-8") as source:
            if guarded.search(source.read()):
                module.flashinfer = flashinfer


def torch_paged_decode(query, k_cache, v_cache, block_tables, seq_lens, window_left, scale):
    """fp32 paged decode over HND caches ``[pages, kv_heads, page, dim]``: each request
    attends to its last ``window_left + 1`` tokens (all when ``window_left < 0``)."""
    import torch

    batch, width = block_tables.shape
    kv_heads, page, dim = k_cache.shape[1:]
    lens = seq_lens.long()
    lo = (lens - 1 - window_left).clamp(min=0) if window_left >= 0 else torch.zeros_like(lens)
    span = width if window_left < 0 else min(width, -(-(window_left + 1) // page) + 1)
    first = (lo // page).clamp(max=width - span)
    cols = first[:, None] + torch.arange(span, device=lens.device)
    pages = block_tables.gather(1, cols).long()

    def gather(cache):
        picked = cache[pages].permute(0, 2, 1, 3, 4)  # [B, H, span, page, D]
        return picked.reshape(batch, kv_heads, span * page, dim).float()

    k, v = gather(k_cache), gather(v_cache)
    positions = (cols[:, :, None] * page + torch.arange(page, device=lens.device)).flatten(1)
    valid = (positions >= lo[:, None]) & (positions < lens[:, None])
    q = query.float().view(batch, kv_heads, -1, dim)
    scores = torch.einsum("bhgd,bhtd->bhgt", q, k) * scale
    scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
    out = torch.einsum("bhgt,bhtd->bhgd", scores.softmax(-1), v)
    return out.reshape(batch, -1, dim)


def paged_hnd(buf, layer, page: int):
    """A token-major pool buffer as the HND page view ``[pages, kv_heads, page, dim]`` SGLang
    hands the kernel (its own ``paged_kv_view``, then the permute)."""
    from sglang.srt.mem_cache.layout.paged_view import paged_kv_view

    return paged_kv_view(buf, page, layer.tp_k_head_num, layer.head_dim).permute(0, 2, 1, 3)


def torch_decode_standin(query, kv_cache, workspace_buffer, block_tables, seq_lens,
                         max_seq_len, bmm1_scale, bmm2_scale, window_left, sinks=None,
                         out=None, out_dtype=None, **_):
    """``trtllm_batch_decode_with_kv_cache``'s signature over ``torch_paged_decode``
    (CPU smoke only: an index past the cache raises instead of reading past it)."""
    result = torch_paged_decode(
        query, kv_cache[0], kv_cache[1], block_tables, seq_lens, window_left, bmm1_scale
    ) * bmm2_scale
    return result.to(out_dtype or query.dtype)


def target_pool(sg, geo: Geometry, device: str, swa_layers=(0,), full_layers=(1,)):
    """The hybrid target's real ``SWAKVPool`` + ``SWATokenToKVPoolAllocator``, every request's
    tokens mapped full->SWA through the allocator (a ring of ``swa_pages_per_request`` SWA
    pages per request), random K/V, and SGLang's ``req_to_token`` layout: request ``r``
    holds full pages ``1 + r * pages ..``. Returns (pool, allocator, req_to_token)."""
    import torch

    from runtime_guard.demo import scenarios as sc

    size = geo.batch * geo.context
    size_swa = geo.batch * geo.swa_pages_per_request * geo.page
    pool = sc.swa_pool(size, size_swa, geo.page, device, head_dim=geo.head_dim,
                       swa_layers=list(swa_layers), full_layers=list(full_layers))
    allocator = sc.swa_allocator(pool, size, size_swa, geo.page)
    tokens = torch.arange(geo.context, device=device)
    rows = torch.arange(geo.batch, device=device)[:, None]
    full = (1 + rows * geo.pages + tokens // geo.page) * geo.page + tokens % geo.page
    ring = geo.swa_pages_per_request
    swa = (1 + rows * ring + (tokens // geo.page) % ring) * geo.page + tokens % geo.page
    allocator.set_full_to_swa_mapping(full.flatten(), swa.flatten())
    generator = torch.Generator(device=device).manual_seed(0)
    for layer_id in list(swa_layers) + list(full_layers):
        for buf in pool.get_kv_buffer(layer_id):
            buf.copy_(torch.randn(buf.shape, generator=generator, device=device).to(buf.dtype))
    return pool, allocator, full.to(torch.int32)


def draft_pool(geo: Geometry, device: str):
    """The FROZEN_KV MTP draft's own real (non-SWA) ``MHATokenToKVPool``, one layer."""
    from runtime_guard.demo import scenarios as sc
    from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

    return MHATokenToKVPool(geo.batch * geo.page, geo.page, sc.DTYPE, 1, geo.head_dim, 1,
                            device, False)


def model_runner(pool, allocator, req_to_token, geo: Geometry, device: str, *, draft: bool):
    """The ``ModelRunner`` attributes the backend constructor and its resolvers read, with
    SGLang's own ``KVIndexTranslator`` built as ``ModelRunner.init_kv_index_translator``
    builds it."""
    from runtime_guard.demo import scenarios as sc
    from sglang.srt.mem_cache.kv_index_translator import KVIndexTranslator

    runner = sc.runner(pool, allocator, draft=draft, spec="FROZEN_KV_MTP" if draft else "NONE")
    runner.req_to_token_pool = SimpleNamespace(size=geo.batch, req_to_token=req_to_token)
    runner.device, runner.page_size = device, geo.page
    runner.kv_index_translator = KVIndexTranslator(
        req_to_token=req_to_token, token_to_kv_pool_allocator=allocator,
        token_to_kv_pool=pool, page_size=geo.page, device=device, is_draft_worker=draft,
    )
    return runner


def complete_backend(sg, cls, runner, geo: Geometry, device: str):
    """A ``cls`` backend: its real ``__init__`` up to the runtime-context read, then what the
    rest of ``__init__`` sets for a bf16 decode on SM90 (XQA)."""
    import torch

    from runtime_guard.demo import scenarios as sc

    backend = sc.construct_backend(cls, runner)
    backend.device = device
    backend.req_to_token = runner.req_to_token_pool.req_to_token
    backend.data_type = backend.q_data_type = sc.DTYPE
    backend.is_xqa_impl = True
    backend.decode_uses_native_fp4 = backend.prefill_uses_native_fp4 = False
    backend.is_nvfp4_kvcache = backend.uses_trtllm_gen_native_fp4 = False
    backend.max_context_len = geo.context
    backend.max_num_pages = geo.pages
    backend.decode_seq_len_splits = 1
    backend.expand_encoder_only_verify = False  # no ENCODER_ONLY layers in this model
    backend.workspace_buffer = torch.zeros(
        XQA_SEMAPHORE_BYTES + WORKSPACE_BYTES if device == "cuda" else 1, dtype=torch.uint8,
        device=device,
    )
    backend._multi_ctas_kv_counter_buffer = (
        sg.trtllm_mha_backend.make_persistent_multi_ctas_kv_counter_buffer(
            torch.device(device), num_q_heads=Q_HEADS, max_batch_size=geo.batch + 1)
        if device == "cuda" else None
    )
    return backend


def init_metadata(backend, batch, geo: Geometry):
    """The backend's own ``init_forward_metadata`` for this decode batch (hooked when the
    plugin is loaded). On CUDA its page tables are filled by SGLang's Triton builder; on the
    CPU smoke path by torch with the builder's formula (first token of each page through
    the full->SWA mapping, // page_size)."""
    if batch.seq_lens.device.type != "cuda" and hasattr(type(backend), "_fill_page_table_device"):
        backend._fill_page_table_device = _torch_page_table_fill(backend, geo)
    backend.init_forward_metadata(batch)
    return backend.forward_metadata


def _torch_page_table_fill(backend, geo: Geometry):
    def fill(meta, req_pool_indices, cache_seqlens):
        width = meta.page_table.shape[1]
        first = backend.req_to_token[req_pool_indices][:, ::geo.page][:, :width].long()
        meta.page_table[:, : first.shape[1]].copy_(first // geo.page)
        if meta.swa_page_table is not None:
            mapping = backend._swa_kv_pool.full_to_swa_index_mapping
            meta.swa_page_table[:, : first.shape[1]].copy_(mapping[first] // geo.page)

    return fill


def attention_layer(layer_id: int, geo: Geometry, sliding: bool):
    """A real ``RadixAttention`` layer: 8 query heads, one KV head of ``head_dim``."""
    from sglang.srt.layers.radix_attention import RadixAttention

    return RadixAttention(
        num_heads=Q_HEADS, head_dim=geo.head_dim, scaling=geo.head_dim ** -0.5,
        num_kv_heads=1, layer_id=layer_id,
        sliding_window_size=geo.window - 1 if sliding else -1,
    )


def decode_batch(pool, seq_lens, runner):
    """A real decode ``ForwardBatch`` over ``pool`` with these lengths, carrying SGLang's
    ``KVLocPlan`` for the runner's translator (request ``r`` is ``req_to_token`` row ``r``)."""
    import torch

    from sglang.srt.mem_cache.kv_loc_plan import KVLocPlan
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch, ForwardMode

    rows = seq_lens.shape[0]
    batch = ForwardBatch(
        forward_mode=ForwardMode.DECODE, batch_size=rows,
        input_ids=torch.zeros(rows, dtype=torch.int64, device=seq_lens.device),
        req_pool_indices=torch.arange(rows, device=seq_lens.device),
        seq_lens=seq_lens.long(),
        out_cache_loc=torch.zeros(rows, dtype=torch.int64, device=seq_lens.device),
        seq_lens_sum=int(seq_lens.sum()),
    )
    batch.token_to_kv_pool = pool
    batch.kv_loc_plan = KVLocPlan(
        source=runner.kv_index_translator, req_pool_indices=batch.req_pool_indices,
        seq_lens=batch.seq_lens, seq_lens_cpu=None, write_virtual=None,
    )
    return batch


def xqa_reference(backend, pool, q, layer, table, seq_lens):
    """The kernel call the backend makes, through its own helpers, on ``pool`` and ``table``
    (the reference launch)."""
    import torch

    k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
    kv_cache = backend._reshape_paged_kv_cache(k_cache, v_cache, layer, layer.head_dim)
    out = backend._run_fixed_q_len_decode(
        q.view(-1, layer.tp_q_head_num, layer.head_dim), kv_cache, table,
        seq_lens.to(torch.int32), bmm1_scale=layer.scaling,
        bmm2_scale=1.0, window_left=layer.sliding_window_size, sinks=None,
        out_dtype=backend.q_data_type,
    )
    return out.view(-1, layer.tp_q_head_num * layer.head_dim)


def sync(device: str):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def median_us(fn, device: str, iters: int, repeats: int) -> float:
    """Median µs per call over ``repeats`` timed loops of ``iters`` calls (synchronised)."""
    for _ in range(3):
        fn()
    sync(device)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        sync(device)
        samples.append((time.perf_counter() - start) / iters * 1e6)
    return statistics.median(samples)


def paired_us(first, second, device: str, iters: int, repeats: int):
    """Median µs per call of two functions, timed in alternating loops (drift cancels)."""
    a, b = [], []
    for _ in range(repeats):
        a.append(median_us(first, device, iters, 1))
        b.append(median_us(second, device, iters, 1))
    return statistics.median(a), statistics.median(b)
