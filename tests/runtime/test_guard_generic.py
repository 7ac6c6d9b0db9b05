"""The generic guard on backend classes no table row names (``runtime_guard.generic``).

Backend classes written here (subclasses of SGLang's real ``AttentionBackend``) keep pool
state in the forms the bug class takes: the pool under another name, its SWA sub-pool, a
bound method, a flag, a helper holding the pool, a container of pools, a partial, an inner
backend. Each is built from a real FROZEN_KV MTP draft runner and launched through SGLang's
own ``AttentionBackend.forward`` under SGLang's ``frozen_kv_target_view``: it is refused before
its ``forward_decode`` runs. Every class passes in every correct configuration, and so does
every SGLang backend class that imports here and that the table does not describe.
"""

from __future__ import annotations

import functools
import importlib.util

import pytest

pytest.importorskip("torch")
if importlib.util.find_spec("sglang") is None:
    pytest.skip("SGLang is not installed", allow_module_level=True)

import kernel_shim  # noqa: E402

from runtime_guard import SWAPoolMismatchError  # noqa: E402
from runtime_guard import generic  # noqa: E402
from runtime_guard.checks import is_swa_pool  # noqa: E402
from runtime_guard.demo import scenarios as sc  # noqa: E402

SEQ = [5, 9]


def _base():
    sc.sglang()
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

    return AttentionBackend


class _Helper:
    """An object a backend builds around its pool (an indices updater, a metadata builder)."""

    def __init__(self, pool):
        self.kv_pool = pool


@functools.lru_cache(maxsize=None)
def written_here() -> dict:
    """name -> (class caching pool state at __init__, class reading it per launch)."""
    base = _base()
    swa_cls = sc.sglang().SWAKVPool

    class Launching(base):
        def __init__(self, model_runner):
            if sc.backend_reads_own_pool():  # SGLang >= 0.5.13; before, the batch's pool
                self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.allocator = model_runner.token_to_kv_pool_allocator

        def init_forward_metadata(self, forward_batch):
            self.forward_metadata = None

        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            return ("launched", layer.layer_id)

    def cached(name, setup):
        def __init__(self, model_runner):
            Launching.__init__(self, model_runner)
            setup(self, model_runner.token_to_kv_pool)
        return type(f"Cached{name}", (Launching,), {"__init__": __init__})

    def swa_of(pool):
        return pool if isinstance(pool, swa_cls) else None

    forms = {
        "PoolAlias": lambda self, pool: setattr(self, "kv_cache", pool),
        "SWASubPool": lambda self, pool: setattr(
            self, "window_pool", pool.swa_kv_pool if swa_of(pool) else pool),
        "ResolvedSWAPool": lambda self, pool: setattr(self, "_swa_kv_pool", swa_of(pool)),
        "BoundMethod": lambda self, pool: setattr(self, "key_buffer", pool.get_key_buffer),
        "Flag": lambda self, pool: setattr(self, "is_hybrid_swa", swa_of(pool) is not None),
        "Helper": lambda self, pool: setattr(self, "updater", _Helper(pool)),
        "Dict": lambda self, pool: setattr(self, "pools", {"kv": pool}),
        "List": lambda self, pool: setattr(self, "layer_pools", [None, pool]),
        "Partial": lambda self, pool: setattr(
            self, "write", functools.partial(pool.set_kv_buffer)),
    }
    classes = {name: cached(name, setup) for name, setup in forms.items()}

    class CachedInner(Launching):  # a wrapper whose inner backend keeps the draft's own pool
        def __init__(self, model_runner):
            Launching.__init__(self, model_runner)
            self.decode_backend = classes["PoolAlias"](model_runner)
            self.decode_backend.__dict__.pop("token_to_kv_pool", None)  # reads the wrapper's

        def forward_decode(self, *args, **kwargs):
            return self.decode_backend.forward_decode(*args, **kwargs)

    classes["Inner"] = CachedInner

    class PerLaunch(Launching):
        """The correct form: SWA state read from the active pool at each launch, the SWA pool
        resolved through the allocator (upstream PR #27491)."""

        def __init__(self, model_runner):
            Launching.__init__(self, model_runner)
            kvcache = self.allocator.get_kvcache()
            self._swa_kv_pool = swa_of(model_runner.token_to_kv_pool) or (
                swa_of(kvcache) if model_runner.spec_algorithm.is_frozen_kv_mtp() else None)
            self.updater = _Helper(None)

        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            self.updater.kv_pool = getattr(self, "token_to_kv_pool", forward_batch.token_to_kv_pool)
            return ("launched", layer.layer_id)

    return {"stale": classes, "correct": PerLaunch}


