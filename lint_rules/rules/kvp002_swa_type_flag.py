"""KVP002: a boolean SWA flag decided once from a pool or allocator type."""
from __future__ import annotations

from textwrap import dedent
from typing import Iterator

from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules._facts import (
    is_chosen_verdict,
    is_flag_table,
    is_named_swa_test,
    joins_other_conditions,
    shown_sink,
)
from lint_rules.rules._fixes import property_fix
from lint_rules.rules._flow import GATED, KIND, RECORD, TYPE, is_runner_copy


class SwaTypeFlag(Rule):
    """A boolean SWA flag decided once from a pool or allocator type: a second source of truth.

    What it does:
        Flags, in an attention backend, ``self.<flag>`` stored outside a per-forward method whose
        value is decided by a type test: ``isinstance(x, <name containing SWA>)``,
        ``type(x) is <SWA name>``, ``type(x).__name__ == "SWAKVPool"``, a duck test such as
        ``hasattr(pool, "translate_loc_from_full_to_swa")`` or
        ``getattr(pool, "full_to_swa_index_mapping", None) is not None`` — directly, through
        locals, tuple unpacking, the walrus operator, ``setattr``, a same-class helper that
        returns the test, a function of the module, a ``functools.cached_property``, or
        ``True``/``False`` stored under such a test or under another stale flag (control
        dependence; such a second-order flag, or one computed from a stale flag, is decided by
        the pool type through that flag, and its message names the flag it is set from); a
        helper's test written with ``try``/``except``, ``hasattr`` or ``getattr(..., None)`` and
        early returns counts the same. A value such a test picks is its verdict spelled
        otherwise and is flagged too, with no fix (no property over the pool can stand for
        it): ``"swa" if hasattr(pool, "swa_kv_pool") else "full"``, an enum member or class
        constant chosen in a branch or a ``match`` on the pool, a helper returning one
        (``_classify(pool)``), a method looked up by a name it picked (``getattr(self,
        IMPLS[kind])``), what an SWA-only attribute read with a default answers
        (``getattr(pool, "swa_layer_nums", None)``). A dict, list, tuple or set of such tests
        kept whole (per layer or per compression ratio: ``{i: isinstance(p, SWAKVPool) for i,
        p in enumerate(pools)}``, or filled in a loop, also with the values such a test picks:
        ``cls.kinds[lid] = classify(pool)``) is a table of such flags, flagged too, with no
        fix (no property over the pool is a table); one also holding a sub-pool keeps pool
        state (KVP001's). A flag named for SWA (``self.sliding_pool_active``) kept from a
        pool test of no SWA class or attribute (``hasattr(pool, "full_kv_pool")``, which every
        split pool passes, a hybrid linear one too) stands for the SWA decision its name says,
        and is flagged with no fix (the resolved SWA pool is not what its test tests). A
        runner-level SWA flag kept
        on the backend (``self.is_hybrid_swa = model_runner.is_hybrid_swa``, also through
        ``getattr`` or the model config; a runner flag of any name the module uses as one,
        reading the built pool's SWA state where it holds: SGLang 0.5.5's ``if
        self.is_hybrid: self.m = model_runner.token_to_kv_pool.full_to_swa_index_mapping``)
        is flagged too, with no fix: it describes the draft
        runner's model, which the FROZEN_KV MTP pool swap never updates, and a property over the
        pool would change what it means; gate on ``self.<pool_attr>`` where it is read. A flag
        recomputed from ``self.token_to_kv_pool`` on every forward (``init_forward_metadata``) is
        live, and not flagged. An inner backend's SWA flag copied outside per-forward code
        (``self.x = self.decode_backend.use_sliding_window_kv_pool``, the inner built here) is
        flagged too: the copy keeps what the inner held then (its pool copied so is KVP001).
        Not a test of whether a pool a non-SWA type test picked is there (``self.needs_cpu_seq_lens
        = self._kv_shard_pool is not None``, a page-interleaved shard pool): that decides
        another pool class, KVP001's pool-type finding, and the SWA remedy would be wrong.
        A flag joining its type test with another condition (``isinstance(pool, SWAKVPool) and
        self.window > 0``) is told to test the pool in place of its type test only: the pool
        test alone would drop the window (no safe fix is offered for it).

    Why is this bad?
        The flag answers "is this an SWA backend?" once, from whatever pool was active then,
        while the kernels index the pool of each forward. Under FROZEN_KV MTP the draft
        backend's ``token_to_kv_pool`` is rebound to the target's SWA pool view; EAGLE drafts
        own a separate full pool. The flag and the pool disagree and SWA layers get full-pool
        indices (illegal memory access).

    Fix safety:
        Safe: the flag becomes a read-only property ``self.<pool_attr> is not None``
        (``--kvp-pool-attr``) with a setter that ignores writes, so readers and writers in other
        files keep working. It is offered only where the file proves that the module still imports
        and the flag still reads what the pool implies: the class resolves that attribute and
        assigns the flag once, alone, from a side-effect-free bool, not before the pool exists; the
        class and its same-file subclasses bind no class attribute of that name, and no class of its
        same-file family has ``__slots__``, a metaclass, a class decorator, a record base or an
        attribute hook (``__getattr__``, ``__setattr__``...); the file never deletes the flag,
        probes it with ``hasattr`` or a defaulted ``getattr``, reads it from the class object, or
        writes attributes through ``setattr`` with a computed name, ``__dict__`` or ``vars()``.
        Otherwise the finding is shown without ``[*]``. When a package is linted as a directory,
        another module that may bind the name or the pool attribute on the class's objects
        declines the fix too, however it reaches the class (imported, importing it, through a
        re-export or a star import: tied to the module of the class or of a relative, one
        spelling a name the other defines or its module name): one that stores or deletes it on
        another object than a method's own in any form (an assignment, an unpacking, a loop or
        ``with`` target: a builder, a decorator, a helper handed the backend), passes it as a
        keyword to ``replace`` or ``update`` or names it in a string; a heir, a base or a mixin
        of the class or of a heir that binds it on its own objects or as a class attribute or
        field; a heir writing attributes by a computed name. It could read or shadow the
        property, or re-resolve the pool the property reads. Files named one by one, and
        flake8, see only themselves.

        The unsafe fix (``--fix --unsafe-fixes``; without the option the summary counts it as a
        hidden fix) rewrites the whole backend class to the #27491 resolver pattern, and changes
        behaviour on purpose (a FROZEN_KV MTP draft becomes SWA-aware): the store becomes
        ``self.<pool_attr> = self._resolve_swa_kv_pool(model_runner)``, placed before the first
        statement that needs the pool; a static ``_resolve_swa_kv_pool`` is added when the class
        has none (the active pool when the flag's own test accepts it, that test lifted from the
        flag with conditions such as ``swa_layer_nums > 0``; ``None`` for a draft that is not
        FROZEN_KV MTP; else the allocator's ``get_kvcache()`` pool, tolerating allocators without
        it); a flag that tested the allocator's type uses ``isinstance(pool, SWAKVPool)``, its
        import added. The flag becomes a read-only property of the pool without a setter (a write
        from another module would raise). Declined, finding kept: a flag that also depends on a
        local, a parameter or ``self``; set twice, deleted, in a nested block or beside another
        statement on its line; ``__slots__`` or a class attribute of its name; a helper without
        the model runner, or one that rebinds it; an existing resolver whose pool is not kept.
        With ``--unsafe-fixes`` that rewrite wins over the safe fix in its class.
    """

    VALID = (
        Valid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        # a type test that is not about SWA is fine
                        self.paged = isinstance(model_runner.token_to_kv_pool_allocator, Paged)

                    @property
                    def use_sliding_window_kv_pool(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)  # live

                    def init_forward_metadata(self, forward_batch):
                        # decided again from the rebound pool on every forward
                        self.is_swa = hasattr(self.token_to_kv_pool, "full_to_swa_index_mapping")
                        if self.is_swa and self.use_sliding_window_kv_pool:
                            self.metadata = build_swa_metadata(forward_batch)
                """
            )
        ),
        Valid(
            # look-alikes: type tests of non-pools, match/try on other things, a gate on the pool
            # object, a test decided again per forward
            dedent(
                """\
                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.is_module = isinstance(model_runner.model, torch.nn.Module)
                        match model_runner.server_args.attention_backend:
                            case "fa3":
                                self.fast = True
                        try:
                            import flashinfer  # noqa: F401
                        except ImportError:
                            self.has_flashinfer = False
                        else:
                            self.has_flashinfer = True
                        if self._swa_kv_pool is not None:
                            self.swa_ready = True

                    def init_forward_metadata(self, forward_batch):
                        self.swa_now = isinstance(self.token_to_kv_pool, SWAKVPool)
                """
            )
        ),
        Valid(
            # look-alikes: a detecting helper given the live pool per forward, logging under the
            # runner flag, the resolved pool's own test, a window size from the runner
            dedent(
                """\
                class DetectLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.window = model_runner.sliding_window_size
                        if model_runner.is_hybrid_swa:
                            logger.info("hybrid SWA model")

                    def _detect(self, pool):
                        try:
                            pool.translate_loc_from_full_to_swa
                        except AttributeError:
                            return False
                        return True

                    def init_forward_metadata(self, forward_batch):
                        self.translating = self._detect(self.token_to_kv_pool)
                """
            )
        ),
        Valid(
            # not backends: the model runner (it creates the pool a swap rebinds on its
            # backends; its forward runs the model on a batch, not one layer) and a unittest case
            dedent(
                """\
                class ModelRunner:
                    def __init__(self, model_config):
                        self.is_hybrid_swa = model_config.is_hybrid_swa

                    def init_memory_pool(self):
                        if self.is_hybrid_swa:
                            self.token_to_kv_pool = SWAKVPool(size=1, size_swa=1)

                    def forward_decode(self, forward_batch, skip_attn_backend_init=False):
                        return self.model.forward(forward_batch.input_ids, forward_batch)


                class PoolOwner:
                    def __init__(self, model_config):
                        self.is_hybrid_swa = model_config.is_hybrid_swa
                        self.token_to_kv_pool_allocator = SWATokenToKVPoolAllocator(size=1)

                    def init_forward_metadata(self, forward_batch):
                        if self.is_hybrid_swa:
                            self.metadata = forward_batch


                class TestSWABackend(CustomTestCase):
                    def setUp(self):
                        self.is_swa = isinstance(self.model_runner.token_to_kv_pool, SWAKVPool)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        return q if self.is_swa else k
                """
            )
        ),
        Valid(
            # look-alikes: an inner backend's geometry, and its pool read and tested when used
            # (its SWA flag tested instead is the inner's decision: KVP003)
            dedent(
                """\
                class ReadsInnerBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.decode_backend = TritonAttnBackend(model_runner)
                        self.page_size = self.decode_backend.page_size

                    def init_forward_metadata(self, forward_batch):
                        self.decode_backend.token_to_kv_pool = self.token_to_kv_pool
                        pool = self.decode_backend.token_to_kv_pool
                        forward_batch.pool = pool if isinstance(pool, SWAKVPool) else None
                """
            )
        ),
        Valid(
            # an SWA type test of something that is not a pool: a model layer's class
            dedent(
                """\
                class LayerKindBackend(AttentionBackend):
                    def __init__(self, model_runner, layers):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.first_is_swa = isinstance(layers[0], SWAAttention)
                        if isinstance(layers[-1], (SWAAttention, FullAttention)):
                            self.kind = "swa"

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.kind == "swa" or self.first_is_swa:
                            return q
                        return k
                """
            )
        ),
        Valid(
            # look-alikes: a lambda given geometry or a non-pool, rebound to a non-function,
            # or called on the live pool per forward
            dedent(
                """\
                class LambdaLookalikeBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        size = lambda pool: pool.page_size  # noqa: E731
                        self.page = size(model_runner.token_to_kv_pool)
                        is_swa = lambda pool: isinstance(pool, SWAKVPool)  # noqa: E731
                        self.module_swa = is_swa(model_runner.model)

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        is_swa = lambda pool: isinstance(pool, SWAKVPool)  # noqa: E731
                        if is_swa(self.token_to_kv_pool):
                            return self.page
                """
            )
        ),
    )
    INVALID = (
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        if model_runner.is_draft_worker:
                            self.use_swa = isinstance(
                                model_runner.token_to_kv_pool_allocator, SWATokenToKVPoolAllocator
                            )

                    def table(self, meta):
                        return meta.swa_page_table if self.use_swa else meta.page_table
                """
            ),
            expected=((5, "KVP002"), (10, "KVP003")),
            fixed=dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        if model_runner.is_draft_worker:
                            pass

                    @property
                    def use_swa(self):
                        \"\"\"Read-only view of the resolved pool: it cannot disagree with it.\"\"\"
                        return getattr(self, "_swa_kv_pool", None) is not None

                    @use_swa.setter
                    def use_swa(self, value):
                        pass  # code that still assigns the flag is ignored: the pool decides

                    def table(self, meta):
                        return meta.swa_page_table if self.use_swa else meta.page_table
                """
            ),
        ),
        Invalid(
            dedent(
                """\
                class DemoBackend(FlashAttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.a, self.b = type(pool).__name__ == "SWAKVPool", 0
                        self.c = getattr(pool, "full_to_swa_index_mapping", None) is not None
                        if (duck := hasattr(pool, "translate_loc_from_full_to_swa")):
                            setattr(self, "d", duck)
                        self.e = self._detect(pool)

                    def _detect(self, pool):
                        return type(pool) is SWAKVPool and pool.swa_layer_nums > 0

                    @functools.cached_property
                    def f(self):
                        return isinstance(self.token_to_kv_pool, SWAKVPool)
                """
            ),
            expected=((4, "KVP002"), (5, "KVP002"), (7, "KVP002"), (8, "KVP002"),
                      (14, "KVP002")),
        ),
        Invalid(
            dedent(
                """\
                def _is_swa_pool(pool):
                    return isinstance(pool, SWAKVPool)


                class NewAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.has_swa = _is_swa_pool(model_runner.token_to_kv_pool)
                        # set under a type test: the flag carries the test
                        if isinstance(model_runner.token_to_kv_pool, SWAKVPool):
                            self.swa_mode = True
                            self.buffers = make_buffers()  # not a flag
                """
            ),
            expected=((7, "KVP002"), (10, "KVP002")),
        ),
        Invalid(
            # type tests in any form: a name bound to a tuple, any(), type-name tests, __class__,
            # match class patterns, try/except duck tests, loops over pool state
            dedent(
                """\
                SWA_POOLS = (SWAKVPool,)


                class FormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.by_tuple = isinstance(pool, SWA_POOLS)
                        self.by_any = any(isinstance(pool, t) for t in SWA_POOLS)
                        self.by_name = type(pool).__name__.startswith("SWA")
                        self.by_class = pool.__class__ is SWAKVPool
                        match pool:
                            case SWAKVPool():
                                self.matched = True
                            case _:
                                self.matched = False
                        try:
                            pool.translate_loc_from_full_to_swa
                        except AttributeError:
                            self.duck = False
                        else:
                            self.duck = True
                        for _, (_, is_swa) in pool.layers_mapping.items():
                            if is_swa:
                                self.has_swa_layers = True
                """
            ),
            expected=((7, "KVP002"), (8, "KVP002"), (9, "KVP002"), (10, "KVP002"), (13, "KVP002"),
                      (15, "KVP002"), (19, "KVP002"), (21, "KVP002"), (24, "KVP002")),
        ),
        Invalid(
            # negated flags: the property would read the opposite, so no safe fix is offered
            dedent(
                """\
                class NegatedFlagBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.is_plain = not isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                        full = self.token_to_kv_pool.__class__ is not SWAKVPool
                        self.full_only = full
                        if isinstance(model_runner.token_to_kv_pool, SWAKVPool):
                            self.needs_full_table = False

                    @staticmethod
                    def _resolve_swa_kv_pool(model_runner):
                        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                        return pool if isinstance(pool, SWAKVPool) else None
                """
            ),
            expected=((5, "KVP002"), (7, "KVP002"), (9, "KVP002")),
        ),
        Invalid(
            # helpers whose result is a duck test: try/except, hasattr with early returns,
            # callable(getattr(..., None)), a module function; runner flags kept on the backend
            # (no safe fix: a pool property would change their meaning); a flag set under a
            # stale flag; a module global
            dedent(
                """\
                _SWA = None


                def _translates(pool):
                    fn = getattr(pool, "translate_loc_from_full_to_swa", None)
                    if fn is None:
                        return False
                    return True


                class DetectHelperFormsBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        global _SWA
                        pool = model_runner.token_to_kv_pool
                        self.a = self._by_try(pool)
                        self.b = self._by_hasattr(pool)
                        self.c = callable(getattr(pool, "translate_loc_from_full_to_swa", None))
                        self.d = _translates(pool)
                        self.is_hybrid_swa = model_runner.is_hybrid_swa
                        self.hybrid = getattr(model_runner.model_config, "is_hybrid_swa", False)
                        if self.a:
                            self.unified = True
                        _SWA = isinstance(pool, SWAKVPool)

                    def _by_try(self, pool):
                        try:
                            pool.full_to_swa_index_mapping
                        except AttributeError:
                            return False
                        return True

                    def _by_hasattr(self, pool):
                        if not hasattr(pool, "swa_kv_pool"):
                            return False
                        return True
                """
            ),
            expected=((15, "KVP002"), (16, "KVP002"), (17, "KVP002"), (18, "KVP002"),
                      (19, "KVP002"), (20, "KVP002"), (21, "KVP003"), (22, "KVP002"),
                      (23, "KVP002")),
        ),
        Invalid(
            # code that runs as a method without being one: the wrapper a decorator of the
            # module puts in place of __init__, a descriptor's __get__ that memoises its first
            # answer into the instance (its obj is the backend), a function assigned later
            dedent(
                """\
                def keep_kind(init):
                    def wrapper(backend, model_runner):
                        init(backend, model_runner)
                        backend.swa_now = hasattr(model_runner.token_to_kv_pool, "swa_kv_pool")
                    return wrapper


                class Memo:
                    def __set_name__(self, owner, name):
                        self.key = name

                    def __get__(self, obj, owner=None):
                        obj.__dict__[self.key] = isinstance(obj.token_to_kv_pool, SWAKVPool)
                        return obj.__dict__[self.key]


                def _graph_state(self, max_bs, max_num_tokens):
                    self.graph_swa = isinstance(self.token_to_kv_pool, SWAKVPool)


                class InstalledBackend(AttentionBackend):
                    windowed = Memo()

                    @keep_kind
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool


                InstalledBackend.init_cuda_graph_state = _graph_state
                """
            ),
            expected=((4, "KVP002"), (18, "KVP002"), (22, "KVP002")),
        ),
        Invalid(
            # backends by protocol alone: a per-layer method taking the layer, a metadata
            # method (its pool is read off the runner, not created here)
            dedent(
                """\
                class DllmFlashAttention:
                    def __init__(self, model_runner):
                        self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

                    def forward_extend(self, layer, q, k, v, forward_batch):
                        return q


                class MetadataOnly:
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = PoolView(model_runner.token_to_kv_pool)
                        self.is_swa = isinstance(self.token_to_kv_pool, SWAKVPool)

                    def init_forward_metadata(self, forward_batch):
                        return forward_batch
                """
            ),
            expected=((3, "KVP002"), (11, "KVP001"), (12, "KVP002")),
        ),
        Invalid(
            # another backend's SWA flag and pool, copied from an inner backend built here:
            # what it held when copied, whatever the wrapper hands it later
            dedent(
                """\
                class CopiesInnerBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.decode_backend = prefill or TritonAttnBackend(model_runner)
                        self.inner_is_swa = self.decode_backend.use_sliding_window_kv_pool
                        self.inner_pool = self.decode_backend.token_to_kv_pool

                    def init_forward_metadata(self, forward_batch):
                        self.decode_backend.token_to_kv_pool = self.token_to_kv_pool
                        if self.inner_is_swa:
                            forward_batch.swa = True
                """
            ),
            expected=((5, "KVP002"), (6, "KVP001"), (10, "KVP003")),
        ),
        Invalid(
            # pool helpers bound in __init__: a lambda bound to a local is followed like a
            # nested def, with positional or keyword arguments
            dedent(
                """\
                class LambdaHelperBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        is_swa = lambda pool: isinstance(pool, SWAKVPool)  # noqa: E731
                        has_map = lambda p: hasattr(p, "full_to_swa_index_mapping")  # noqa: E731
                        self.swa = is_swa(model_runner.token_to_kv_pool)
                        self.mapped = has_map(p=model_runner.token_to_kv_pool)
                """
            ),
            expected=((5, "KVP002"), (6, "KVP002")),
        ),
        Invalid(
            # a value the test picks is its verdict: a string key, an enum member, a helper's
            # answer, a match on the pool (no fix: no boolean over the pool stands for it)
            dedent(
                """\
                def pool_kind(pool):
                    match pool:
                        case SWAKVPool():
                            return "windowed"
                    return "flat"


                class PickedVerdictBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self.kernel = "swa" if hasattr(pool, "swa_kv_pool") else "full"
                        self.layout = Layout.SPLIT if isinstance(pool, SWAKVPool) else Layout.FLAT
                        self.kind = pool_kind(pool)
                """
            ),
            expected=((11, "KVP002"), (12, "KVP002"), (13, "KVP002")),
        ),
        Invalid(
            # a method looked up by a name a pool type test picked: which one is bound is
            # that test's verdict, kept (no fix: no property over the pool is a method)
            dedent(
                """\
                STEPS = {True: "_swa_step", False: "_full_step"}


                class PickedMethodBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                        self.step = getattr(self, STEPS[swa])

                    def _swa_step(self, q):
                        return q

                    def _full_step(self, q):
                        return q
                """
            ),
            expected=((7, "KVP002"),),
        ),
        Invalid(
            # a table of SWA type tests, per layer or per ratio (a comprehension, a loop's
            # fill): each entry a flag decided once (no fix); each lookup of it a gate
            dedent(
                """\
                class LayerTableBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pools = model_runner.token_to_kv_pool.pools
                        self.by_layer = {i: isinstance(p, SWAKVPool) for i, p in enumerate(pools)}
                        self.by_ratio = {}
                        for ratio, sub in model_runner.token_to_kv_pool.by_ratio.items():
                            self.by_ratio[ratio] = hasattr(sub, "swa_kv_pool")

                    def forward_decode(self, q, k, v, layer, forward_batch):
                        if self.by_layer[layer.layer_id]:
                            return q
                """
            ),
            expected=((4, "KVP002"), (7, "KVP002"), (10, "KVP003")),
        ),
        Invalid(
            # the presence of a pool a non-SWA type test picked (a page-interleaved shard pool)
            # decides another pool class: KVP001's pool-type finding, never the SWA flag; the
            # same presence test of an SWA sub-pool is the SWA flag
            dedent(
                """\
                def shard_pool(pool):
                    return pool if isinstance(pool, PageInterleaveKVPoolMixin) else None


                class ShardFlagBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        self._kv_shard_pool = shard_pool(pool)
                        self.needs_cpu_seq_lens = self._kv_shard_pool is not None
                        self.one_shot = model_runner.dcp_size == 1 and not self._kv_shard_pool
                        self._sub = pool.swa_kv_pool if isinstance(pool, SWAKVPool) else None
                        self.has_swa = self._sub is not None
                """
            ),
            expected=((8, "KVP001"), (9, "KVP001"), (10, "KVP001"), (11, "KVP001"),
                      (12, "KVP002")),
        ),
        Invalid(
            # the resolver's name on a pick of the pool of the moment (no allocator asked):
            # a mirror of it keeps that type test's verdict
            dedent(
                """\
                class ActivePickBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.swa_enabled = self._swa_kv_pool is not None

                    @staticmethod
                    def _resolve_swa_kv_pool(model_runner):
                        pool = model_runner.token_to_kv_pool
                        return pool if isinstance(pool, SWAKVPool) else None
                """
            ),
            expected=((3, "KVP001"), (4, "KVP002")),
        ),
        Invalid(
            # a flag handed up a chain of constructors through **kwargs (each base's
            # super().__init__ runs the next base's), kept by the last one that names it
            dedent(
                """\
                class KwargsRoot(AttentionBackend):
                    def __init__(self, model_runner, **kwargs):
                        self.token_to_kv_pool = model_runner.token_to_kv_pool
                        self.use_swa = kwargs.get("use_swa", False)
                        self.window = kwargs.get("window", 0)


                class KwargsMiddle(KwargsRoot):
                    def __init__(self, model_runner, **kwargs):
                        super().__init__(model_runner, **kwargs)


                class KwargsLeaf(KwargsMiddle):
                    def __init__(self, model_runner):
                        pool = model_runner.token_to_kv_pool
                        super().__init__(model_runner, use_swa=isinstance(pool, SWAKVPool),
                                         window=8)
                """
            ),
            expected=((16, "KVP002"),),
        ),
    )
    CODE = "KVP002"
    NAME = "swa-type-flag"
    MESSAGE = (
        "{subject} tests the pool type once, stale under FROZEN_KV: {test_pool}"
    )

    # (no type test of its own: made from a stale flag, in its value or by a branch of it)
    DERIVED_MESSAGE = (
        "{subject} is set from flag self.{flag}, stale under FROZEN_KV: make it a property"
    )

    # (a value picked by the test: "swa" / "full", an enum member, a strategy's name)
    CHOSEN_MESSAGE = (
        "{subject} is picked by a pool type test once, stale under FROZEN_KV: {test_pool}"
    )

    # (a dict, list, tuple or set of type-test verdicts: per layer, per ratio)
    TABLE_MESSAGE = (
        "{subject} keeps pool type tests made once, stale under FROZEN_KV: {test_pool}"
    )

    # (a test of the pool attribute where the class keeps the pool of the moment in it)
    MIRROR_MESSAGE = (
        "{subject} mirrors a pool picked once, stale under FROZEN_KV: {test_pool}"
    )

    RUNNER_MESSAGE = (
        "{subject} keeps the runner's SWA flag, blind to FROZEN_KV pool swaps: {test_pool}"
    )

    def check(self) -> Iterator[Report]:
        for cls in self.facts.classes:
            for store in cls.stores:
                if not store.sink or store.resolver:
                    continue
                if store.bits & TYPE and not store.bits & RECORD:
                    plain = not store.bits & (KIND | GATED)  # the flag is the SWA pool test
                    fix = property_fix(self.facts, cls, store, self.lines) if plain else None
                    made = self.facts.deciding_flag(cls, store) or ""  # a second-order flag
                    joined = plain and joins_other_conditions(store.value, self.options.pool_attr)
                    remedy = {"test_pool": self.kept_conditions_remedy(cls.node)} if joined else {}
                    yield self.report(store.node, fix, cls.node,
                                      self.DERIVED_MESSAGE if made else None,
                                      subject=shown_sink(store), flag=made, **remedy)
                elif is_flag_table(store.bits):  # no fix: no property over the pool is a table
                    yield self.report(store.node, None, cls.node, self.TABLE_MESSAGE,
                                      subject=shown_sink(store))
                elif is_runner_copy(store.bits):  # no fix: a pool property changes its meaning
                    yield self.report(store.node, None, cls.node, self.RUNNER_MESSAGE,
                                      subject=shown_sink(store))
                elif is_chosen_verdict(store.bits):  # no fix: it is no boolean over the pool
                    yield self.report(store.node, None, cls.node, self.CHOSEN_MESSAGE,
                                      subject=shown_sink(store))
                elif is_named_swa_test(store):  # no fix: its test is no SWA pool test
                    yield self.report(store.node, None, cls.node, subject=shown_sink(store))
                elif self.facts.stale_mirror(cls, store):  # no fix: the pool it tests is stale
                    yield self.report(store.node, None, cls.node, self.MIRROR_MESSAGE,
                                      subject=shown_sink(store))
