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
