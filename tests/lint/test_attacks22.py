"""A twenty-second hostile round (attack22) on this session's additions: receivers named
otherwise than ``self`` (no fix may edit them, no rename where the name is not the object), a
helper emptied by the backend, and the package-mode flag property where an untied module or a
``dict(...)`` of keywords binds the flag."""
from __future__ import annotations

import subprocess
import sys
from textwrap import dedent

import pytest

from clirun import poolguard, write
from test_attacks20 import STUBS

HEAD = ("from sglang.srt.layers.attention.base_attn_backend import AttentionBackend\n"
        "from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool\n\n\n")


def test_no_gate_fix_is_offered_where_the_method_names_its_object_otherwise(tmp_path):
    source = HEAD + dedent("""\
        class ThisAttnBackend(AttentionBackend):
            def __init__(this, model_runner):
                this._swa_kv_pool = this._resolve_swa_kv_pool(model_runner)
                this.use_sliding_window_kv_pool = this._swa_kv_pool is not None

            @staticmethod
            def _resolve_swa_kv_pool(model_runner):
                pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
                return pool if isinstance(pool, SWAKVPool) else None

            def init_forward_metadata(this, forward_batch):
                if this.use_sliding_window_kv_pool:
                    return 1
                return 0
        """)
    tree = write(tmp_path / "t", {"b.py": source})
    out = poolguard("lint", "--isolated", "--no-cache", "--fix", "b.py", cwd=tree).stdout
    assert "[*]" not in out
    assert (tree / "b.py").read_text() == source


NOT_THE_OBJECT = {
    "a staticmethod through an alias": dedent("""\
        sm = staticmethod


        class AliasAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.token_to_kv_pool = model_runner.token_to_kv_pool
                AliasAttnBackend.describe(object(), model_runner.token_to_kv_pool)

            @sm
            def describe(log, pool):
                log.window = isinstance(pool, SWAKVPool)
        """),
    "a staticmethod wrapped in the class body": dedent("""\
        class WrappedAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.token_to_kv_pool = model_runner.token_to_kv_pool
                WrappedAttnBackend.describe(object(), model_runner.token_to_kv_pool)

            def _describe(log, pool):
                log.window = isinstance(pool, SWAKVPool)

            describe = staticmethod(_describe)
        """),
    "an object of another class made in __new__": dedent("""\
        class Probe:
            pass


        class NewAttnBackend(AttentionBackend):
            def __new__(cls, model_runner):
                probe = object.__new__(Probe)
                probe.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
                return super().__new__(cls)
        """),
    "a receiver name rebound by a loop": dedent("""\
        class LoopAttnBackend(AttentionBackend):
            def __init__(this, model_runner, children=()):
                this.token_to_kv_pool = model_runner.token_to_kv_pool
                for this in children:
                    this.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
        """),
}


@pytest.mark.parametrize("case", list(NOT_THE_OBJECT))
def test_no_rename_where_the_name_is_not_the_object(tmp_path, case):
    tree = write(tmp_path / "t", {"b.py": HEAD + NOT_THE_OBJECT[case]})
    poolguard("lint", "--isolated", "--no-cache", "b.py", cwd=tree, expect=0)


def test_a_helper_the_backend_empties_each_forward_is_clean(tmp_path):
    source = HEAD + dedent("""\
        class Buffers:
            def __init__(self, owner):
                self._owner = owner
                self._by_layer = {}

            def get(self, layer_id):
                if layer_id not in self._by_layer:
                    self._by_layer[layer_id] = self._owner.token_to_kv_pool.get_kv_buffer(
                        layer_id)
                return self._by_layer[layer_id]


        class EmptiedAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.token_to_kv_pool = model_runner.token_to_kv_pool
                self.buffers = Buffers(self)

            def init_forward_metadata(self, forward_batch):
                self.buffers._by_layer.clear()

            def forward_decode(self, q, k, v, layer, forward_batch):
                return self.buffers.get(layer.layer_id)
        """)
    tree = write(tmp_path / "t", {"b.py": source})
    poolguard("lint", "--isolated", "--no-cache", "b.py", cwd=tree, expect=0)


BACKEND = HEAD + dedent("""\
    class WindowAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)
            self.use_sliding_window_kv_pool = isinstance(self.token_to_kv_pool, SWAKVPool)

        @staticmethod
        def _resolve_swa_kv_pool(model_runner):
            pool = model_runner.token_to_kv_pool_allocator.get_kvcache()
            return pool if isinstance(pool, SWAKVPool) else None

        def forward_decode(self, q, k, v, layer, forward_batch):
            return "swa" if self.use_sliding_window_kv_pool else "dense"
    """)
DRIVER = dedent("""\
    from types import SimpleNamespace as NS

    from pkg.attn import WindowAttnBackend
    from pkg.tweaks import tweak
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool

    pool = SWAKVPool()
    backend = WindowAttnBackend(NS(token_to_kv_pool=pool,
                                   token_to_kv_pool_allocator=NS(get_kvcache=lambda: pool)))
    tweak(backend)
    print(backend.forward_decode(1, 2, 3, 4, 5))
    """)
TWEAKS = {
    "an untied module setting the flag on what it is handed":
        "def tweak(backend):\n    backend.use_sliding_window_kv_pool = False\n",
    "an untied module clearing the pool attribute":
        "def tweak(backend):\n    backend._swa_kv_pool = None\n",
    "keywords gathered by dict() into the object's namespace":
        "def tweak(backend):\n    vars(backend).update(dict(use_sliding_window_kv_pool=False))\n",
}


@pytest.mark.parametrize("case", list(TWEAKS))
def test_the_flag_property_never_changes_what_a_tweaked_backend_does(tmp_path, case):
    tree = write(tmp_path / "t", {**STUBS, "pkg/__init__.py": "", "pkg/attn.py": BACKEND,
                                  "pkg/tweaks.py": TWEAKS[case], "driver.py": DRIVER})

    def run() -> str:
        done = subprocess.run([sys.executable, "driver.py"], cwd=tree, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    before = run()
    poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree)
    assert run() == before
    assert (tree / "pkg" / "attn.py").read_text() == BACKEND
