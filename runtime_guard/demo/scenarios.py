"""Real SGLang objects on the CPU: the guard's replay of the FROZEN_KV MTP pool swap.

Used by ``poolguard demo`` (through ``runtime_guard.demo.replay``), the test suite and the
benchmarks; serving code never imports it. Pools, allocators, ``RadixAttention`` layers,
``ForwardBatch``, ``TRTLLMMHAMetadata`` and the trtllm backend classes are SGLang's own.
Only two things are ours: the ``model_runner`` handed to backend constructors is a
``SimpleNamespace`` carrying the attributes they read (a real ``ModelRunner`` loads a model),
and backends are constructed by running the real ``__init__`` until it needs the GPU runtime
(see ``construct_backend``). Needs torch and SGLang.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import torch

from runtime_guard.demo.sglang_cpu import import_sglang_for_cpu

PAGE = 4
SIZE, SIZE_SWA = 64, 32  # tokens; the buffers hold one extra page (SGLang's padding page)
SWA_LAYERS, FULL_LAYERS = [0, 2], [1, 3]
DTYPE = torch.bfloat16

_sg = None


def sglang():
    """The SGLang namespace from ``import_sglang_for_cpu`` (imported once per process)."""
    global _sg
    if _sg is None:
        _sg = import_sglang_for_cpu()
    return _sg


def _accepts(fn, name: str) -> bool:
    return name in inspect.signature(fn).parameters


def swa_pool(
    size: int = SIZE, size_swa: int = SIZE_SWA, page: int = PAGE, device: str = "cpu",
    *, head_dim: int = 8, swa_layers=SWA_LAYERS, full_layers=FULL_LAYERS,
):
    """A hybrid model's real ``SWAKVPool`` (by default layers 0, 2 sliding-window; 1, 3 full)."""
    cls = sglang().SWAKVPool
    kwargs = dict(
        size=size, size_swa=size_swa, page_size=page, dtype=DTYPE, head_num=1,
        head_dim=head_dim, swa_attention_layer_ids=list(swa_layers),
        full_attention_layer_ids=list(full_layers), device=device,
    )
    if _accepts(cls.__init__, "enable_kvcache_transpose"):  # SGLang 0.5.12
        kwargs["enable_kvcache_transpose"] = False
    return cls(**kwargs)


def swa_allocator(pool, size: int = SIZE, size_swa: int = SIZE_SWA, page: int = PAGE):
    """The real ``SWATokenToKVPoolAllocator`` over ``pool`` (registers its full->SWA map)."""
    device = pool.device if isinstance(pool.device, str) else str(pool.device)
    return sglang().SWATokenToKVPoolAllocator(size, size_swa, page, DTYPE, device, pool, False)


def mha_pool(layer_num: int = 4, size: int = SIZE, page: int = PAGE):
    """A real non-SWA ``MHATokenToKVPool`` (a plain model's pool, or a draft's own pool)."""
    from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

    return MHATokenToKVPool(size, page, DTYPE, 1, 8, layer_num, "cpu", False)


def token_allocator(pool, size: int = SIZE, page: int = PAGE):
    """The real allocator SGLang pairs with a non-SWA pool."""
    from sglang.srt.mem_cache import allocator as allocator_module

    cls = allocator_module.PagedTokenToKVPoolAllocator
    if _accepts(cls.__init__, "need_sort"):
        return cls(size, page, DTYPE, "cpu", pool, False)
    return cls(size, page, DTYPE, "cpu", pool)


def algorithm(name: str):
    """A member of SGLang's real ``SpeculativeAlgorithm`` enum (``NONE``, ``EAGLE``, ...)."""
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    return SpeculativeAlgorithm[name]


CONFIGURATIONS = ("non-SWA model", "SWA target", "EAGLE draft, own pool", "FROZEN_KV draft")


def configuration(name: str):
    """(model runner, the pool its launches read) for one of ``CONFIGURATIONS``."""
    target = swa_pool()
    allocator = swa_allocator(target)
    if name == "non-SWA model":
        plain = mha_pool()
        return runner(plain, token_allocator(plain)), plain
    if name == "SWA target":
        return runner(target, allocator), target
    own = mha_pool(layer_num=1)
    if name == "EAGLE draft, own pool":
        return runner(own, allocator, draft=True, spec="EAGLE"), own
    # FROZEN_KV MTP: the draft owns a pool but its launches read the target's.
    return runner(own, allocator, draft=True, spec="FROZEN_KV_MTP"), target


