"""Safe fixes in package mode: a subclass in another module that binds the flag (in ``__init__``
or as a class attribute) would read the new property instead of its own value, or have its class
attribute shadow it, so the property fix is not offered for that flag (nor a gate rewrite); one
that re-resolves the pool attribute the fixes read would change what they test in it."""
from __future__ import annotations

import json

import pytest

from clirun import poolguard, write

BASE = '''\
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ParentAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
        self.use_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)

    @staticmethod
    def _resolve_swa_kv_pool(model_runner):
        pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
        return pool if isinstance(pool, SWAKVPool) else None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_swa:
            return q
        return k
'''
CHILDREN = {
    "init store": "        super().__init__(model_runner)\n        self.use_swa = False\n",
    # re-resolving the pool the fixes read: the property and the rewritten gate would read the
    # subclass's pool where the flag kept the parent's resolution
    "pool re-resolved": "        super().__init__(model_runner)\n        self._swa_kv_pool = "
                        "model_runner.token_to_kv_pool_allocator.get_kvcache()\n",
    "class attribute": None,
    "grandchild store": "        super().__init__(model_runner)\n",
}


def _child(kind: str) -> dict:
    head = "from .base import ParentAttnBackend\n\n\nclass ChildAttnBackend(ParentAttnBackend):\n"
    if kind == "class attribute":
        return {"q/child.py": head + "    use_swa = False\n"}
    files = {"q/child.py": head + "    def __init__(self, model_runner):\n" + CHILDREN[kind]}
    if kind == "grandchild store":  # the binding is two levels down, in a third module
        files["q/grand.py"] = (
            "from q.child import ChildAttnBackend\n\n\nclass GrandAttnBackend(ChildAttnBackend):\n"
            "    def __init__(self, model_runner):\n        super().__init__(model_runner)\n"
            "        self.use_swa = False\n")
    return files


def _fixes(root, *paths):
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", *paths, cwd=root)
    return {(f["code"], f["line"]): f["fixable"] for f in json.loads(done.stdout)
            if f["path"].endswith("base.py")}


@pytest.mark.parametrize("kind", sorted(CHILDREN))
def test_no_safe_fix_for_a_flag_a_subclass_in_another_module_binds(tmp_path, kind):
    root = write(tmp_path / "tree", {"q/__init__.py": "", "q/base.py": BASE, **_child(kind)})
    found = _fixes(root, "q")
    assert found == {("KVP002", 9): False, ("KVP003", 17): False}, found
    before = (root / "q/base.py").read_text()
    poolguard("lint", "--isolated", "--no-cache", "--fix", "q", cwd=root)
    assert (root / "q/base.py").read_text() == before


def test_a_subclass_that_only_reads_the_flag_keeps_the_safe_fix(tmp_path):
    """Reading the flag (``if self.use_swa``, ``==``) reads the property as it read the store;
    and a module defining its own ``ParentAttnBackend`` inherits that one, not ours."""
    root = write(tmp_path / "tree", {
        "q/__init__.py": "", "q/base.py": BASE,
        "q/child.py": "from .base import ParentAttnBackend\n\n\n"
                      "class ChildAttnBackend(ParentAttnBackend):\n    window = 4096\n\n"
                      "    def forward_extend(self, q, k, v, layer, forward_batch):\n"
                      "        return q if self.use_swa == True else k\n",
        "q/other.py": "class ParentAttnBackend:\n    use_swa = False\n\n\n"
                      "class OtherAttnBackend(ParentAttnBackend):\n    use_swa = True\n"})
    assert _fixes(root, "q") == {("KVP002", 9): True, ("KVP003", 17): False}


# The unsafe rewrite in package mode (rel5 O1, SGLang 0.5.23's AscendAttnBackend and its
# DeepseekV4AscendAttnBackend heir): the parent copies the runner's model flag, which the heir's
# DeepSeek-V4 pool (a BaseSWAKVPool that is no SWAKVPool) sets True. Folding the copy into the
# parent's SWAKVPool test would drop the heir's window tables with no speculation at all.
HYBRID_PARENT = '''\
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


class AscendLikeAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.req_to_token = model_runner.req_to_token_pool.req_to_token
        self.is_hybrid_swa = model_runner.is_hybrid_swa
        if self.is_hybrid_swa:
            self.full_to_swa_index_mapping = (
                model_runner.token_to_kv_pool.full_to_swa_index_mapping
            )
        self.use_sliding_window_kv_pool = isinstance(self.token_to_kv_pool, SWAKVPool)

    def init_forward_metadata(self, forward_batch):
        self.block_tables = self.req_to_token[forward_batch.req_pool_indices]
        self.block_tables_swa = None
        if self.is_hybrid_swa:
            self.block_tables_swa = self.full_to_swa_index_mapping[self.block_tables]
'''
DSV4_HEIR = '''\
from q.ascend_like import AscendLikeAttnBackend


class Dsv4LikeAttnBackend(AscendLikeAttnBackend):
    def init_forward_metadata(self, forward_batch):
        super().init_forward_metadata(forward_batch)
        self.swa_src = (
            self.block_tables_swa if self.block_tables_swa is not None else self.block_tables
        )
'''


def test_the_runner_model_flag_is_never_folded_into_a_pool_test(tmp_path):
    root = write(tmp_path / "tree", {"q/__init__.py": "", "q/ascend_like.py": HYBRID_PARENT,
                                     "q/dsv4_like.py": DSV4_HEIR})
    done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", "q",
                     cwd=root)
    assert "+++" not in done.stdout, done.stdout  # nothing rewritten
    assert "AscendLikeAttnBackend not rewritten" in done.stderr, done.stderr
    assert ("self.full_to_swa_index_mapping set in __init__ only under the runner's model flag "
            "self.is_hybrid_swa") in done.stderr, done.stderr
    poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "q", cwd=root)
    assert (root / "q/ascend_like.py").read_text() == HYBRID_PARENT


def test_the_pool_the_decline_names_is_a_base_swa_pool_that_is_no_swa_pool():
    """The reason given is SGLang's own class tree (the real import, not our reading of it)."""
    import importlib

    pytest.importorskip("torch")
    from runtime_guard.demo import scenarios as sc

    sg = sc.sglang()
    dsv4 = importlib.import_module("sglang.srt.mem_cache.deepseek_v4_memory_pool")
    base = importlib.import_module("sglang.srt.mem_cache.base_swa_memory_pool").BaseSWAKVPool
    assert issubclass(dsv4.DeepSeekV4TokenToKVPool, base)
    assert not issubclass(dsv4.DeepSeekV4TokenToKVPool, sg.SWAKVPool)
