"""What ``patched_child.py`` observes of each SGLang backend class, patched or as released.

Everything is SGLang's own: pools, allocators, ``frozen_kv_target_view``, the backend classes
(their real ``__init__`` as far as a CPU lets it run) and the guard installed by the real
``load_plugins()``. Only the model runner is a namespace (``runtime_guard.demo.scenarios``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

import torch

from runtime_guard import SWAPoolMismatchError, hooks
from runtime_guard.backends import BACKENDS, spec_for
from runtime_guard.config import GuardConfig
from runtime_guard.demo import scenarios as sc
from runtime_guard.demo import torch_native as tn

SEQ = [5, 9]
SAME_KINDS = ("SWA target", "non-SWA model", "EAGLE draft, own pool")


def _classes() -> dict:
    found = {}
    for spec in BACKENDS:
        if not (spec.launches and spec.state_attrs):
            continue
        try:
            found[spec.name] = getattr(importlib.import_module(spec.module), spec.name)
        except Exception:  # noqa: BLE001 - Ascend needs torch_npu: not observed here
            continue
    return found


def _build(cls, runner):
    """The backend as far as its real ``__init__`` runs here. A patched class whose CPU run
    stops before its resolution line gets that line's value from its own resolver, and the
    lines of its ``__init__`` that read the resolved pool (XPU's kept model flag) are run from
    the class's own source. The runner's model flag is SGLang's: hybrid when its own pool is
    an SWA pool."""
    if not hasattr(runner, "is_hybrid_swa"):
        runner.is_hybrid_swa = isinstance(runner.token_to_kv_pool, sc.sglang().SWAKVPool)
    backend = sc.any_backend(cls, runner)
    reached = "_swa_kv_pool" in vars(backend) or not hasattr(cls, "_resolve_swa_kv_pool")
    if not reached:
        backend._swa_kv_pool = cls._resolve_swa_kv_pool(runner)
        for line, names in _pool_readers(cls):
            exec(line, {}, {"self": backend, names[0]: runner})
    return backend, reached


def _pool_readers(cls) -> list:
    """(compiled statement, (runner parameter,)) for each ``self.<x> = ...`` at the top level
    of ``cls.__init__`` that reads ``self._swa_kv_pool``, in source order."""
    init = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__))).body[0]
    runner = init.args.args[1].arg
    found = []
    for statement in init.body:
        reads = any(isinstance(n, ast.Attribute) and n.attr == "_swa_kv_pool"
                    and isinstance(n.ctx, ast.Load) for n in ast.walk(statement))
        if isinstance(statement, ast.Assign) and reads:
            code = compile(ast.Module([statement], type_ignores=[]), cls.__name__, "exec")
            found.append((code, (runner,)))
    return found


def _flag(backend) -> bool:
    """The backend's SWA flag; False where it keeps none (SGLang 0.5.12's FlashInfer)."""
    return bool(getattr(backend, "use_sliding_window_kv_pool", None))


def _error(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    return f"{type(err).__name__}: {text}"[:300]


def _frozen_kv(cls) -> dict:
    """A FROZEN_KV MTP draft's backend under SGLang's target view: metadata build and the
    decode launch of an SWA and a full layer, through the guard's hooks."""
    runner, target = sc.configuration("FROZEN_KV draft")
    backend, reached = _build(cls, runner)
    batch = sc.decode_batch(runner.token_to_kv_pool, SEQ)
    table = sc.contiguous_page_table(SEQ, 4)
    sc.metadata(backend, SEQ, table, table % (sc.SIZE_SWA // sc.PAGE))
    # outside the view (CUDA-graph buffers are sized there) the allocator's pool decides
    steps = {"flag_outside_view": _flag(backend)}
    with sc.frozen_kv_view(batch, target, backend):
        for name, call in (
            ("metadata", lambda: backend.init_forward_metadata(batch)),
            ("decode_swa", lambda: backend.forward_decode(*sc.decode_args(batch, 0))),
            ("decode_full", lambda: backend.forward_decode(*sc.decode_args(batch, 1))),
        ):
            try:
                call()
                steps[name] = "ran"
            except SWAPoolMismatchError as err:
                return {"guard": _error(err), "steps": steps, "init_resolved": reached}
            except Exception as err:  # noqa: BLE001 - past the guard, a CPU cannot go on
                steps[name] = _error(err)
    return {"guard": None, "steps": steps, "init_resolved": reached,
            "flag": _flag(backend),
            "model_flag": getattr(backend, "is_hybrid_swa", None)}


def _state(cls, kind: str) -> dict:
    """The SWA decision a backend makes in a configuration, and what its metadata build does."""
    runner, reads = sc.configuration(kind)
    backend, _ = _build(cls, runner)
    batch = sc.decode_batch(reads, SEQ)
    try:
        with sc.frozen_kv_view(batch, reads, backend):
            backend.init_forward_metadata(batch)
        metadata = "ran"
    except SWAPoolMismatchError as err:
        metadata = "guard " + _error(err)
    except Exception as err:  # noqa: BLE001
        metadata = type(err).__name__
    return {"flag": _flag(backend), "metadata": metadata,
            "model_flag": getattr(backend, "is_hybrid_swa", None)}


def _decode(backend, batch, view_pool, layers) -> list:
    q = torch.linspace(-1, 1, len(tn.SEQ) * 16).reshape(len(tn.SEQ), 16).to(sc.DTYPE)
    k = torch.ones(len(tn.SEQ), 1, 8, dtype=sc.DTYPE)
    with sc.frozen_kv_view(batch, view_pool, backend):
        backend.init_forward_metadata(batch)
        out = [backend.forward_decode(q, k, k.clone(), sc.layer(i), batch) for i in layers]
    return torch.stack(out).float().tolist()


def _torch_native(cls) -> dict:
    """TorchNative end to end: the FROZEN_KV draft's decode against the target-pool reference,
    and the decode of a target, an EAGLE draft and a non-SWA model."""
    target, draft, _, batch = tn._setting()  # the batch that writes K/V (the demo's live case)
    allocator = draft.token_to_kv_pool_allocator
    reference_runner = sc.runner(target, allocator)
    reference_runner.req_to_token_pool = draft.req_to_token_pool
    reference = _decode(_build(cls, reference_runner)[0], batch, target, tn.LAYERS)
    try:
        frozen = _decode(_build(cls, draft)[0], batch, target, tn.LAYERS)
    except SWAPoolMismatchError as err:
        frozen = "guard " + _error(err)
    eagle = sc.runner(sc.mha_pool(layer_num=1), allocator, draft=True, spec="EAGLE")
    plain = sc.runner(sc.mha_pool(), sc.token_allocator(sc.mha_pool()))
    outputs = {"SWA target": reference}
    for kind, runner, layers in (("EAGLE draft, own pool", eagle, (0,)),
                                 ("non-SWA model", plain, tn.LAYERS)):
        runner.req_to_token_pool = draft.req_to_token_pool
        own_batch = sc.decode_batch(runner.token_to_kv_pool, tn.SEQ)
        own_batch.out_cache_loc = batch.out_cache_loc
        outputs[kind] = _decode(_build(cls, runner)[0], own_batch, runner.token_to_kv_pool,
                                layers)
    return {"frozen_kv": frozen, "reference": reference, "outputs": outputs}


def replay() -> dict:
    """Every backend class that imports here, in ``check`` then ``bounds`` mode."""
    sc.sglang().load_plugins()  # the real loader: SGLANG_POOLGUARD=check from the environment
    seen = {}
    for name, cls in _classes().items():
        row = {"spec": spec_for(cls).name}
        for mode in ("check", "bounds"):
            hooks.configure(GuardConfig(mode=mode))
            row[mode] = _frozen_kv(cls)
        hooks.configure(GuardConfig(mode="check"))
        row["same"] = {kind: _state(cls, kind) for kind in SAME_KINDS}
        if name == "TorchNativeAttnBackend" and sc.sglang().KVWriteLoc is not None:
            row["torch_native"] = _torch_native(cls)
        seen[name] = row
    return seen