def runner(pool, allocator, *, draft: bool = False, spec: str = "NONE"):
    """The attributes of a ``ModelRunner`` that backend constructors and resolvers read."""
    return SimpleNamespace(
        token_to_kv_pool=pool,
        token_to_kv_pool_allocator=allocator,
        is_draft_worker=draft,
        spec_algorithm=algorithm(spec),
        req_to_token_pool=SimpleNamespace(
            size=8, req_to_token=torch.zeros(8, SIZE, dtype=torch.int32)
        ),
        kv_index_translator=None,
        device="cpu",
        page_size=PAGE,
    )


def construct_backend(cls, model_runner):
    """Build ``cls`` from ``model_runner`` as far as a CPU allows.

    The real ``__init__`` runs until it first needs the GPU runtime: on SGLang 0.5.23 that is
    after the FlashInfer base has set ``token_to_kv_pool``, resolved ``_swa_kv_pool`` (through
    ``cls._resolve_swa_kv_pool``) and set ``use_sliding_window_kv_pool``, at its
    ``get_exec()`` runtime-context read; on 0.5.12 it is at the base's first
    ``model_runner.server_args`` read, before any SWA state. Left out in both: the FlashInfer
    wrappers and workspace, and the TRTLLM-specific rest of ``__init__``. Where the SWA state
    was not reached, ``cls``'s own resolver is run; then the attributes the launch path's
    helpers read (``page_size``, ``forward_metadata``) are set.
    """
    from runtime_guard import hooks

    backend = cls.__new__(cls)
    # Through the guard's own init hook, as the plugin installs it: it records the role.
    hooks.guard_init(_init_until_gpu, backend, model_runner)
    from runtime_guard.backends import spec_for

    resolves = hasattr(cls, "_resolve_swa_kv_pool") and "_swa_kv_pool" in spec_for(cls).pool_attrs
    if resolves and "_swa_kv_pool" not in vars(backend):
        backend._swa_kv_pool = cls._resolve_swa_kv_pool(model_runner)
        backend.use_sliding_window_kv_pool = backend._swa_kv_pool is not None
    backend.page_size = model_runner.page_size
    backend.forward_metadata = None
    return backend


def _init_until_gpu(backend, model_runner) -> None:
    try:
        type(backend).__init__(backend, model_runner)
    except Exception as err:  # where it stops differs per SGLang version and machine
        backend._cpu_init_stopped_at = repr(err)


def backend_reads_own_pool() -> bool:
    """SGLang >= 0.5.13 backends read ``self.token_to_kv_pool``; 0.5.12 the forward batch's."""
    params = inspect.signature(sglang().frozen_kv_target_view).parameters
    return "draft_attn_backend" in params


def layer(layer_id: int):
    """A real ``RadixAttention`` layer object for ``layer_id``."""
    from sglang.srt.layers.radix_attention import RadixAttention

    return RadixAttention(num_heads=2, head_dim=8, scaling=1.0, num_kv_heads=1, layer_id=layer_id)


def decode_batch(pool, seq_lens):
    """A real decode ``ForwardBatch`` over ``pool``."""
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch, ForwardMode

    seq = torch.tensor(seq_lens, dtype=torch.int64)
    batch = ForwardBatch(
        forward_mode=ForwardMode.DECODE,
        batch_size=len(seq_lens),
        input_ids=torch.zeros(len(seq_lens), dtype=torch.int64),
        req_pool_indices=torch.arange(len(seq_lens)),
        seq_lens=seq,
        out_cache_loc=torch.zeros(len(seq_lens), dtype=torch.int64),
        seq_lens_sum=int(seq.sum()),
    )
    batch.token_to_kv_pool = pool
    return batch


