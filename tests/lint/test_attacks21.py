"""A twenty-first hostile round (attack21): the safe flag-property fix in package mode where
the module that may bind the flag reaches the class in ways an import scan does not follow (a
re-export through ``__init__``, ``from pkg import mod``, ``from . import mod``, a star-import
chain, a decorator named through its module), binds it in forms a text scan misses (an
unpacked class attribute, a loop or ``with`` target), binds it on ``self`` in a mixin, or
imports the backend to configure it (a builder). The fix must never change what the package
does: each case imports the package and runs the heir before and after ``--fix``."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from clirun import poolguard, write
from test_attacks20 import STUBS

BASE = dedent("""\
    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class BaseTRT(AttentionBackend):
        def __init__(self, model_runner):
            kv_pool = model_runner.token_to_kv_pool
            self._swa_kv_pool = kv_pool if isinstance(kv_pool, SWAKVPool) else None
            self.use_sliding_window_kv_pool = isinstance(kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_sliding_window_kv_pool:
                return "swa"
            return "full"
    """)
MIX = "class WindowDefaults:\n    use_sliding_window_kv_pool = False\n"
PROBE = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
    from pkg.sub import SubTRT


    class Runner:
        token_to_kv_pool = SWAKVPool()


    print(SubTRT(Runner()).forward_decode(1, 2, 3, 4, 5))
    """)
HEIR = ("from pkg.base import BaseTRT\n{imports}\n\n\n"
        "{decorator}class SubTRT({bases}BaseTRT):\n{body}")
PASS = "    pass\n"
CASES = {
    "mixin re-exported by the package's __init__": (
        {"pkg/__init__.py": "from .mix import WindowDefaults\n", "pkg/mix.py": MIX},
        dict(imports="from pkg import WindowDefaults", bases="WindowDefaults, ")),
    "mixin through from pkg import mix": (
        {"pkg/mix.py": MIX}, dict(imports="from pkg import mix", bases="mix.WindowDefaults, ")),
    "mixin through from . import mix": (
        {"pkg/mix.py": MIX}, dict(imports="from . import mix", bases="mix.WindowDefaults, ")),
    "mixin through a star-import chain": (
        {"pkg/common.py": "from pkg.mix import *\n", "pkg/mix.py": MIX},
        dict(imports="from pkg.common import *", bases="WindowDefaults, ")),
    "class decorator named through its module": (
        {"pkg/deco.py": "def windowed(cls):\n    cls.use_sliding_window_kv_pool = False\n"
                        "    return cls\n"},
        dict(imports="from pkg import deco", decorator="@deco.windowed\n")),
    "unpacked class attribute of the heir": (
        {}, dict(body="    use_sliding_window_kv_pool, page_size = False, 16\n")),
    "loop target in the heir": (
        {}, dict(body="    def __init__(self, model_runner):\n"
                      "        super().__init__(model_runner)\n"
                      "        for self.use_sliding_window_kv_pool in (False,):\n"
                      "            pass\n")),
    "with target in the heir": (
        {"pkg/ctx.py": "import contextlib\n\n\n@contextlib.contextmanager\ndef off():\n"
                       "    yield False\n"},
        dict(imports="from pkg.ctx import off",
             body="    def __init__(self, model_runner):\n"
                  "        super().__init__(model_runner)\n"
                  "        with off() as self.use_sliding_window_kv_pool:\n"
                  "            pass\n")),
    "mixin writing the flag on self": (
        {"pkg/mix.py": "class FullOnly:\n    def __init__(self, model_runner):\n"
                       "        super().__init__(model_runner)\n"
                       "        self.use_sliding_window_kv_pool = False\n"},
        dict(imports="from pkg.mix import FullOnly", bases="FullOnly, ")),
    "mixin writing the pool attribute on self": (
        {"pkg/mix.py": "class NoTranslate:\n    def __init__(self, model_runner):\n"
                       "        super().__init__(model_runner)\n"
                       "        self._swa_kv_pool = None\n"},
        dict(imports="from pkg.mix import NoTranslate", bases="NoTranslate, ")),
}


def _heir(imports: str = "", decorator: str = "", bases: str = "", body: str = PASS) -> str:
    return HEIR.format(imports=imports, decorator=decorator, bases=bases, body=body)