def _launch(backend, runner, reads, layer_id=0):
    """SGLang's own AttentionBackend.forward, through the generic hook, under the view."""
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    q, k, v, layer, batch = sc.decode_args(batch, layer_id)
    forward = type(backend).forward
    with sc.frozen_kv_view(batch, reads, backend):
        return generic.guard_dispatch(forward, backend, q, k, v, layer, batch)


STALE = ["PoolAlias", "SWASubPool", "ResolvedSWAPool", "BoundMethod", "Flag", "Helper", "Dict",
         "List", "Partial", "Inner"]
PATHS = {"PoolAlias": "backend.kv_cache holds MHATokenToKVPool",
         "SWASubPool": "backend.window_pool holds MHATokenToKVPool",
         "ResolvedSWAPool": "backend._swa_kv_pool is None",
         "BoundMethod": "backend.key_buffer holds a method of MHATokenToKVPool",
         "Flag": "is_hybrid_swa=False", "Helper": "backend.updater.kv_pool holds",
         "Dict": "backend.pools['kv'] holds", "List": "backend.layer_pools[1] holds",
         "Partial": "backend.write holds a method of",
         "Inner": "backend.decode_backend.kv_cache holds MHATokenToKVPool"}


@pytest.mark.parametrize("form", STALE)
def test_a_stale_form_in_a_class_no_table_names_is_refused(form, guard):
    guard("check")
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = written_here()["stale"][form](runner)
    assert generic.is_generic(type(backend))
    with pytest.raises(SWAPoolMismatchError) as caught:
        _launch(backend, runner, target)
    message = str(caught.value)
    assert f"Cached{form} (" in message and "layer 0 (SWA)" in message
    assert PATHS[form] in message and "generic check, live" in message
    assert "SWAKVPool" in message  # the pool the launch reads


