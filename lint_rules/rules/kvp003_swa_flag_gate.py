"""KVP003: control flow gated on a boolean SWA flag instead of the resolved pool object."""
from __future__ import annotations

import ast
import weakref
from textwrap import dedent
from typing import Iterator

from lint_rules.options import Options
from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules._facts import keeps_decision
from lint_rules.rules._fixes import gate_rewrite, merged_fix
from lint_rules.rules._flow import nodes_under, self_attr, swap_check_operands

MESSAGE_LIMIT = 130  # characters: a message reads in one line


# class node -> _swap_checks: asked again by the codemod's same-file lint of the same tree
_SWAP_CHECKS: "weakref.WeakKeyDictionary[ast.ClassDef, frozenset]" = weakref.WeakKeyDictionary()


def _swap_checks(cls_node: ast.ClassDef) -> frozenset:
    """Ids of the nodes inside ``kept is [not] self.token_to_kv_pool``: that decision reads the
    live pool."""
    found = _SWAP_CHECKS.get(cls_node)
    if found is None:
        found = _SWAP_CHECKS[cls_node] = frozenset(
            id(n) for sides in swap_check_operands(cls_node)
            for side in sides for n in nodes_under(side))
    return found


class SwaFlagGate(Rule):
    """Control flow gated on a boolean SWA flag rather than on the resolved pool object.

    What it does:
        Flags ``self.<flag>`` deciding an ``if``/``elif``/``while``/ternary/``assert`` or an
        operand of ``and``/``or``/``not`` in an attention backend (also through a local alias,
        ``has_swa = self.<flag>`` then ``if has_swa:``, and through a same-class helper
        ``self.<helper>()`` that returns such a flag: the message names the helper and the flag,
        and a helper, or a property, that decides on the flag itself is the one finding, not
        its callers), where
        the flag is
        ``use_sliding_window_kv_pool`` (also when it stores a mirror of the pool, as upstream
        0.5.14+ does, unless what it tests is a pool resolved by a resolver of the file that asks
        the allocator: the swap installs that pool, so the mirror is KVP004's; in a package the
        verdict of the base that stores it holds for heirs in other modules; flake8 sees one
        file, so a resolver inherited from another module proves nothing there), a flag stored
        from a type test (KVP002), a runner-level SWA flag copied
        onto the backend (``self.is_hybrid_swa = model_runner.is_hybrid_swa``), or a name given
        with ``--kvp-swa-flags``; also a flag kept in a container (``self.kinds["swa"]``; a dict
        built with constant keys and used only through them holds each key apart, so its
        geometry entry, ``self.kinds["page"]``, decides nothing), a
        record field (``self.layout.enabled``), a class attribute or a module global
        (``global NAME``), read reflectively (``vars(self).get(...)``, ``getattr(self, name)``),
        or used as a lookup key (``names[self.flag]``, ``table.get(self.flag)``), a field of a
        record a factory built from the pool (``self.view.is_swa``), membership in a list a pool
        type test filtered (``layer_id in self.swa_ids``), decisions in code that runs as a
        method (a decorator's wrapper, a class made with ``type()``, ``Cls.method = fn``, a
        memoising descriptor's ``__get__``), the half of a pool decision unpacked into several
        names (``self.on, self.sub = (True, p.swa_kv_pool) if isinstance(...) else (False,
        None)``), a field of a copy of a kept record (``md = dataclasses.replace(self.meta)``,
        ``copy.copy``, ``_replace``), the SWA flag of an inner backend the wrapper holds
        (``self.backend.<flag>``, ``getattr(self.backend, ...)``, ``self.backends[0].<flag>``,
        ``any(b.<flag> for b in self.backends)``: no fix, test the pool it reads; not the steps
        a multi-step draft wrapper builds), and a test of the pool against another
        class (``self.is_mla``, or whether a shard pool is there: no fix, test
        ``self.token_to_kv_pool`` where it is used). A flag made again on every forward in a
        statement that gates a stale flag (``self.use_mha = self.one_shot and ...``) is that
        gate's finding, not a second one. Live state is not a flag: a read-only property
        evaluating the current pool, a flag recomputed
        from ``self.token_to_kv_pool`` on every forward, or a helper whose result depends only
        on its argument, given the live pool (``self._is_swa(self.token_to_kv_pool)``).
        Also flags a decision in any method but ``__init__`` and what it calls on pool state
        kept past the swap (what KVP001 flags: a sub-pool, a mapping, a bound method, a buffer
        picked by a pool test, a ``cached_property``), however it is tested: ``is None``,
        ``callable()``, ``isinstance()``, truthiness, ``x or default``, an element of a kept
        dict, ``in``, a local a helper returned it in or read out of kept state, a module global;
        and a presence test of a buffer that is None unless a kept pool decision allowed it
        (allocated under ``if self.is_swa:`` or a type test of the runner's pool). Not
        the resolved pool attribute, state stored again per forward, a lazy fill's own test, or
        the presence of a helper object or container (its builder decided that, not the pool).
        A gate whose branches make stores of no pool data (zeros buffers, window sizes, env
        values: not KVP001's there) says how many it guards.

    Why is this bad?
        The flag is a second source of truth. Under FROZEN_KV MTP the draft backend's
        ``token_to_kv_pool`` is rebound to the target's SWA pool view on every forward (the
        draft runner's ``is_hybrid_swa`` stays False); EAGLE drafts own a separate full pool. The
        flag and the pool disagree and SWA layers get full-pool indices (illegal memory access).

    Fix safety:
        Safe: the gate becomes ``self.<pool_attr> is not None`` (``--kvp-pool-attr``; ``is None``
        for a negated gate), offered only when that cannot change what it decides: the flag's one
        definition in the file is exactly that test, taken after the pool's last assignment, the
        gate reads it afterwards, and nothing can make the two disagree later (the file never
        deletes either attribute nor writes attributes through ``setattr`` with a computed name,
        ``__dict__`` or ``vars()``; no class of the same-file family holds a descriptor of the
        flag's name or an attribute hook). When a package is linted as a directory, a subclass
        in another module that may bind the flag or the pool attribute declines it too.

        The unsafe fix (``--fix --unsafe-fixes``; without the option the summary counts it as a
        hidden fix) rewrites the whole backend class to the #27491 resolver pattern (the flag's
        store and the resolver: KVP002), and changes behaviour on purpose: every gate on a flag
        becomes ``self.<pool_attr> is not None`` (``is None`` when negated), and in the branch a
        gate guards, ``self.token_to_kv_pool.<x>`` reads the resolved pool's ``<x>``. A gate on a
        flag defined in a same-file base rewrites that base too; a gate in a subclass of a patched
        class in another module keeps working through the property. Declined, finding kept: a
        runner flag copied onto the backend (``self.is_hybrid_swa = model_runner.is_hybrid_swa``:
        the model's flag, true for pools no type test is proven to accept, e.g. DeepSeek-V4's
        ``BaseSWAKVPool``, so a pool test would change what a plain target decides), type flags
        that test the pool differently, a flag that is neither a type flag, exactly the pool
        test nor set in another module (aiter's flag is the pool test and a layer count), and a
        gate that runs before the pool can be resolved. It is offered once per class with
        KVP001-KVP003 findings that these checks accept, applied only if the class compiles and
        re-lints without them, and with ``--unsafe-fixes`` wins over the safe fixes in its class.
    """

    VALID = (
        Valid(
            dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    @property
                    def use_sliding_window_kv_pool(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)  # live

                    def _maybe_translate(self, loc):
                        if self.use_sliding_window_kv_pool:
                            return self.token_to_kv_pool.translate_loc_from_full_to_swa(loc)
                        return loc

                    def _table(self, metadata):
                        # a local named like the flag is not backend state
                        use_sliding_window_kv_pool = metadata.swa_page_table is not None
                        return metadata.swa_page_table if use_sliding_window_kv_pool else None


                class SwaStats:  # not an attention backend: out of scope
                    def __init__(self, model_runner):
                        self.is_hybrid_swa = model_runner.is_hybrid_swa

                    def report(self):
                        return "swa" if self.is_hybrid_swa else "full"
                """
            )
        ),
        Valid(
            dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.use_sliding_window_kv_pool = False

                    def init_forward_metadata(self, forward_batch):
                        pool = self.token_to_kv_pool  # rebound before every forward
                        self.use_sliding_window_kv_pool = isinstance(pool, SWAKVPool)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
                            return self.swa_decode(q, k, v, layer, forward_batch)
                        return self.full_decode(q, k, v, layer, forward_batch)
                """
            )
        ),
        Valid(
            # look-alikes: getattr of a live property, gates on the pool object, a non-pool choice
            dedent(
                """\
                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.layout = "paged" if model_runner.page_size > 1 else "flat"

                    @property
                    def use_sliding_window_kv_pool(self):
                        return self._swa_kv_pool is not None

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        paged = self.layout == "paged"
                        if getattr(self, "use_sliding_window_kv_pool", False) and paged:
                            return self._swa_decode(q, k, v, layer, forward_batch)
                        if isinstance(self._swa_kv_pool, SWAKVPool):
                            return self._swa_decode(q, k, v, layer, forward_batch)
                        return [lid for lid in range(4) if self._swa_kv_pool is not None]
                """
            )
        ),
        Valid(
            # a per-call type test of the live pool through a same-class helper persists nothing
            dedent(
                """\
                class LiveHelperGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    @staticmethod
                    def _is_swa(pool):
                        return isinstance(pool, SWAKVPool)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self._is_swa(self.token_to_kv_pool):
                            return q
                        return k
                """
            )
        ),
        Valid(
            # a helper whose result depends only on its argument, given the live pool, is live
            # (also when __init__ asks it about the runner's pool only to log); lookups keyed by
            # geometry; record fields and module globals that hold geometry
            dedent(
                """\
                _WINDOW = None


                class LiveArgumentHelperBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        global _WINDOW
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.geom = Geometry(window=model_runner.sliding_window_size)
                        _WINDOW = model_runner.sliding_window_size
                        if self._is_swa(model_runner.token_to_kv_pool):
                            logger.info("SWA pool at start")

                    def _is_swa(self, pool):
                        return isinstance(pool, SWAKVPool)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self._is_swa(self.token_to_kv_pool) and self.geom.window > 0:
                            return self.tables[layer.layer_id]
                        return q if _WINDOW else k
                """
            )
        ),
        Valid(
            # look-alikes: a descriptor that tests the pool on every read, a decorator whose
            # wrapper keeps geometry, a function installed later that reads the live pool
            dedent(
                """\
                class LiveFlag:
                    def __get__(self, obj, owner=None):
                        return obj is not None and isinstance(obj.token_to_kv_pool, SWAKVPool)


                def keep_page_size(init):
                    def wrapper(self, model_runner):
                        init(self, model_runner)
                        self.page = model_runner.token_to_kv_pool.page_size
                    return wrapper


                def _metadata(self, forward_batch):
                    if isinstance(self.token_to_kv_pool, SWAKVPool) and self.windowed:
                        forward_batch.page = self.page


                class LiveInstalledBackend(AttentionBackend):
                    windowed = LiveFlag()

                    @keep_page_size
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool


                LiveInstalledBackend.init_forward_metadata = _metadata
                """
            )
        ),
        Valid(
            # look-alike: __getattr__ delegating to the live pool answers for this forward
            dedent(
                """\
                class LiveDelegatingBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    def __getattr__(self, name):
                        if name.startswith("__"):
                            raise AttributeError(name)
                        return getattr(self.token_to_kv_pool, name)

                    def init_forward_metadata(self, forward_batch):
                        if self.is_swa_pool:
                            forward_batch.swa = True
                """
            )
        ),
        Valid(
            # look-alikes: a test of the resolved pool, state decided again on every forward
            # (kept on self there, or returned by a helper reading the live pool)
            dedent(
                """\
                def resolve_swa_kv_pool(runner):
                    if isinstance(runner.token_to_kv_pool, SWAKVPool):
                        return runner.token_to_kv_pool
                    pool = runner.token_to_kv_pool_allocator.get_kvcache()
                    return pool if isinstance(pool, SWAKVPool) else None


                class KeptStateLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = resolve_swa_kv_pool(model_runner)

                    def _live_mapping(self):
                        return getattr(self.token_to_kv_pool, "full_to_swa_index_mapping", None)

                    def init_forward_metadata(self, forward_batch):
                        pool = self.token_to_kv_pool
                        self.swa_view = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
                        if self._swa_kv_pool is not None and self.swa_view is not None:
                            forward_batch.swa = self.swa_view
                        mapping = self._live_mapping()
                        if mapping is not None:
                            forward_batch.map = mapping
                """
            )
        ),
        Valid(
            # look-alikes: the same shapes on live state (unpacked from the pool read per
            # forward, a copy whose flag field is replaced by a live test, a buffer allocated
            # whatever the pool, a dict refilled each forward, the resolved pool attribute)
            dedent(
                """\
                class LiveControlBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.meta = Meta(use_swa=False, window=8)
                        w = model_runner.sliding_window_size
                        self.heads, self.window = (8, w) if w else (8, -1)
                        self.graph_buf = None
                        self.pools = {}

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        self.graph_buf = torch.zeros(max_bs)

                    def memory_pool_bytes(self):
                        return 0 if self._swa_kv_pool is None else 1

                    def init_forward_metadata(self, forward_batch):
                        pool = self.token_to_kv_pool
                        self.pools = {"swa": getattr(pool, "swa_kv_pool", None)}
                        on, sub = (True, pool.swa_kv_pool) if isinstance(
                            pool, SWAKVPool) else (False, None)
                        md = dataclasses.replace(self.meta, use_swa=isinstance(pool, SWAKVPool))
                        live = self.pools.get("swa") if self.heads > 0 else None
                        if on and md.use_swa and live is not None and sub is not None:
                            forward_batch.swa = True
                        if self.graph_buf is not None and self.window > 0:
                            forward_batch.graph = True
                """
            )
        ),
        Valid(
            # decisions on memos keyed by the pool read now: a functools cache called with the
            # pool, a memo refilled whenever the pool object changes
            dedent(
                """\
                class PoolKeyedGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._for, self._sub = None, None

                    @staticmethod
                    @functools.cache
                    def _mapping_of(pool):
                        return getattr(pool, "full_to_swa_index_mapping", None)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        pool = self.token_to_kv_pool
                        if pool is not self._for:
                            self._for = pool
                            self._sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
                        if self._sub is not None and self._mapping_of(pool) is not None:
                            return self._mapping_of(pool)[q]
                        return q
                """
            )
        ),
        Valid(
            # a mirror of a pool resolved through the allocator (flashinfer 0.5.18+, aiter's
            # spelling): the swap installs the very pool it tests (KVP004's, opt-in)
            dedent(
                """\
                class ResolvedMirrorBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.use_sliding_window_kv_pool = (
                            self.swa_kv_pool is not None and self.swa_kv_pool.swa_layer_nums > 0
                        )

                    @staticmethod
                    def _resolve_swa_kv_pool(model_runner):
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return pool if isinstance(pool, SWAKVPool) else None

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.use_sliding_window_kv_pool and layer.sliding_window_size > 0:
                            return self._swa_kv_pool.translate_loc_from_full_to_swa(q)
                        return q
                """
            )
        ),
        Valid(
            # look-alikes of inner-backend gates: an inner of a class of the file whose flag is
            # a live property, the inner's pool tested, the steps of a multi-step draft wrapper
            dedent(
                """\
                class LiveInnerBackend(AttentionBackend):
                    @property
                    def use_sliding_window_kv_pool(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)


                class LiveWrapperBackend(AttentionBackend):
                    def __init__(self, model_runner, backend):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.decode_backend = LiveInnerBackend(model_runner)
                        self.backend = backend

                    def init_forward_metadata(self, forward_batch):
                        self.decode_backend.token_to_kv_pool = self.token_to_kv_pool
                        if self.decode_backend.use_sliding_window_kv_pool:
                            forward_batch.swa = True
                        if isinstance(self.backend.token_to_kv_pool, SWAKVPool):
                            forward_batch.inner_swa = self.backend.sliding_window_size > 0


                class StepsDraftBackend:
                    def __init__(self, model_runner, steps):
                        self.attn_backends = [TritonAttnBackend(model_runner) for _ in range(steps)]

                    def init_forward_metadata(self, forward_batch):
                        if any(b.use_sliding_window_kv_pool for b in self.attn_backends):
                            forward_batch.swa = True
                """
            )
        ),
        Valid(
            # a kept pool (or what a weakref to it gives back) compared by identity with the
            # live pool notices the swap: that decision reads the live pool
            dedent(
                """\
                class NoticesSwapBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._ref = weakref.ref(model_runner.token_to_kv_pool)

                    def init_forward_metadata(self, forward_batch):
                        seen = self._ref()
                        if seen is not self.token_to_kv_pool:
                            logger.debug("pool swapped since construction")
                        if not (self._ref() is self.token_to_kv_pool):
                            forward_batch.rebuild = True
                """
            )
        ),
        Valid(
            # a cache every forward empties (its __dict__ entry popped or deleted, a functools
            # cache cleared) answers for the pool of that forward: a live property
            dedent(
                """\
                class EmptiedCacheBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    @functools.cached_property
                    def window_pool(self):
                        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

                    @functools.cached_property
                    def is_swa(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)

                    @functools.lru_cache(maxsize=None)
                    def _swa_buffer(self, layer_id):
                        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

                    def init_forward_metadata(self, forward_batch):
                        self.__dict__.pop("window_pool", None)
                        try:
                            del self.is_swa
                        except AttributeError:
                            pass
                        type(self)._swa_buffer.cache_clear()

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.window_pool is not None and self.is_swa:
                            return q
                        if self._swa_buffer(layer.layer_id) is not None:
                            return k
                        return v
                """
            )
        ),
    )
    INVALID = (
        Invalid(
            # twin of the swap check: a kept pool tested for None, not against the live pool
            dedent(
                """\
                class KeptPoolNoneBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._kept = model_runner.token_to_kv_pool

                    def init_forward_metadata(self, forward_batch):
                        if self._kept is None:
                            return
                        forward_batch.m = self._kept.full_to_swa_index_mapping
                """
            ),
            expected=((4, "KVP001"), (7, "KVP003")),
        ),
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        super().__init__(model_runner)
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

                    def _maybe_translate(self, loc):
                        if not self.use_sliding_window_kv_pool:
                            return loc
                        return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

                    def _out_cache_loc(self, layer, forward_batch):
                        has_swa = self.use_sliding_window_kv_pool
                        if has_swa and layer.sliding_window_size > 0:
                            return self._maybe_translate(forward_batch.out_cache_loc)
                        assert self.use_sliding_window_kv_pool or layer.sliding_window_size <= 0
                        return forward_batch.out_cache_loc
                """
            ),
            expected=((8, "KVP003"), (14, "KVP003"), (16, "KVP003")),
            fixed=dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        super().__init__(model_runner)
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

                    def _maybe_translate(self, loc):
                        if self._swa_kv_pool is None:
                            return loc
                        return self._swa_kv_pool.translate_loc_from_full_to_swa(loc)

                    def _out_cache_loc(self, layer, forward_batch):
                        has_swa = self._swa_kv_pool is not None
                        if has_swa and layer.sliding_window_size > 0:
                            return self._maybe_translate(forward_batch.out_cache_loc)
                        assert self._swa_kv_pool is not None or layer.sliding_window_size <= 0
                        return forward_batch.out_cache_loc
                """
            ),
        ),
        Invalid(
            dedent(
                """\
                class XPUAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.is_hybrid_swa = model_runner.is_hybrid_swa  # the draft runner's
                        # more than the pool test: a fix would change behaviour, so none
                        self.use_sliding_window_kv_pool = (
                            self._swa_kv_pool is not None and self.is_hybrid_swa
                        )

                    def _uses_swa(self):
                        return self.is_hybrid_swa

                    def page_table(self, metadata):
                        if self.is_hybrid_swa or self._uses_swa():
                            return metadata.swa_page_table
                        return metadata.page_table if not self.use_sliding_window_kv_pool else None
                """
            ),
            # the runner's flag kept on the backend, alone or in another flag, is KVP002 (no fix)
            expected=((4, "KVP002"), (6, "KVP002"), (14, "KVP003"),
                      (16, "KVP003")),
        ),
        Invalid(
            dedent(
                """\
                class AiterAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        # the pool test and more: rewriting the gate would drop the second half
                        self.use_sliding_window_kv_pool = (
                            self.swa_kv_pool is not None and self.swa_kv_pool.swa_layer_nums > 0
                        )

                    def set_kv_buffer(self, layer, loc, k, v):
                        if self.use_sliding_window_kv_pool:
                            loc = self.swa_kv_pool.translate_loc_from_full_to_swa(loc)
                        self.swa_kv_pool.set_kv_buffer(layer, loc, k, v)
                """
            ),
            expected=((10, "KVP003"),),
            options=Options(pool_attr="swa_kv_pool"),
        ),
        Invalid(
            dedent(
                """\
                class DraftBackend(TRTLLMHAAttnBackend):
                    # the flag is defined in a base class in another file: no safe rewrite
                    def page_table(self, metadata):
                        return metadata.swa_page_table if self.has_swa else metadata.page_table
                """
            ),
            expected=((4, "KVP003"),),
            options=Options(swa_flags=("has_swa",)),
        ),
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.pool_ref = self._resolve_swa_kv_pool(model_runner)
                        self.has_swa = self.pool_ref is None
                        self.layout = "full" if (self.has_swa) else "swa"

                    def step(self):
                        while(not self.has_swa):
                            pass
                """
            ),
            expected=((5, "KVP003"), (8, "KVP003")),
            fixed=dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.pool_ref = self._resolve_swa_kv_pool(model_runner)
                        self.has_swa = self.pool_ref is None
                        self.layout = "full" if (self.pool_ref is None) else "swa"

                    def step(self):
                        while(self.pool_ref is not None):
                            pass
                """
            ),
            options=Options(swa_flags=("has_swa",), pool_attr="pool_ref"),
        ),
        Invalid(
            # gates in any form: getattr(self, flag, default), a nested flag, a choice compared, a
            # comprehension filter, match
            dedent(
                """\
                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.meta.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                        self.is_hybrid_swa = model_runner.is_hybrid_swa
                        pool = model_runner.token_to_kv_pool
                        self.layout = "swa" if isinstance(pool, SWAKVPool) else "full"

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if getattr(self, "use_sliding_window_kv_pool", False):
                            return self._swa_decode(q, k, v, layer, forward_batch)
                        if self.meta.is_swa or self.layout == "swa":
                            return self._swa_decode(q, k, v, layer, forward_batch)
                        layers = [lid for lid in range(4) if self.is_hybrid_swa]
                        match self.is_hybrid_swa:
                            case True:
                                return layers
                        return self._decode(q, k, v, layer, forward_batch)
                """
            ),
            expected=((3, "KVP002"), (4, "KVP002"), (6, "KVP002"), (9, "KVP003"), (11, "KVP003"),
                      (13, "KVP003"), (14, "KVP003")),
        ),
        Invalid(
            # a mode picked by a match on the pool's class: every case's store is that decision
            # (a value the test picks, KVP002's; the sub-pool it binds, KVP001's)
            dedent(
                """\
                class MatchModeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        match model_runner.token_to_kv_pool:
                            case SWAKVPool(swa_kv_pool=inner):
                                self.kv_mode = KVMode.SWA
                                self._window_pool = inner
                            case HybridLinearKVPool():
                                self.kv_mode = KVMode.LINEAR
                            case _:
                                self.kv_mode = KVMode.FULL

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        match self.kv_mode:
                            case KVMode.SWA:
                                return q
                        if self.kv_mode == KVMode.SWA:
                            return k
                        return v
                """
            ),
            expected=((5, "KVP002"), (6, "KVP001"), (8, "KVP002"), (10, "KVP002"),
                      (13, "KVP003"), (16, "KVP003")),
        ),
        Invalid(
            # a flag from a same-class helper given the pool, a runner flag copied onto self;
            # gates in an if and a comprehension filter; a buffer made under the copied flag is
            # that gate's finding, as under a type-test flag (logging under the runner flag
            # persists nothing, and a window size is geometry)
            dedent(
                """\
                class DetectHelperBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.model_runner = model_runner
                        self.translating = self._detect_translation(model_runner.token_to_kv_pool)
                        self.is_hybrid_swa = model_runner.is_hybrid_swa
                        self.max_window = model_runner.sliding_window_size or 0
                        if model_runner.is_hybrid_swa:
                            logger.info("hybrid SWA model")

                    def _detect_translation(self, pool):
                        return isinstance(pool, SWAKVPool)

                    def _live_ids(self, ids):
                        return [i for i in ids if self.translating and i >= 0]

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        if self.is_hybrid_swa:
                            self.cuda_graph_swa_page_table = torch.zeros(max_bs)
                """
            ),
            expected=((4, "KVP002"), (5, "KVP002"), (14, "KVP003"), (17, "KVP003")),
        ),
        Invalid(
            # gates on pool-type flags (no SWA rewrite: the message says to test the pool), on
            # flags kept in containers, record fields and module globals, read reflectively, and
            # lookups keyed by a flag
            dedent(
                """\
                _FLAGS = {}


                class ContainerGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.is_mla = isinstance(pool, MLATokenToKVPool)
                        self.kinds = {"swa": isinstance(pool, SWAKVPool)}
                        self.layout = Layout(enabled=isinstance(pool, SWAKVPool), pages=4)
                        _FLAGS["swa"] = isinstance(pool, SWAKVPool)
                        self.names = {True: "swa_page_table", False: "page_table"}

                    def _windowed(self, layer):
                        return self.layout.enabled and layer.sliding_window_size > 0

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        assert self.is_mla or layer.layer_id >= 0
                        if self.kinds["swa"] or self._windowed(layer):
                            return q
                        name = "is_mla"
                        if getattr(self, name) or vars(self).get("is_mla"):
                            return k
                        if _FLAGS.get("swa"):
                            return v
                        return getattr(forward_batch, self.names[self.kinds["swa"]])
                """
            ),
            expected=((8, "KVP001"), (9, "KVP002"), (10, "KVP001"), (11, "KVP002"),
                      (15, "KVP003"), (18, "KVP003"), (19, "KVP003"),
                      (22, "KVP003"), (24, "KVP003"), (26, "KVP003")),
        ),
        Invalid(
            # a flag kept as a class attribute and gated through cls / type(self) / the class;
            # a stored closure that captured the pool at __init__, gated by calling it (one that
            # reads self.token_to_kv_pool when called is live)
            dedent(
                """\
                class ClassFlagBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.token_to_kv_pool = pool
                        type(self).is_swa = isinstance(pool, SWAKVPool)
                        self._is_swa_fn = lambda: isinstance(pool, SWAKVPool)
                        self._live_fn = lambda: isinstance(self.token_to_kv_pool, SWAKVPool)

                    @classmethod
                    def table(cls, meta):
                        return meta.swa_page_table if cls.is_swa else meta.page_table

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self._is_swa_fn() or self._live_fn():
                            return q
                        return v if type(self).is_swa or ClassFlagBackend.is_swa else k
                """
            ),
            expected=((5, "KVP002"), (6, "KVP001"), (11, "KVP003"), (14, "KVP003"),
                      (16, "KVP003")),
        ),
        Invalid(
            # gates on what a factory packed: a field of the record a classmethod builds from
            # the pool, a key of a dict a generator filled under a type test, membership in a
            # list a type test filtered (its elements are layer ids: the choice is the gate)
            dedent(
                """\
                @dataclass
                class PoolView:
                    swa: bool

                    @staticmethod
                    def of(pool):
                        return PoolView(swa=isinstance(pool, SWAKVPool))


                def _sub_pools(pool):
                    if isinstance(pool, SWAKVPool):
                        yield "swa", pool.swa_kv_pool
                    yield "full", pool


                class FactoryGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.view = PoolView.of(pool)
                        self.by_kind = dict(_sub_pools(pool))
                        self.swa_ids = [i for i in range(8) if isinstance(pool, SWAKVPool)]
                        self.all_ids = [i for i in range(8) if i % 2]

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.view.swa:
                            q = q + 1
                        if "swa" in self.by_kind and layer.layer_id not in self.swa_ids:
                            return q
                        return k if layer.layer_id in self.all_ids else v
                """
            ),
            expected=((19, "KVP001"), (20, "KVP001"), (21, "KVP001"), (25, "KVP003"),
                      (27, "KVP003")),
        ),
        Invalid(
            # dispatch through .get() keyed by a stale flag; a subclass that makes the flag a
            # live property fixes itself only: the base's own code still reads what it stored
            dedent(
                """\
                class DispatchBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                        self.impls = {True: self._window, False: self._full}

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        impl = self.impls.get(self.is_swa, self._full)
                        name = {True: "swa"}.get(self.is_swa, "full")
                        return impl(q) if self.is_swa else name


                class LiveDispatchBackend(DispatchBackend):
                    @property
                    def is_swa(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)

                    @is_swa.setter
                    def is_swa(self, value):
                        pass

                    def forward_extend(self, q, k, v, layer, forward_batch):
                        return q if self.is_swa else k
                """
            ),
            expected=((3, "KVP002"), (7, "KVP003"), (8, "KVP003"), (9, "KVP003")),
        ),
        Invalid(
            # a decision on a helper object's attribute reads what its constructor decided
            # from the pool (the helper kept in __init__ is KVP001); its geometry is no flag
            dedent(
                """\
                class _SwaInfo:
                    def __init__(self, pool, window):
                        self.window = window
                        self.enabled = isinstance(pool, SWAKVPool)


                class HelperFlagBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.swa_info = _SwaInfo(model_runner.token_to_kv_pool, 8)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.swa_info.enabled:
                            return q
                        return k if self.swa_info.window > 0 else v
                """
            ),
            expected=((9, "KVP001"), (12, "KVP003")),
        ),
        Invalid(
            # a class made with type() from functions of the module: its methods are a
            # backend's; a wrapper around a per-forward method gates like the method
            dedent(
                """\
                def _init(self, model_runner):
                    self.token_to_kv_pool = model_runner.token_to_kv_pool
                    self.kind = type(model_runner.token_to_kv_pool).__name__


                def _metadata(self, forward_batch):
                    if self.kind == "SWAKVPool":
                        forward_batch.swa = True


                def traced(forward):
                    def wrapper(self, q, k, v, layer, forward_batch):
                        if self.kind.startswith("SWA"):
                            q = q.contiguous()
                        return forward(self, q, k, v, layer, forward_batch)
                    return wrapper


                MadeBackend = type("MadeBackend", (AttentionBackend,),
                                   {"__init__": _init, "init_forward_metadata": _metadata})


                class TracedBackend(MadeBackend):
                    @traced
                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return q
                """
            ),
            expected=((3, "KVP002"), (7, "KVP003"), (13, "KVP003")),
        ),
        Invalid(
            # a module helper the backend hands itself to (window_rows(self)): a decision on
            # backend.flag there is one on the backend's stale flag
            dedent(
                """\
                def window_rows(backend, table):
                    if backend.window_on:
                        return backend.token_to_kv_pool.full_to_swa_index_mapping[table]
                    return table


                class HelperGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.window_on = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

                    def init_forward_metadata(self, forward_batch):
                        forward_batch.rows = window_rows(self, forward_batch.table)
                """
            ),
            expected=((2, "KVP003"), (10, "KVP002")),
        ),
        Invalid(
            # __getattr__ delegating to a pool kept in __init__: a name the class never binds
            # is read off that snapshot (delegating to self.token_to_kv_pool would be live)
            dedent(
                """\
                class DelegatingBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._snapshot = model_runner.token_to_kv_pool
                        self.head_dim = 128

                    def __getattr__(self, name):
                        return getattr(self.__dict__["_snapshot"], name)

                    def init_forward_metadata(self, forward_batch):
                        if self.is_swa_pool and self.head_dim > 64:
                            forward_batch.swa = True
                """
            ),
            expected=((4, "KVP001"), (11, "KVP003")),
        ),
        Invalid(
            # a decision in per-forward code on pool state kept in __init__ (KVP001's), not a
            # boolean: is None, callable(), an element picked with `or`, a local a helper
            # returned it in
            dedent(
                """\
                class KeptStateGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.token_to_kv_pool = pool
                        self.swa_sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
                        self.to_swa = getattr(pool, "translate_loc_from_full_to_swa", None)
                        self.pools = {"swa": getattr(pool, "swa_kv_pool", None)}

                    def _mapping(self):
                        return getattr(self.swa_sub, "full_to_swa_index_mapping", None)

                    def init_forward_metadata(self, forward_batch):
                        if self.swa_sub is not None:
                            forward_batch.swa = True
                        loc = forward_batch.out_cache_loc
                        swa_loc = self.to_swa(loc) if callable(self.to_swa) else loc
                        pool = self.pools["swa"] or self.token_to_kv_pool
                        mapping = self._mapping()
                        if mapping is not None and pool is not None:
                            forward_batch.swa_loc = mapping[swa_loc]
                """
            ),
            expected=((5, "KVP001"), (6, "KVP001"), (7, "KVP001"), (13, "KVP003"),
                      (16, "KVP003"), (17, "KVP003"), (19, "KVP003")),
        ),
        Invalid(
            # control dependence: each name of an unpacked pool decision holds its own
            # position (the bool half is the decision); a copy of a kept record keeps its
            # fields (dataclasses.replace); a buffer allocated only under a stale flag is
            # there exactly when the flag was set; a kept element read into a local; a kept
            # copy tested in a method run at any time; a cached_property keeps its first answer
            dedent(
                """\
                class ControlBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.kv_pool = model_runner.token_to_kv_pool
                        self.on, self.sub = (True, pool.swa_kv_pool) if isinstance(
                            pool, SWAKVPool) else (False, None)
                        self.meta = Meta(use_swa=isinstance(pool, SWAKVPool), window=8)
                        self.pools = {"swa": getattr(pool, "swa_kv_pool", None)}
                        self.graph_buf = None

                    @cached_property
                    def swa_sub(self):
                        return self.token_to_kv_pool.swa_kv_pool

                    def init_cuda_graph_state(self, max_bs, max_num_tokens):
                        if self.on:
                            self.graph_buf = torch.zeros(max_bs)

                    def memory_pool_bytes(self):
                        return 0 if self.kv_pool is None else 1

                    def init_forward_metadata(self, forward_batch):
                        md = dataclasses.replace(self.meta, window=forward_batch.window)
                        sub = self.pools.get("swa") if forward_batch.window > 0 else None
                        if md.use_swa and sub is not None:
                            forward_batch.swa = True
                        if self.graph_buf is not None or self.swa_sub is not None:
                            forward_batch.graph = True
                """
            ),
            expected=((4, "KVP001"), (5, "KVP002"), (5, "KVP001"), (7, "KVP001"), (8, "KVP001"),
                      (12, "KVP001"), (16, "KVP003"), (20, "KVP003"),
                      (25, "KVP003"), (27, "KVP003")),
        ),
        Invalid(
            # a decision on a cached_property or a functools cache keyed by a layer id: their
            # first answer is kept past the swap (a plain property is live)
            dedent(
                """\
                class CachedGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    @functools.cached_property
                    def window_pool(self):
                        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

                    @functools.lru_cache(maxsize=None)
                    def _swa_buffer(self, layer_id):
                        return getattr(self.token_to_kv_pool, "swa_kv_pool", None)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.window_pool is not None:
                            return q
                        if self._swa_buffer(layer.layer_id) is not None:
                            return k
                        return v
                """
            ),
            expected=((6, "KVP001"), (10, "KVP001"), (14, "KVP003"), (16, "KVP003")),
        ),
        Invalid(
            # a cache emptied only where no forward runs (a reset hook nothing calls per
            # forward) or another cache emptied per forward keeps its first answer
            dedent(
                """\
                class HalfEmptiedBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool

                    @functools.cached_property
                    def is_swa(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)

                    def reset_state(self):
                        self.__dict__.pop("is_swa", None)

                    def init_forward_metadata(self, forward_batch):
                        vars(self).pop("plan", None)
                        if self.is_swa:
                            forward_batch.swa = True
                """
            ),
            expected=((6, "KVP002"), (14, "KVP003")),
        ),
        Invalid(
            # a decision on the SWA flag of an inner backend the wrapper holds (handed in or
            # built), in any spelling: getattr, an element of a list or dict, a local, a loop
            # variable; not the steps a multi-step draft wrapper builds (EAGLE's: never swapped)
            dedent(
                """\
                class WrapperBackend(AttentionBackend):
                    def __init__(self, model_runner, backend, backends):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.backend, self.backends = backend, backends

                    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                        inner = self.backend
                        if inner.use_sliding_window_kv_pool or self.backends[0].is_hybrid_swa:
                            return q
                        if getattr(self.backend, "use_sliding_window_kv_pool", False):
                            return k
                        return v if any(b.use_sliding_window_kv_pool for b in self.backends) else q


                class StepsMultiStepDraftBackend:
                    def __init__(self, model_runner, steps):
                        self.attn_backends = [TritonAttnBackend(model_runner) for _ in range(steps)]

                    def init_forward_metadata(self, forward_batch):
                        if self.attn_backends[0].use_sliding_window_kv_pool:
                            forward_batch.swa = True
                """
            ),
            expected=((8, "KVP003"), (10, "KVP003"), (12, "KVP003")),
        ),
        Invalid(
            # twins of the resolved mirror: a "resolver" that reads only the active pool, and
            # a resolved pool a module function rebinds behind the mirror's back
            dedent(
                """\
                class PickedMirrorBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._pick(model_runner)
                        self.window_pool = self._resolve(model_runner)
                        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
                        self.has_swa = self.window_pool is not None

                    @staticmethod
                    def _pick(model_runner):
                        pool = model_runner.token_to_kv_pool
                        return pool if isinstance(pool, SWAKVPool) else None

                    @staticmethod
                    def _resolve(model_runner):
                        return model_runner.token_to_kv_pool_allocator.get_kvcache()

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.use_sliding_window_kv_pool or self.has_swa:
                            return q
                        return k


                def adopt(backend, pool):
                    backend.window_pool = pool
                """
            ),
            expected=((3, "KVP001"), (5, "KVP002"), (18, "KVP003")),
            fixed=dedent(
                """\
                class PickedMirrorBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._pick(model_runner)
                        self.window_pool = self._resolve(model_runner)
                        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None
                        self.has_swa = self.window_pool is not None

                    @staticmethod
                    def _pick(model_runner):
                        pool = model_runner.token_to_kv_pool
                        return pool if isinstance(pool, SWAKVPool) else None

                    @staticmethod
                    def _resolve(model_runner):
                        return model_runner.token_to_kv_pool_allocator.get_kvcache()

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self._swa_kv_pool is not None or self.has_swa:
                            return q
                        return k


                def adopt(backend, pool):
                    backend.window_pool = pool
                """
            ),
            options=Options(swa_flags=("has_swa",)),
        ),
        Invalid(
            # a whole copy of a kept container holds what it held: dict(x), x.copy(), {**x}
            dedent(
                """\
                class ContainerCopyBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.opts = {"swa": isinstance(self.token_to_kv_pool, SWAKVPool)}

                    def init_forward_metadata(self, forward_batch):
                        a, b, c = dict(self.opts), self.opts.copy(), {**self.opts}
                        if a["swa"]:
                            forward_batch.swa = True
                        forward_batch.swa = True if b.get("swa") else c["swa"]
                """
            ),
            expected=((4, "KVP002"), (8, "KVP003"), (10, "KVP003")),
        ),
        Invalid(
            # a flag from a shard pool's presence gates with the pool-type text (never the SWA
            # remedy); a flag made again per forward under that gate is the gate's finding
            dedent(
                """\
                class ShardGateBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self._shard = pool if isinstance(pool, PageInterleaveKVPoolMixin) else None
                        self.one_shot = self._shard is None
                        self.use_mha = False

                    def init_forward_metadata(self, forward_batch):
                        self.use_mha = self.one_shot and forward_batch.extend_num_tokens < 4096
                        if not self.use_mha:
                            forward_batch.mla = True
                """
            ),
            expected=((4, "KVP001"), (5, "KVP001"), (9, "KVP003")),
        ),
        Invalid(
            # a helper deciding on the flag is the one finding (not its callers, line 12); a
            # helper only handing the flag back leaves the decision, and the finding, to the
            # caller (line 14), whose message names the helper and the flag
            dedent(
                """\
                class HelperVerdictBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.window = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

                    def _window_layer(self, layer):
                        return self.window and layer.sliding_window_size > 0

                    def _windowed(self):
                        return self.window

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self._window_layer(layer):
                            return q
                        return k if self._windowed() else v
                """
            ),
            expected=((3, "KVP002"), (6, "KVP003"), (14, "KVP003")),
        ),
    )
    CODE = "KVP003"
    NAME = "swa-flag-gate"
    MESSAGE = "gate on SWA flag {attr}, stale under FROZEN_KV: {test_pool}"

    def _flag(self, cls, gate):
        if gate.kind in ("call", "global"):  # a helper's result, a module global
            return self.facts.call_flag(cls, gate)
        return self.facts.flag(cls, gate.name)

    STATE_MESSAGE = (
        "decision on pool state {attr} kept past the swap, stale under FROZEN_KV: read the pool "
        "per forward"
    )

    SIZE_MESSAGE = (
        "decision on pool capacity {attr} kept past the swap, stale under FROZEN_KV: read the "
        "pool's size per forward"
    )

    HELPER_MESSAGE = (  # (a helper deciding itself is the finding there: not its callers)
        "{attr} returns {flag}, stale under FROZEN_KV: {test_pool} in the helper"
    )

    INNER_MESSAGE = (
        "gate on inner backend flag {attr}, stale as FROZEN_KV MTP swaps pools: test its pool"
    )

    POOL_TYPE_MESSAGE = (
        "gate on pool-type flag {attr}, stale under FROZEN_KV: test self.token_to_kv_pool where "
        "it is used"
    )

    GUARD_MESSAGE = (  # (what it makes there is no pool data: KVP001 leaves it to the gate)
        "SWA flag {attr} gates {stores}, stale under FROZEN_KV: {test_pool}"
    )

    def _guarded(self, cls) -> dict:
        """``id(gate node) -> [store]``: what each gate's branches make that is no pool data
        (not an attribute a store elsewhere keeps as a decision: ``self.unified = True`` under
        the flag, ``= env`` in its else branch, is that store's finding, KVP002's)."""
        found, gates, decided = {}, {}, set()
        for store in cls.stores:
            if store.sink and not store.resolver:
                gates[id(store)] = gate = self.facts.guarding_gate(cls, store)
                if gate is None and keeps_decision(store.bits):
                    decided.add(store.attr)
        for store in cls.stores:
            gate = gates.get(id(store))
            if gate is not None and store.attr not in decided:
                found.setdefault(id(gate.node), []).append(store)
        return found

    def _stale(self, cls, gate, swap_checks: frozenset) -> bool:
        """Whether ``gate`` decides on stale state (a flag, or pool state kept past the swap)."""
        return self._flag(cls, gate) is not None or (
            id(gate.node) not in swap_checks and self.facts.reads_kept_state(cls, gate))

    def _deciding_helpers(self, cls) -> frozenset:
        """Methods of the class's family that decide on stale state themselves, or call one
        that does: that decision is the defect (its finding, and its fix, cover every caller),
        so a caller gating on the helper's result is no second finding."""
        relatives = self.facts.relatives(cls)
        deciding = {gate.method for c in relatives for gate in c.gates
                    if self._stale(c, gate, _swap_checks(c.node))}
        calls: dict = {}
        for c in relatives:
            for method, called in c.calls.items():
                calls.setdefault(method, set()).update(called)
        grew = True
        while grew:  # (a helper returning a deciding helper's result decides through it)
            grew = False
            for method, called in calls.items():
                if method not in deciding and called & deciding:
                    deciding.add(method)
                    grew = True
        return frozenset(deciding)

    def _properties(self, cls) -> frozenset:
        """Properties of the class's family (read like attributes, run like helpers)."""
        return frozenset(name for c in self.facts.relatives(cls) for name in c.properties)

    def _returned_flag(self, cls, helper: str, seen: frozenset = frozenset()) -> str:
        """The stale flag ``self.<helper>()`` hands back (through helpers it returns the result
        of); empty when none is found (a cached type test, a helper of a base in another
        module)."""
        for c in self.facts.relatives(cls):
            method = c.methods.get(helper)
            if method is None or helper in seen:
                continue
            for node in ast.walk(method):
                if not isinstance(node, ast.Return) or node.value is None:
                    continue
                for read in ast.walk(node.value):
                    name = self_attr(read)
                    if name and self.facts.flag(c, name) is not None:
                        return name
                    if isinstance(read, ast.Call) and self_attr(read.func):
                        found = self._returned_flag(cls, self_attr(read.func), seen | {helper})
                        if found:
                            return found
        return ""

    def _remedy(self, cls, names) -> dict:
        """The remedy's fields: the pool test in place of the type test only where a flag joins
        it with other conditions (the bare pool test would drop them)."""
        if any(name and self.facts.joins_conditions(cls, name) for name in names):
            return {"test_pool": self.kept_conditions_remedy(cls.node)}
        return {}

    def check(self) -> Iterator[Report]:
        for cls in self.facts.classes:  # attention backends only: the scope of every rule
            deciding = self._deciding_helpers(cls)
            properties = self._properties(cls)
            gates = [gate for gate in cls.gates  # (a deciding helper's callers: its finding)
                     if gate.name not in deciding or not (
                         gate.kind == "call" or gate.kind in ("attr", "alias")
                         and gate.name in properties)]
            flag_gates = [gate for gate in gates if self._flag(cls, gate)]
            flagged = {gate.node.lineno for gate in flag_gates}
            # (one finding per decision: kept state read in a decision a flag already makes,
            # ``not self.swa or self._mapping is not None``, is that flag's finding)
            decided = {self.facts.decision_of(cls, gate) for gate in flag_gates}
            swap_checks = _swap_checks(cls.node)
            decisions: dict = {}  # (decision, kind) -> [(gate, flag)]: one finding each
            placed: dict = {}  # ((line, column), kind) -> the decision reported there
            for gate in gates:
                flag = self._flag(cls, gate)
                if flag is None:  # (one finding per decision line: a flag gate's fix wins)
                    line = gate.node.lineno
                    if line not in flagged and id(gate.node) not in swap_checks \
                            and self.facts.decision_of(cls, gate) not in decided \
                            and self.facts.reads_kept_state(cls, gate):
                        flagged.add(line)
                        sized = self.facts.reads_kept_size(cls, gate)
                        yield self.report(gate.node, None, cls.node, self.SIZE_MESSAGE if sized
                                          else self.STATE_MESSAGE, attr=_shown(gate))
                    continue
                if self.facts.decides_nothing(cls, gate):
                    continue  # every branch binds the swap point again: nothing goes stale
                if self.facts.stored_decision(cls, gate) is not None:
                    continue  # a stored expression is data: the store's finding says it
                kind = "inner" if flag.inner else "pool_type" if flag.pool_type else "swa"
                key = (self.facts.decision_of(cls, gate), kind)
                # (a helper handed the backend is placed at its call: its own read of the flag
                # and the call answering from it are one decision there, one finding)
                key = placed.setdefault((_at(gate.node), kind), key)
                decisions.setdefault(key, []).append((gate, flag))
            guarded = self._guarded(cls) if decisions else {}
            for (_, kind), gates in decisions.items():
                read = {_at(g.node) for g, _ in gates if g.kind not in _ANSWERS}
                gates = [(g, f) for g, f in gates
                         if g.kind not in _ANSWERS or _at(g.node) not in read]
                yield self._decision(cls, kind, gates, guarded)  # (the flag it reads, named)

    def _decision(self, cls, kind: str, gates: list, guarded: dict) -> Report:
        """One finding for one decision, at its first flag read, naming every flag it reads
        (``if self.unified and self.swa:``) and counting the stores made under it."""
        gates.sort(key=lambda pair: (pair[0].node.lineno, pair[0].node.col_offset))
        names = list(dict.fromkeys(_shown(gate) for gate, _ in gates))
        node = gates[0][0].node
        first = gates[0][0]
        flag = self._returned_flag(cls, first.name) if first.kind in ("attr", "alias") and \
            first.name in self._properties(cls) else ""
        if len(names) == 1 and (first.kind == "call" or flag) and kind == "swa":
            flag = flag or self._returned_flag(cls, first.name)
            remedy = self._remedy(cls, [flag])  # (joined: the flag's own test is the fix)
            template = self.HELPER_MESSAGE.replace(" in the helper", "") if remedy else \
                self.HELPER_MESSAGE
            return self.report(node, None, cls.node, template, attr=names[0],
                               flag=f"SWA flag self.{flag}" if flag else "an SWA verdict", **remedy)
        if kind != "swa":  # no SWA rewrite may replace an inner's or another pool class's test
            template = self.INNER_MESSAGE if kind == "inner" else self.POOL_TYPE_MESSAGE
            return self._fitted(node, None, cls, template, names)
        fixes = [gate_rewrite(self.facts, cls, gate, flag) for gate, flag in gates]
        made = [s for gate, _ in gates for s in guarded.get(id(gate.node), ())]
        stores = "a store" if len(made) == 1 else f"{len(made)} stores"
        remedy = self._remedy(cls, [g.name for g, _ in gates if g.kind in ("attr", "alias")])
        return self._fitted(node, merged_fix(fixes), cls, self.GUARD_MESSAGE if made else
                            self.MESSAGE, names, stores=stores, **remedy)

    def _fitted(self, node, fix, cls, template: str, names: list, **fields) -> Report:
        """The report naming every flag (``self.a and self.b``) when that fits a line, else the
        first and how many more; a name too long for the line loses its ``self.``."""
        if len(names) > 1:
            template = template.replace("flag {attr}", "flags {attr}").replace(" gates ", " gate ")
        shown = (" and ".join(names), f"{names[0]} (+{len(names) - 1} more)",
                 f"{names[0].removeprefix('self.')} (+{len(names) - 1} more)")
        for attr in shown[:1] if len(names) == 1 else shown:
            report = self.report(node, fix, cls.node, template, attr=attr, **fields)
            if len(report.message) <= MESSAGE_LIMIT:
                return report
        attr = shown[0 if len(names) == 1 else 2].replace("self.", "", 1)
        return self.report(node, fix, cls.node, template, attr=attr, **fields)


def _shown(gate) -> str:
    """How a message names what a gate reads."""
    return {"call": f"self.{gate.name}()", "global": gate.name,
            "local": gate.name}.get(gate.kind, f"self.{gate.name}")


_ANSWERS = ("call", "global")  # gates on what a helper answers


def _at(node: ast.AST) -> tuple:
    return node.lineno, node.col_offset
