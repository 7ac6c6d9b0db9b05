"""A trtllm MHA backend whose SWA state cannot go stale (design §3).

Upstream ``TRTLLMHAAttnBackend`` decides once, in ``__init__``, which SWA pool to translate
page ids against and keeps a separate boolean flag beside it. Both go wrong when the pool a
launch reads differs from the pool seen at construction (FROZEN_KV MTP drafts swap in the
target's pool per forward; EAGLE drafts own a non-SWA pool but share the target allocator).
This subclass resolves the pool the way upstream PR #27491 does and derives the flag from the
pool on every read. Importing this module imports SGLang's backend module.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional

from runtime_guard.checks import facts_of, record_runner, runner_facts
from runtime_guard.fix import resolve_swa_pool

# Reached through the module object: a HookRegistry REPLACE later rebinds the module's
# class names (to these classes) and any stale global alias with them.
_upstream = importlib.import_module("sglang.srt.layers.attention.trtllm_mha_backend")


class FixedTRTLLMHAAttnBackend(_upstream.TRTLLMHAAttnBackend):
    """``TRTLLMHAAttnBackend`` with PR #27491 pool resolution and a derived SWA flag."""

    def __init__(self, model_runner: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(model_runner, *args, **kwargs)
        # SGLang <= 0.5.12 resolves from the allocator after its base __init__ and never
        # calls _resolve_swa_kv_pool; resolving again here makes every version agree.
        record_runner(self, model_runner)
        self._swa_kv_pool = resolve_swa_pool(model_runner.token_to_kv_pool, runner_facts(self))

    @staticmethod
    def _resolve_swa_kv_pool(model_runner: Any) -> Optional[Any]:
        """The SWA pool whose full->SWA mapping matches the pool launches read, or None:
        the active pool if it is an SWA pool; None for a draft worker with its own pool
        (unless FROZEN_KV MTP, whose draft reads the target's pool); else the allocator's pool
        when that is an SWA pool. The same resolver the plugin's fix uses for every backend."""
        return resolve_swa_pool(model_runner.token_to_kv_pool, facts_of(model_runner))

    @property
    def use_sliding_window_kv_pool(self) -> bool:
        """Derived from the pool on every read, so it cannot disagree with ``_swa_kv_pool``."""
        return getattr(self, "_swa_kv_pool", None) is not None

    @use_sliding_window_kv_pool.setter
    def use_sliding_window_kv_pool(self, value: bool) -> None:
        # Inherited __init__ code assigns its own flag; ignoring the assignment keeps the
        # pool object the single source of truth.
        pass


class FixedTRTLLMHAAttnMultiStepDraftBackend(_upstream.TRTLLMHAAttnMultiStepDraftBackend):
    """Multi-step draft backend whose per-step backends are ``FixedTRTLLMHAAttnBackend``."""

    def __init__(self, model_runner: Any, topk: int, speculative_num_steps: int) -> None:
        super().__init__(model_runner, topk, speculative_num_steps)
        # With the plugin's REPLACE applied, upstream __init__ already built fixed step
        # backends; rebuild only those that are not.
        for step in range(self.speculative_num_steps - 1):
            if not isinstance(self.attn_backends[step], FixedTRTLLMHAAttnBackend):
                self.attn_backends[step] = FixedTRTLLMHAAttnBackend(
                    model_runner,
                    skip_prefill=True,
                    kv_indptr_buf=self.kv_indptr[step],
                    kv_last_page_len_buf=self.kv_last_page_len,
                    speculative_step_id=step,
                )
