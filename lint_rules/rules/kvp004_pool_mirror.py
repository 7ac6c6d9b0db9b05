"""KVP004 (opt-in): a boolean mirror of the resolved SWA pool object, stored on the backend."""
from __future__ import annotations

from textwrap import dedent
from typing import Iterator

from lint_rules.rules._base import Invalid, Report, Rule, Valid
from lint_rules.rules._facts import mirror_polarity
from lint_rules.rules._fixes import property_fix


class PoolMirror(Rule):
    """A stored boolean mirror of the pool object (``self.flag = self._swa_kv_pool is not None``).

    What it does:
        Flags, in an attention backend, ``self.<flag> = self.<pool_attr> is not None`` (or
        ``is None``, or ``bool(self.<pool_attr>)``) stored on the backend. Off by default, like
        flake8-bugbear's opinionated B9xx checks: upstream SGLang 0.5.18+ keeps exactly such a
        mirror. Enable it with ``--extend-select KVP004``.

    Why is this bad?
        Redundant state: a subclass or a draft path that re-resolves the pool (as the FROZEN_KV
        MTP fix does, because the draft backend's ``token_to_kv_pool`` is rebound to the target's
        SWA pool view) leaves the mirror describing the old pool, and code gated on it sends
        full-pool indices to SWA layers (illegal memory access).

    Fix safety:
        Safe: the mirror becomes a read-only property ``self.<pool_attr> is not None`` (``is None``
        for an ``is None`` mirror; ``--kvp-pool-attr``) with a setter that ignores writes, so
        readers and writers in other files keep working. It is offered only where the file proves
        that the module still imports and the flag still reads what the pool implies: the class
        resolves that attribute and assigns the flag once, alone, from a side-effect-free bool, not
        before the pool exists; the class and its same-file subclasses bind no class attribute of
        that name, and no class of its same-file family has ``__slots__``, a metaclass, a class
        decorator, a record base or an attribute hook (``__getattr__``, ``__setattr__``...); the
        file never deletes the flag, probes it with ``hasattr`` or a defaulted ``getattr``, reads it
        from the class object, or writes attributes through ``setattr`` with a computed name,
        ``__dict__`` or ``vars()``. Otherwise the finding is shown without ``[*]``. A subclass in
        another file that binds the name is beyond one file's sight.

        No unsafe fix: the mirror already reads the resolved pool.
    """

    VALID = (
        Valid(
            dedent(
                """\
                class DemoAttnBackend(AttentionBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                    @property
                    def has_swa(self):  # a view, not a copy
                        return self._swa_kv_pool is not None

                    def _alloc(self, n):
                        return torch.zeros(n) if self.has_swa else None
                """
            )
        ),
    )
    INVALID = (
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.no_swa = self._swa_kv_pool is None

                    def _alloc(self, n):
                        return None if self.no_swa else torch.zeros(n)
                """
            ),
            expected=((4, "KVP004"),),
            fixed=dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                    @property
                    def no_swa(self):
                        \"\"\"Read-only view of the resolved pool: it cannot disagree with it.\"\"\"
                        return getattr(self, "_swa_kv_pool", None) is None

                    @no_swa.setter
                    def no_swa(self, value):
                        pass  # code that still assigns the flag is ignored: the pool decides

                    def _alloc(self, n):
                        return None if self.no_swa else torch.zeros(n)
                """
            ),
        ),
        Invalid(
            dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
                        self.use_sliding_window_kv_pool = self._swa_kv_pool is not None

                    def _alloc(self, n):
                        return torch.zeros(n) if self.use_sliding_window_kv_pool else None
                """
            ),
            expected=((4, "KVP004"), (7, "KVP003")),
            fixed=dedent(
                """\
                class DemoAttnBackend(FlashInferAttnBackend):
                    def __init__(self, model_runner):
                        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)

                    @property
                    def use_sliding_window_kv_pool(self):
                        \"\"\"Read-only view of the resolved pool: it cannot disagree with it.\"\"\"
                        return getattr(self, "_swa_kv_pool", None) is not None

                    @use_sliding_window_kv_pool.setter
                    def use_sliding_window_kv_pool(self, value):
                        pass  # code that still assigns the flag is ignored: the pool decides

                    def _alloc(self, n):
                        return torch.zeros(n) if self._swa_kv_pool is not None else None
                """
            ),
        ),
    )
    CODE = "KVP004"
    NAME = "pool-mirror"
    DEFAULT = False
    MESSAGE = (
        "self.{attr} copies self.{pool_attr}, left stale if a subclass re-resolves it "
        "(FROZEN_KV): make it a property"
    )

    def check(self) -> Iterator[Report]:
        pool_attr = self.options.pool_attr
        for cls in self.facts.classes:
            for store in cls.stores:
                polarity = mirror_polarity(store.value, pool_attr)
                if not store.sink or store.attr == pool_attr or polarity is None or (
                        self.facts.stale_mirror(cls, store)):  # (KVP002's: the pool is stale)
                    continue
                fix = property_fix(self.facts, cls, store, self.lines, is_none=not polarity)
                yield self.report(store.node, fix, cls.node, attr=store.attr)