KINDS = ["non-SWA model", "SWA target", "EAGLE draft, own pool", "FROZEN_KV draft"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_form_passes_where_it_is_correct(kind, guard):
    guard("check")
    runner, reads = sc.configuration(kind)
    written = written_here()
    classes = [written["correct"]] + ([] if kind == "FROZEN_KV draft" else
                                      list(written["stale"].values()))
    for cls in classes:
        backend = cls(runner)
        for layer_id in (0, 1):
            assert _launch(backend, runner, reads, layer_id) == ("launched", layer_id), cls


def test_another_swa_pool_than_the_active_one_is_refused(guard):
    """Two hybrid models' pools: a method and a sub-pool of the other one are not members."""
    guard("check")
    runner, target = sc.configuration("SWA target")
    other = sc.swa_pool()
    for form in ("SWASubPool", "BoundMethod", "PoolAlias"):
        backend = written_here()["stale"][form](runner)
        with pytest.raises(SWAPoolMismatchError, match="SWAKVPool"):
            _launch(backend, runner, other)
        assert _launch(backend, runner, target) == ("launched", 0)


def test_log_action_logs_each_site_once_and_launches(guard, caplog):
    guard("check", action="log")
    runner, target = sc.configuration("FROZEN_KV draft")
    backend = written_here()["stale"]["Flag"](runner)
    for layer_id in (0, 1, 0):
        assert _launch(backend, runner, target, layer_id) == ("launched", layer_id)
    assert sum("is_hybrid_swa=False" in r.getMessage() for r in caplog.records) == 1


def test_the_layout_is_read_once_per_instance_and_again_when_it_grows(guard):
    """Two backends of one class may hold different things (a target's filled table, a
    draft's empty one): each is read once, by itself, and again when it gains an attribute."""
    guard("check")
    runner, target = sc.configuration("SWA target")
    cls = written_here()["stale"]["PoolAlias"]
    first, second = cls(runner), cls(runner)
    assert generic.layout_of(first) is generic.layout_of(first)
    assert generic.layout_of(second) is not generic.layout_of(first)
    assert generic.layout_of(second) == generic.layout_of(first)
    read = generic.layout_of(second)
    second.late_pool = sc.swa_pool()  # an attribute bound after construction
    assert generic.layout_of(second) is not read
    with pytest.raises(SWAPoolMismatchError, match="backend.late_pool"):
        _launch(second, runner, target)


def test_table_classes_are_left_to_their_own_hooks():
    trtllm = sc.sglang().TRTLLMHAAttnBackend
    assert not generic.is_generic(trtllm)
    assert not generic.is_generic(sc.pre_fix_backend_class(trtllm))  # a subclass of a row
    assert generic.is_generic(written_here()["correct"])


@functools.lru_cache(maxsize=None)
def _generic_sglang() -> list:
    """Every class the generic check covers among SGLang's installed backends (sgl_kernel
    through the test shim)."""
    kernel_shim.install()
    _base()
    return [cls for cls, _ in generic.generic_classes(generic.installed_backend_classes())]


def test_sglang_has_classes_only_the_generic_check_covers():
    names = {cls.__name__ for cls in _generic_sglang()}
    assert len(names) >= 3, names


@pytest.mark.parametrize("kind", KINDS)
def test_no_false_alarm_on_any_sglang_backend_that_imports_here(kind, guard):
    """Each class built through its real ``__init__`` as far as the CPU allows (see
    ``scenarios.construct_backend``), in every configuration: the generic check is silent,
    except, in a FROZEN_KV draft, on a pool attribute holding the draft's own pool while the
    launch reads the target's: that is the bug class itself (a class built for that
    configuration must not keep it), not a false alarm."""
    from runtime_guard.checks import describe_pool

    guard("check")
    checked, own_pool = [], []
    for cls in _generic_sglang():
        runner, reads = sc.configuration(kind)
        backend = sc.construct_backend(cls, runner)
        if sc.backend_reads_own_pool():
            backend.__dict__.setdefault("token_to_kv_pool", runner.token_to_kv_pool)
        batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
        with sc.frozen_kv_view(batch, reads, backend):
            problems = [generic.find_generic_problem(backend, layer_id, batch)
                        for layer_id in (0, 1)]
        for problem in filter(None, problems):
            draft_pool = f"holds {describe_pool(runner.token_to_kv_pool)}, not the active pool"
            assert kind == "FROZEN_KV draft" and draft_pool in problem.message, problem.message
            own_pool.append(cls.__name__)
        checked.append(cls.__name__)
    assert checked
    assert set(own_pool) <= {"MiniMaxSparseNvfp4AttnBackend"}, own_pool  # kv_pool = own pool


def test_sub_pools_of_the_active_pool_belong_to_it():
    pool = sc.swa_pool()
    ids = generic.members(pool)
    assert {id(pool), id(pool.full_kv_pool), id(pool.swa_kv_pool)} <= ids
    assert is_swa_pool(pool) and id(sc.mha_pool()) not in ids


LOADER_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_guard_generic as t
from runtime_guard.demo import scenarios as sc
sg = sc.sglang()
base = t._base()
sg.load_plugins()
sg.load_plugins()  # a second load registers nothing twice
wrapped = t.generic.wraps_dispatch(vars(base)["forward"])
pending = [h for h in sg.HookRegistry._hooks.get(
    "sglang.srt.layers.attention.base_attn_backend.AttentionBackend.forward", ())]
runner, target = sc.configuration("FROZEN_KV draft")
stale = t.written_here()["stale"]["Flag"](runner)
batch = sc.decode_batch(runner.token_to_kv_pool, t.SEQ)
q, k, v, layer, batch = sc.decode_args(batch, 0)
with sc.frozen_kv_view(batch, target, stale):
    try:
        stale.forward(q, k, v, layer, batch)
        error = None
    except Exception as err:
        error = f"{{type(err).__name__}}: {{err}}"
correct = t.written_here()["correct"](runner)
with sc.frozen_kv_view(batch, target, correct):
    launched = correct.forward(q, k, v, layer, batch)
print(json.dumps(dict(wrapped=wrapped, pending=len(pending), error=error,
                      launched=list(launched))))
"""


def test_the_real_plugin_loader_hooks_the_dispatch_once():
    from installed_sglang import HERE, child_answer

    seen = child_answer(LOADER_CHILD.format(here=HERE), SGLANG_POOLGUARD="1")
    assert seen["launched"] == ["launched", 0]
    assert seen["wrapped"] and seen["pending"] == 1
    assert seen["error"].startswith("SWAPoolMismatchError: poolguard (generic check, live): "
                                    "CachedFlag")


def test_guard_status_says_generic_for_classes_no_row_names():
    from runtime_guard import status

    kernel_shim.install()
    rows = {row.backend: row for row in status.rows()}
    covered = [cls.__name__ for cls in _generic_sglang()]
    reached = [name for name in covered if rows[name].guarded.startswith("generic")]
    assert reached and all("live/latent not known" in rows[name].why_not for name in reached)
    assert rows["TRTLLMHAAttnBackend"].guarded != "generic (forward dispatch)"