def contiguous_page_table(seq_lens, width: int, first_page: int = 1):
    """Request ``r`` holds consecutive pages after request ``r - 1``; padding stays 0."""
    table = torch.zeros(len(seq_lens), width, dtype=torch.int32)
    page = first_page
    for row, length in enumerate(seq_lens):
        used = -(-length // PAGE)
        table[row, :used] = torch.arange(page, page + used, dtype=torch.int32)
        page += used
    return table


def metadata(backend, seq_lens, page_table, swa_page_table=None):
    """A real ``TRTLLMMHAMetadata`` as the backend's ``init_forward_metadata`` would set it."""
    meta = sglang().trtllm_mha_backend.TRTLLMMHAMetadata()
    meta.cache_seqlens_int32 = torch.tensor(seq_lens, dtype=torch.int32)
    meta.page_table = page_table
    meta.swa_page_table = swa_page_table
    backend.forward_metadata = meta
    return meta


def frozen_kv_view(batch, target_pool, draft_backend):
    """SGLang's own ``frozen_kv_target_view`` for this version's signature."""
    from sglang.srt.speculative.frozen_kv_mtp_info import FrozenKVMTPContext

    context = FrozenKVMTPContext(target_token_to_kv_pool=target_pool, physical_layer_ids={0: 0})
    view = sglang().frozen_kv_target_view
    if backend_reads_own_pool():
        return view(batch, context, draft_backend)
    return view(batch, context)


def pre_fix_backend_class(upstream=None):
    """``upstream`` (default: the trtllm backend) with its SWA pool resolved the pre-fix way:
    from the pool active at construction, as SGLang's trtllm backend did before PR #26966 (the
    original bug). Classes keeping no ``_swa_kv_pool`` compute their state that way already."""
    from runtime_guard.backends import spec_for

    upstream = upstream or sglang().TRTLLMHAAttnBackend
    if "_swa_kv_pool" not in spec_for(upstream).pool_attrs:
        return upstream

    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool
        return pool if isinstance(pool, sglang().SWAKVPool) else None

    return type(f"PreFix{upstream.__name__}", (upstream,),
                {"_resolve_swa_kv_pool": staticmethod(_resolve_swa_kv_pool)})


def any_backend(cls, model_runner):
    """``construct_backend`` for any class of ``runtime_guard.backends``: where the CPU stops
    the real ``__init__`` before the SWA state, the state this release's ``__init__`` assigns
    is set as upstream computes it, from the runner's active pool (``isinstance(pool,
    SWAKVPool)`` for flags, the pool for pool attributes, its ``full_to_swa_index_mapping``
    for cached mappings). State the release does not keep is never invented."""
    from runtime_guard.backends import spec_for
    from runtime_guard.status import init_assigns

    backend = construct_backend(cls, model_runner)
    state = vars(backend)
    active = model_runner.token_to_kv_pool
    if backend_reads_own_pool():
        state.setdefault("token_to_kv_pool", active)
    swa = active if isinstance(active, sglang().SWAKVPool) else None
    spec = spec_for(cls)
    values = {attr: swa for attr in spec.pool_attrs}
    values.update({attr: swa is not None for attr in spec.flag_attrs})
    mapping = swa.full_to_swa_index_mapping if swa is not None else None
    values.update({attr: mapping for attr in spec.mapping_attrs})
    for attr, value in values.items():
        if attr not in state and init_assigns(cls, attr):  # the release keeps this state
            state[attr] = value
    state.setdefault("req_to_token_pool", model_runner.req_to_token_pool)
    return backend


def fixed_backend_module():
    """``runtime_guard.fixed_backend``, imported after SGLang's CPU-safe import."""
    sglang()
    from runtime_guard import fixed_backend

    return fixed_backend


REPLAY_SEQ = [30, 29]  # 8 + 8 pages of 4 tokens: full-pool pages 1..16; the SWA buffer holds 9


def frozen_kv_draft(backend_class, seq=REPLAY_SEQ):
    """The upstream crash's setting: a hybrid target (real ``SWAKVPool`` + allocator) and a
    FROZEN_KV MTP draft with its own non-SWA pool and a ``backend_class`` backend, primed with
    the decode metadata its ``init_forward_metadata`` would build (an SWA page table only when
    it has an SWA pool). Returns (target pool, draft backend, draft forward batch)."""
    target = swa_pool()
    allocator = swa_allocator(target)
    draft_pool = mha_pool(layer_num=1)
    model_runner = runner(draft_pool, allocator, draft=True, spec="FROZEN_KV_MTP")
    backend = construct_backend(backend_class, model_runner)
    width = max(-(-n // PAGE) for n in seq) + 1
    swa_table = contiguous_page_table(seq, width, first_page=0) % (SIZE_SWA // PAGE + 1)
    has_swa = backend._swa_kv_pool is not None
    metadata(backend, seq, contiguous_page_table(seq, width), swa_table if has_swa else None)
    return target, backend, decode_batch(draft_pool, seq)


def decode_args(batch, layer_id: int):
    """Positional arguments after ``self`` for ``forward_decode``: q, k, v, layer, batch."""
    rows = batch.batch_size
    q = torch.zeros(rows, 2 * 8, dtype=DTYPE)
    k = torch.ones(rows, 1, 8, dtype=DTYPE)
    return q, k, k.clone(), layer(layer_id), batch
