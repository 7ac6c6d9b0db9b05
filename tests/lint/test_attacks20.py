"""A twentieth hostile round (attack20): the safe flag-property fix in package mode, where what
may bind the flag lives in a third module (a mixin, a class decorator, a helper the heir hands
itself to), in the base of the fixed class, or in a heir's dynamic writes; through the real CLI,
with the fixed package imported before and after (stub SGLang modules)."""
from __future__ import annotations

import subprocess
import sys
from textwrap import dedent

import pytest

from clirun import poolguard, write

STUBS = {
    "sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/layers/__init__.py": "",
    "sglang/srt/layers/attention/__init__.py": "", "sglang/srt/mem_cache/__init__.py": "",
    "sglang/srt/layers/attention/base_attn_backend.py": "class AttentionBackend:\n    pass\n",
    "sglang/srt/mem_cache/swa_memory_pool.py": "class SWAKVPool:\n    pass\n",
}
BASE = dedent("""\
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
    {imports}

    class BaseTRT({bases}):
        def __init__(self, model_runner):
            kv_pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool) else None
            self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_sliding_window_kv_pool:
                return self._swa_kv_pool.translate_loc_from_full_to_swa(1)
            return 0
    """)
HEIR = dedent("""\
    from pkg.base import BaseTRT
    {imports}

    {decorator}
    class SubTRT({bases}BaseTRT):
        {body}
    """)
CASES = {
    "mixin of a third module": (
        {"pkg/mix.py": "class WindowDefaults:\n    use_sliding_window_kv_pool = True\n"},
        dict(imports="from pkg.mix import WindowDefaults", decorator="",
             bases="WindowDefaults, ", body="pass")),
    "class decorator of a third module": (
        {"pkg/deco.py": "def windowed(cls):\n    cls.use_sliding_window_kv_pool = True\n"
                        "    return cls\n"},
        dict(imports="from pkg.deco import windowed", decorator="@windowed", bases="",
             body="pass")),
    "helper of a third module the heir hands itself to": (
        {"pkg/conf.py": "def force_window(backend, on):\n"
                        "    backend.use_sliding_window_kv_pool = on\n"},
        dict(imports="from pkg.conf import force_window", decorator="", bases="",
             body="def __init__(self, model_runner):\n"
                  "            super().__init__(model_runner)\n"
                  "            force_window(self, True)")),
    "heir writing through setattr with a computed name": (
        {}, dict(imports="", decorator="", bases="",
                 body="def __init__(self, model_runner):\n"
                      "            super().__init__(model_runner)\n"
                      "            name = 'use_sliding_window_kv_pool'\n"
                      "            setattr(self, name, True)")),
    "dataclass-style field of the heir": (
        {}, dict(imports="", decorator="", bases="", body="use_sliding_window_kv_pool: bool")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_flag_property_is_not_offered_where_another_module_may_bind_it(tmp_path, case):
    extra, heir = CASES[case]
    files = {**STUBS, "pkg/__init__.py": "", **extra,
             "pkg/base.py": BASE.format(imports="", bases="AttentionBackend"),
             "pkg/sub.py": HEIR.format(**heir)}
    tree = write(tmp_path / "t", files)
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    assert (tree / "pkg" / "base.py").read_text() == files["pkg/base.py"], done.stderr


def test_a_base_of_another_module_deleting_the_flag_keeps_the_heir_unfixed(tmp_path):
    """A property has no deleter: ``del self.flag`` in a base of another module would raise."""
    base = dedent("""\
        from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


        class Resettable(AttentionBackend):
            def reset_swa_state(self):
                del self.use_sliding_window_kv_pool
        """)
    sub = BASE.format(imports="from pkg.resettable import Resettable", bases="Resettable")
    files = {**STUBS, "pkg/__init__.py": "", "pkg/resettable.py": base, "pkg/sub.py": sub}
    tree = write(tmp_path / "t", files)
    poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    assert (tree / "pkg" / "sub.py").read_text() == sub


def test_the_flag_property_is_still_offered_where_nothing_else_binds_it(tmp_path):
    files = {**STUBS, "pkg/__init__.py": "",
             "pkg/base.py": BASE.format(imports="", bases="AttentionBackend"),
             "pkg/sub.py": HEIR.format(imports="", decorator="", bases="", body="pass")}
    tree = write(tmp_path / "t", files)
    poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    fixed = (tree / "pkg" / "base.py").read_text()
    assert "def use_sliding_window_kv_pool(self)" in fixed
    done = subprocess.run([sys.executable, "-c", "import pkg.sub"], cwd=tree,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