def _run(tree) -> str:
    done = subprocess.run([sys.executable, "probe.py"], cwd=tree, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("case", list(CASES))
def test_no_safe_fix_changes_what_the_heir_does(tmp_path, case):
    extra, heir = CASES[case]
    files = {**STUBS, "pkg/__init__.py": "", **extra, "pkg/base.py": BASE,
             "pkg/sub.py": _heir(**heir), "probe.py": PROBE}
    tree = write(tmp_path / "t", files)
    before = _run(tree)
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    assert _run(tree) == before
    assert (tree / "pkg" / "base.py").read_text() == BASE, done.stderr


def test_a_builder_importing_the_backend_to_configure_it_keeps_it_unfixed(tmp_path):
    registry = dedent("""\
        from pkg.base import BaseTRT


        def make(model_runner, window):
            backend = BaseTRT(model_runner)
            backend.use_sliding_window_kv_pool = window
            return backend
        """)
    probe = dedent("""\
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool
        from pkg.registry import make


        class Runner:
            token_to_kv_pool = SWAKVPool()


        print(make(Runner(), False).forward_decode(1, 2, 3, 4, 5))
        """)
    files = {**STUBS, "pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/registry.py": registry,
             "probe.py": probe}
    tree = write(tmp_path / "t", files)
    before = _run(tree)
    poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    assert _run(tree) == before == "full"
    assert (tree / "pkg" / "base.py").read_text() == BASE


def test_the_fix_still_lands_beside_a_heir_that_only_reads_the_flag(tmp_path):
    reader = "    def forward_extend(self, q, k, v, layer, forward_batch):\n" \
             "        return 'swa' if self.use_sliding_window_kv_pool else 'full'\n"
    files = {**STUBS, "pkg/__init__.py": "", "pkg/base.py": BASE,
             "pkg/sub.py": _heir(body=reader), "probe.py": PROBE}
    tree = write(tmp_path / "t", files)
    before = _run(tree)
    poolguard("lint", "--isolated", "--no-cache", "--fix", "pkg", cwd=tree, expect=1)
    assert "def use_sliding_window_kv_pool(self)" in (tree / "pkg" / "base.py").read_text()
    assert _run(tree) == before == "swa"


# ---------------------------------------------------------------- warm runs and module names

HELPERS = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    def configure(backend, model_runner):
        pool = model_runner.token_to_kv_pool
        backend.windowed = isinstance(pool, SWAKVPool)
    """)
HANDER = dedent("""\
    from pkg.helpers import configure


    class XBackend:
        def __init__(self, model_runner):
            configure(self, model_runner)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.windowed:
                return 1
            return 0
    """)
TABLES = "TRANSLATORS = {}\n\n\ndef translator_for(name):\n    return TRANSLATORS.get(name)\n"
TABLED = dedent("""\
    from pkg.tables import TRANSLATORS, translator_for
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class TabledAttnBackend:
        def __init__(self, model_runner, name="target"):
            self.name = name
            pool = model_runner.token_to_kv_pool
            if isinstance(pool, SWAKVPool):
                TRANSLATORS[name] = pool.translate_loc_from_full_to_swa

        def init_forward_metadata(self, forward_batch):
            translate = translator_for(self.name)
            loc = forward_batch.out_cache_loc
            self.loc = translate(loc) if translate is not None else loc
    """)


def _warm_and_cold(tree, cache) -> tuple:
    warm = poolguard("lint", "--isolated", "pkg", cwd=tree, cache_dir=cache).stdout
    cold = poolguard("lint", "--isolated", "--no-cache", "pkg", cwd=tree).stdout
    return warm, cold


def test_a_warm_run_follows_the_text_of_a_backend_handing_itself_to_a_helper(tmp_path):
    """Whether the backend's text names the vocabulary decides where the helper's store is
    reported: that text is a dependency of the helper's result (a comment edit changes it)."""
    tree = write(tmp_path / "t", {**STUBS, "pkg/__init__.py": "", "pkg/helpers.py": HELPERS,
                                  "pkg/backend.py": HANDER})
    cache = tmp_path / "cache"
    poolguard("lint", "--isolated", "pkg", cwd=tree, cache_dir=cache)
    with open(tree / "pkg" / "backend.py", "a") as handle:
        handle.write("# swa\n")
    warm, cold = _warm_and_cold(tree, cache)
    assert warm == cold and "backend.py:6:9: KVP002" in cold


def test_an_init_file_above_the_run_renames_nothing_it_finds_and_is_in_the_cache_key(tmp_path):
    """Module names count from the outermost package folder, above the linted one too: an
    ``__init__.py`` added there (outside the run) changes them, so a warm run must see it, and
    a module global the backend fills through one spelling (``pkg.tables``) is the one a
    helper of the same module reads through the other (``t.pkg.tables``)."""
    tree = write(tmp_path / "t", {**STUBS, "pkg/__init__.py": "", "pkg/tables.py": TABLES,
                                  "pkg/backend.py": TABLED})
    cache = tmp_path / "cache"
    first = poolguard("lint", "--isolated", "pkg", cwd=tree, cache_dir=cache).stdout
    assert "backend.py:10:13: KVP001" in first and "backend.py:15:38: KVP003" in first
    (tree / "__init__.py").write_text("")
    warm, cold = _warm_and_cold(tree, cache)
    assert warm == cold == first


def test_the_package_forms_find_the_same_under_an_enclosing_package(tmp_path):
    """Every bundled package form, linted together, finds the same places whether or not the
    folder holding them (and the one above) is itself a package."""
    forms = Path(__file__).parent / "forms"
    root = tmp_path / "outer" / "all"
    for form in sorted(forms.glob("pkg_*")):
        shutil.copytree(form, root / form.name)

    def found() -> list:
        out = poolguard("lint", "--isolated", "--no-cache", "all", cwd=root.parent).stdout
        return sorted(line.split(" ", 2)[:2] for line in out.splitlines() if ": KVP" in line)

    plain = found()
    (root / "__init__.py").write_text("")
    inside = found()
    (root.parent / "__init__.py").write_text("")
    assert plain == inside == found() and len(plain) > 100
