"""A warm cache answers a package exactly as a cold run does, whatever changed between runs.

A file's result in ``poolguard lint DIR`` depends on other files: the bases and helpers it
reads, the backends that inherit its mixins, the modules its imports resolve to, whether a
package backend inherits one of its classes at all. Each step below edits, adds or removes one
such file of a small package between two runs sharing a cache, then compares the warm run with
a cold one (fresh cache) and checks that the findings did change where the step says.
"""
from __future__ import annotations

from textwrap import dedent

from clirun import STALE, json_rows, poolguard, write

LINT = ("lint", "--isolated", "--format", "json", "pkg")
MIXIN = dedent("""\
    class SpecMixin:
        def plan_swa(self, layer):
            if self.is_swa:
                return 1
            return 0
""")
IMPORT = "from pkg.mixin import SpecMixin\n\n\n"
PLAIN_HEIR = IMPORT + dedent("""\
    class ABackend(SpecMixin, AttentionBackend):
        def __init__(self, model_runner):
            self.window = 4
""")
NOT_AN_HEIR = PLAIN_HEIR.replace("SpecMixin, ", "")
FLAG_HEIR = IMPORT + dedent("""\
    class BBackend(SpecMixin, AttentionBackend):
        def __init__(self, model_runner):
            self.is_swa = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
""")
HELPERS = dedent("""\
    def pool_is_swa(model_runner):
        return isinstance(model_runner.token_to_kv_pool, SWAKVPool)
""")
HELPED = dedent("""\
    from {module} import pool_is_swa


    class CBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.hybrid = pool_is_swa(model_runner)

        def forward_decode(self, layer):
            if self.hybrid:
                return 1
""")
MIXIN_GATE = ("pkg/mixin.py", 3, "KVP003")
HELPED_ROWS = [("pkg/c.py", 6, "KVP002"), ("pkg/c.py", 9, "KVP003")]


def _warm_is_cold(tmp_path, cache, *args) -> list:
    """The warm run's rows, asserted equal to a cold run's."""
    root = tmp_path / "tree"
    warm = json_rows(poolguard(*LINT[:-1], *(args or LINT[-1:]), cwd=root, cache_dir=cache).stdout)
    cold_cache = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    cold = json_rows(poolguard(*LINT[:-1], *(args or LINT[-1:]), cwd=root,
                               cache_dir=cold_cache).stdout)
    assert warm == cold
    return warm


def test_results_follow_every_file_they_depend_on(tmp_path):
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    write(pkg, {"__init__.py": "", "mixin.py": MIXIN, "a.py": NOT_AN_HEIR,
                "c.py": HELPED.format(module="pkg.helpers")})
    # nothing inherits SpecMixin (the pre-filter skips mixin.py); pkg.helpers does not exist
    assert _warm_is_cold(tmp_path, cache) == []
    write(pkg, {"a.py": PLAIN_HEIR})  # now a backend inherits it: mixin.py is analysed
    assert _warm_is_cold(tmp_path, cache) == []
    write(pkg, {"b.py": FLAG_HEIR})  # a brand-new heir stores the flag the mixin gates on
    assert _warm_is_cold(tmp_path, cache) == [("pkg/b.py", 6, "KVP002"), MIXIN_GATE]
    write(pkg, {"helpers.py": HELPERS})  # the module c.py imports appears
    assert _warm_is_cold(tmp_path, cache) == sorted(
        [("pkg/b.py", 6, "KVP002"), MIXIN_GATE, *HELPED_ROWS])
    (pkg / "b.py").unlink()  # the heir goes: so does the mixin's finding
    assert _warm_is_cold(tmp_path, cache) == HELPED_ROWS
    write(pkg, {"helpers.py": HELPERS.replace("isinstance(", "bool(")})  # an edited helper
    assert _warm_is_cold(tmp_path, cache) == []


def test_one_content_at_two_paths_and_a_file_linted_alone_first(tmp_path):
    """Two identical files whose relative import resolves differently, and a file whose
    result was first cached from a run that named it alone (no package around it)."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    same = HELPED.format(module=".helpers")
    write(pkg, {"__init__.py": "", "x/__init__.py": "", "y/__init__.py": "",
                "x/c.py": same, "y/c.py": same, "x/helpers.py": HELPERS,
                "y/helpers.py": HELPERS.replace("isinstance(", "bool(")})
    assert _warm_is_cold(tmp_path, cache, "pkg/x/c.py") == []  # alone: no helper to read
    rows = [("pkg/x/c.py", 6, "KVP002"), ("pkg/x/c.py", 9, "KVP003")]
    assert _warm_is_cold(tmp_path, cache) == rows
    assert _warm_is_cold(tmp_path, cache) == rows  # and again, from the cache alone


def test_a_mixin_is_read_with_all_its_heirs_however_many(tmp_path):
    """Seven backends inherit the mixin (once at most four were read); the one storing the flag
    the mixin gates on is the last by name, and the mixin's gate is found."""
    heirs = {f"h{index}.py": PLAIN_HEIR.replace("ABackend", f"H{index}Backend")
             for index in range(6)}
    write(tmp_path / "tree" / "pkg", {"__init__.py": "", "mixin.py": MIXIN, **heirs,
                                      "z.py": FLAG_HEIR})
    assert _warm_is_cold(tmp_path, tmp_path / "cache") == [MIXIN_GATE, ("pkg/z.py", 6, "KVP002")]


RUNNER = dedent("""\
    class KVIndexTranslator:
        def __init__(self, token_to_kv_pool):
            self.to_swa = token_to_kv_pool.translate_loc_from_full_to_swa


    class ModelRunner:
        def init_kv_index_translator(self):
            self.kv_index_translator = KVIndexTranslator(token_to_kv_pool=self.token_to_kv_pool)
""")
TRANSLATED = dedent("""\
    class TBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.kv_index_translator = model_runner.kv_index_translator
""")


def test_a_module_that_cannot_bind_the_helper_is_read_not_parsed(tmp_path):
    """A module whose text neither spells the imported name nor star-imports is not parsed to
    look for it, yet its digest is recorded: once it defines the helper the result follows,
    and a star import on a continued line still binds it."""
    pkg, cache = tmp_path / "tree" / "pkg", tmp_path / "cache"
    write(pkg, {"__init__.py": "", "helpers.py": "WINDOW = 4\n",
                "c.py": HELPED.format(module="pkg.helpers")})
    assert _warm_is_cold(tmp_path, cache) == []
    write(pkg, {"helpers.py": HELPERS})
    assert _warm_is_cold(tmp_path, cache) == HELPED_ROWS
    write(pkg, {"helpers.py": "from pkg.impl import \\\n    *\n", "impl.py": HELPERS})
    assert _warm_is_cold(tmp_path, cache) == HELPED_ROWS


def test_runner_built_state_follows_the_runner_module(tmp_path):
    """What the runner of another module builds from its own pool (rel4's M6): found only with
    the runner in the run, and re-judged when the runner's file changes (or appears)."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    write(pkg, {"__init__.py": "", "t.py": TRANSLATED})
    assert _warm_is_cold(tmp_path, cache) == []  # no runner: nothing says what it built
    write(pkg, {"runner.py": RUNNER})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/t.py", 4, "KVP001")]
    assert _warm_is_cold(tmp_path, cache, "pkg/t.py") == []  # the file alone: silent
    write(pkg, {"runner.py": RUNNER.replace("self.token_to_kv_pool)", "self.page_size)")})
    assert _warm_is_cold(tmp_path, cache) == []  # built from geometry: no pool state


HELPER_BASE = dedent("""\
    class BaseHelperBackend(AttentionBackend):
        def _swa_pool_of(self, pool):
            return pool.swa_kv_pool

        def _size_of(self, pool):
            return pool.page_size
""")
HELPED_CHILD = dedent("""\
    from pkg.base import BaseHelperBackend


    class ChildBackend(BaseHelperBackend):
        def __init__(self, model_runner):
            self.swa_pool = self._swa_pool_of(model_runner.token_to_kv_pool)
            self.page = self._size_of(pool=model_runner.token_to_kv_pool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            return self._swa_pool_of(self.token_to_kv_pool), self.page
""")


def test_an_inherited_instance_method_is_run_with_the_callers_arguments(tmp_path):
    """A helper method of a base in another module (rel4's M7) given the pool: what it returns
    for that argument (a sub-pool: KVP001; geometry: clean), re-judged when the base changes."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    write(pkg, {"__init__.py": "", "base.py": HELPER_BASE, "child.py": HELPED_CHILD})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/child.py", 6, "KVP001")]
    write(pkg, {"base.py": HELPER_BASE.replace("pool.swa_kv_pool", "pool.page_size")})
    assert _warm_is_cold(tmp_path, cache) == []


def test_a_star_imported_helper_follows_every_module_of_the_star_chain(tmp_path):
    """``from pkg.shim import *`` where shim star-imports helpers: the helper is found through
    the chain, and an edit of any module on it (the shim's ``__all__``, the helper, a module
    starting to define the name earlier in the chain) is seen by a warm run."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    starred = HELPED.replace("from {module} import pool_is_swa", "from pkg.shim import *")
    write(pkg, {"__init__.py": "", "helpers.py": HELPERS, "c.py": starred,
                "shim.py": "from pkg.other import *\nfrom pkg.helpers import *\n",
                "other.py": "def unrelated():\n    return 0\n"})
    assert _warm_is_cold(tmp_path, cache) == HELPED_ROWS
    write(pkg, {"helpers.py": "__all__ = ['nothing']\n" + HELPERS})  # no longer exported
    assert _warm_is_cold(tmp_path, cache) == []
    write(pkg, {"other.py": HELPERS})  # exported by the other star module
    assert _warm_is_cold(tmp_path, cache) == HELPED_ROWS
    write(pkg, {"other.py": HELPERS.replace("isinstance(", "bool(")})
    assert _warm_is_cold(tmp_path, cache) == []


PLANNER = dedent("""\
    class Planner:
        def __init__(self, chunk, window_pool=None):
            self.chunk = chunk
            self.window_pool = window_pool
""")
PLANNED_BASE = dedent("""\
    from pkg.planner import Planner


    class PlannedBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.planner = self._build(model_runner)

        def _build(self, model_runner):
            return Planner(16, model_runner.token_to_kv_pool.swa_kv_pool)
""")
PLANNED_HEIR = dedent("""\
    from pkg.base import PlannedBackend


    class HeirBackend(PlannedBackend):
        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.planner.window_pool is not None:
                return 1
""")


def test_a_field_of_a_base_built_object_follows_the_modules_that_built_it(tmp_path):
    """A subclass's gate on a field of an object its base's helper built (the base's summary
    carries what each field holds): re-judged when the object's class or the base changes."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    write(pkg, {"__init__.py": "", "planner.py": PLANNER, "base.py": PLANNED_BASE,
                "heir.py": PLANNED_HEIR})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 6, "KVP001"),
                                              ("pkg/heir.py", 6, "KVP003")]
    write(pkg, {"planner.py": PLANNER.replace("= window_pool", "= None")})  # keeps none
    assert _warm_is_cold(tmp_path, cache) == []
    write(pkg, {"planner.py": PLANNER})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 6, "KVP001"),
                                              ("pkg/heir.py", 6, "KVP003")]
    write(pkg, {"base.py": PLANNED_BASE.replace("swa_kv_pool", "page_size")})  # geometry
    assert _warm_is_cold(tmp_path, cache) == []


DECIDING_BASE = dedent("""\
    class DecidingBackend(AttentionBackend):
        def __init__(self, model_runner):
            pool = model_runner.token_to_kv_pool
            if isinstance(pool, SWAKVPool):
                self.translate = pool.translate_loc_from_full_to_swa
""")
PROBING_HEIR = dedent("""\
    from pkg.base import DecidingBackend


    class ProbingBackend(DecidingBackend):
        def forward_decode(self, q, k, v, layer, forward_batch):
            if hasattr(self, "translate"):
                return 1
""")


def test_whether_a_base_sets_an_attribute_follows_the_base(tmp_path):
    """A subclass's ``hasattr`` of what its base of another module sets only under a pool
    test (``ClassSummary.decided``), re-judged when the base sets it either way."""
    pkg = tmp_path / "tree" / "pkg"
    cache = tmp_path / "cache"
    write(pkg, {"__init__.py": "", "base.py": DECIDING_BASE, "heir.py": PROBING_HEIR})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 5, "KVP001"),
                                              ("pkg/heir.py", 6, "KVP003")]
    write(pkg, {"base.py": DECIDING_BASE + "        else:\n            self.translate = None\n"})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 5, "KVP001")]


QUIET_BASE = dedent("""\
    class LoRABackend:
        def __init__(self, model_runner):
            self.flag = False
""")
QUIET_HEIR = dedent("""\
    from pkg.base import LoRABackend


    class TritonLoRABackend(LoRABackend):
        def run_lora(self, layer):
            if self.flag:
                return 1
            return 0
""")


def test_a_heir_follows_its_family_into_the_vocabulary(tmp_path):
    """Heirs of a backend family whose modules never name the vocabulary (LoRA, grammar
    "backends") are not analysed: nothing they inherit can hold pool state. Once a base of the
    family decides its flag from the pool, the heir's gate on it is found, warm as cold; and
    a grand-heir in a third module follows the same base."""
    pkg, cache = tmp_path / "tree" / "pkg", tmp_path / "cache"
    write(pkg, {"__init__.py": "", "base.py": QUIET_BASE, "heir.py": QUIET_HEIR})
    assert _warm_is_cold(tmp_path, cache) == []
    vocal = QUIET_BASE.replace("False", "isinstance(model_runner.token_to_kv_pool, SWAKVPool)")
    write(pkg, {"base.py": vocal})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 3, "KVP002"),
                                              ("pkg/heir.py", 6, "KVP003")]
    grand = QUIET_HEIR.replace("pkg.base import LoRABackend", "pkg.heir import TritonLoRABackend")
    write(pkg, {"grand.py": grand.replace("(LoRABackend)", "(TritonLoRABackend)").replace(
        "class TritonLoRABackend", "class FusedLoRABackend")})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/base.py", 3, "KVP002"),
                                              ("pkg/grand.py", 6, "KVP003"),
                                              ("pkg/heir.py", 6, "KVP003")]
    write(pkg, {"base.py": QUIET_BASE})
    assert _warm_is_cold(tmp_path, cache) == []


def test_each_worker_gets_whole_families_and_the_same_findings(tmp_path):
    """Workers summarise only what their own files read, so a family (a base, its heirs, a
    mixin and its heirs, through any module) goes to one worker whole; a base every backend
    inherits ties nothing. The findings are those of one worker."""
    from lint_rules.package import HUB_HEIRS, PackageIndex, class_headers

    sources = {"hub.py": "class AttentionBackend:\n    pass\n",
               "base.py": BASE_OF_FAMILY, "heir.py": HEIR_OF_FAMILY,
               "mixin.py": MIXIN, "a.py": PLAIN_HEIR, "b.py": FLAG_HEIR}
    sources.update({f"other{i}.py": f"class O{i}Backend(AttentionBackend):\n    pass\n"
                    for i in range(HUB_HEIRS + 1)})
    pkg = write(tmp_path / "tree" / "pkg", {"__init__.py": "", **sources})
    paths = [str(pkg / name) for name in sources]
    index = PackageIndex(paths)
    index.connect({p: class_headers(open(p).read()) for p in paths}, {})
    groups = index.families(paths, 2)
    assert len(groups) == 2 and sorted(sum(groups, [])) == sorted(paths)
    for family in (("base.py", "heir.py"), ("mixin.py", "a.py", "b.py")):
        assert any({str(pkg / name) for name in family} <= set(group) for group in groups)
    assert all(group == sorted(group, key=paths.index) for group in groups)
    one = json_rows(poolguard(*LINT[:-1], "--jobs", "1", "pkg", cwd=tmp_path / "tree",
                              cache_dir=tmp_path / "one").stdout)
    two = json_rows(poolguard(*LINT[:-1], "--jobs", "2", "pkg", cwd=tmp_path / "tree",
                              cache_dir=tmp_path / "two").stdout)
    assert one == two == [("pkg/b.py", 6, "KVP002"), ("pkg/base.py", 3, "KVP002"),
                          ("pkg/heir.py", 6, "KVP003"), MIXIN_GATE]


def test_a_backend_of_many_mixins_keeps_them_all_in_its_group(tmp_path):
    """A backend inheriting mixins of three other modules ties all four files, whatever the
    order the graph meets them in: the union of the families' links kept every one (a
    shortcut taken while finding a file's family cut the third link, so a mixin's module went
    to the other worker and both summarised the backend)."""
    from lint_rules.package import PackageIndex, class_headers

    sources = {f"mixin{i}.py": f"class M{i}Mixin:\n    pass\n" for i in range(1, 4)}
    sources["backend.py"] = ("class DsaBackend(M1Mixin, M2Mixin, M3Mixin, AttentionBackend):\n"
                             "    pass\n")
    sources.update({f"plain{i}.py": f"class P{i}Backend(AttentionBackend):\n    pass\n"
                    for i in range(12)})
    pkg = write(tmp_path / "pkg", {"__init__.py": "", **sources})
    paths = [str(pkg / name) for name in sources]
    index = PackageIndex(paths, contents={p: open(p, "rb").read() for p in paths})  # (weights)
    index.connect({p: class_headers(open(p).read()) for p in paths}, {})
    family = {str(pkg / name) for name in ("backend.py", "mixin1.py", "mixin2.py", "mixin3.py")}
    for count in (2, 3):
        groups = index.families(paths, count)
        assert sum(len(group) for group in groups) == len(paths)
        assert any(family <= set(group) for group in groups)


BASE_OF_FAMILY = dedent("""\
    class SharedBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.swa_on = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
""")
HEIR_OF_FAMILY = dedent("""\
    from pkg.base import SharedBackend


    class LeafBackend(SharedBackend):
        def forward_decode(self, layer):
            if self.swa_on:
                return 1
            return 0
""")


def test_a_package_linted_as_itself_names_its_modules_as_imports_do(tmp_path):
    """``poolguard lint pkg`` (the package folder itself, as pre-commit and CI name it):
    modules are named from above every folder holding an ``__init__.py``, so ``from pkg
    import pool_is_swa``, which ``pkg/__init__.py`` re-exports with a relative star import,
    finds the helper, warm as cold, as it does when the run starts above the package."""
    pkg, cache = tmp_path / "tree" / "pkg", tmp_path / "cache"
    write(pkg, {"__init__.py": "from .impl import *  # noqa: F401,F403\n",
                "impl.py": HELPERS, "c.py": HELPED.format(module="pkg")})
    rows = [("pkg/c.py", 6, "KVP002"), ("pkg/c.py", 9, "KVP003")]
    assert _warm_is_cold(tmp_path, cache) == rows
    assert json_rows(poolguard(*LINT[:-1], ".", cwd=pkg, cache_dir=tmp_path / "in").stdout) == [
        ("c.py", 6, "KVP002"), ("c.py", 9, "KVP003")]


QUIET_MIXIN = dedent("""\
    class PlanMixin:
        def plan_pages(self, seq_lens):
            if self.hybrid:
                return seq_lens // 16
            return seq_lens
""")
PLANNED = dedent("""\
    from pkg.planning import PlanMixin


    class PlannedBackend(PlanMixin, AttentionBackend):
        def __init__(self, model_runner):
            self.hybrid = model_runner.page_size > 1
""")


def test_a_mixin_naming_nothing_is_read_once_an_heir_may_hold_pool_state(tmp_path):
    """A mixin whose module names none of the vocabulary gates on a flag only its heirs set:
    read once an heir decides that flag from the pool (the heir's module names it), warm as
    cold, and left again when no heir does."""
    pkg, cache = tmp_path / "tree" / "pkg", tmp_path / "cache"
    write(pkg, {"__init__.py": "", "planning.py": QUIET_MIXIN, "b.py": PLANNED})
    assert _warm_is_cold(tmp_path, cache) == []
    decided = PLANNED.replace("model_runner.page_size > 1",
                              "isinstance(model_runner.token_to_kv_pool, SWAKVPool)")
    write(pkg, {"b.py": decided})
    assert _warm_is_cold(tmp_path, cache) == [("pkg/b.py", 6, "KVP002"),
                                              ("pkg/planning.py", 3, "KVP003")]
    write(pkg, {"b.py": PLANNED})
    assert _warm_is_cold(tmp_path, cache) == []


STATE_MODULE = dedent("""\
    WINDOWED = False
    _MAP = None


    def install(pool):
        global WINDOWED, _MAP
        WINDOWED = isinstance(pool, SWAKVPool)
        _MAP = pool.full_to_swa_index_mapping


    def mapping():
        return _MAP
""")
INSTALLED = dedent("""\
    from pkg import state
    from pkg.updaters import Updater


    class DBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.model_runner = model_runner
            state.install(model_runner.token_to_kv_pool)
            self.updater = Updater.for_backend(self)

        def forward_decode(self, q, layer):
            if state.WINDOWED:
                return 1
            m = state.mapping()
            if self.updater is not None:
                return m if m is not None else q
""")
UPDATERS = dedent("""\
    class Updater:
        def __init__(self, backend):
            self.translate = backend.model_runner.token_to_kv_pool.translate_loc_from_full_to_swa

        @staticmethod
        def for_backend(backend):
            return Updater(backend)
""")


def test_what_a_call_keeps_in_another_module_follows_that_module(tmp_path):
    """A function of another module setting its globals from the pool the backend hands it,
    and a factory of another module handed the backend itself: their findings sit in the
    backend's file and change, warm as cold, when those modules stop reading the pool."""
    pkg, cache = tmp_path / "tree" / "pkg", tmp_path / "cache"
    write(pkg, {"__init__.py": "", "state.py": STATE_MODULE, "updaters.py": UPDATERS,
                "d.py": INSTALLED})
    flag = [("pkg/d.py", 8, "KVP002"), ("pkg/d.py", 12, "KVP003")]
    assert _warm_is_cold(tmp_path, cache) == sorted([
        *flag, ("pkg/d.py", 8, "KVP001"), ("pkg/d.py", 9, "KVP001"), ("pkg/d.py", 16, "KVP003")])
    write(pkg, {"state.py": STATE_MODULE.replace("pool.full_to_swa_index_mapping", "None")})
    assert _warm_is_cold(tmp_path, cache) == sorted([*flag, ("pkg/d.py", 9, "KVP001")])
    write(pkg, {"updaters.py": UPDATERS.replace(
        "backend.model_runner.token_to_kv_pool.translate_loc_from_full_to_swa", "None")})
    assert _warm_is_cold(tmp_path, cache) == flag


def test_a_module_beginning_with_a_non_ascii_name_is_read_into_the_class_graph(tmp_path):
    # the class graph looks for a base bound under another name at the text's first word: one
    # that begins beyond ASCII ended the whole run with an internal error (exit 2)
    root = write(tmp_path / "t", {"q/__init__.py": "", "q/b.py": STALE,
                                  "q/a.py": "é = 1\n\n\nclass Data(Base):\n    pass\n"})
    done = poolguard("lint", "--no-cache", "q", cwd=root, expect=1)
    assert done.stdout.startswith("q/b.py:3:9: KVP001 ")


def test_a_long_chain_of_as_words_is_read_in_linear_time(tmp_path):
    # whether a base follows ' as ' is decided by the scan that meets every other ' as ' of a
    # chain: each position of the chain is looked at once
    data = "x = 1  #" + " as" * 400_000 + " Base\nclass Data(Base):\n    pass\n"
    root = write(tmp_path / "t", {"q/__init__.py": "", "q/data.py": data, "q/b.py": STALE})
    done = poolguard("lint", "--no-cache", "q", cwd=root, expect=1, timeout=60)
    assert done.stdout.startswith("q/b.py:3:9: KVP001 ")


def test_a_module_of_many_bases_is_read_in_linear_time(tmp_path):
    # the first few bases of a module are each looked for by literal searches of its text; a
    # module naming thousands of bases is read in one pass for all of them
    data = "".join(f"class Data{i}(Base{i}):\n    pass\n" for i in range(30_000))
    root = write(tmp_path / "t", {"q/__init__.py": "", "q/data.py": data, "q/b.py": STALE})
    done = poolguard("lint", "--no-cache", "q", cwd=root, expect=1, timeout=60)
    assert done.stdout.startswith("q/b.py:3:9: KVP001 ")


def test_a_line_naming_a_base_as_often_as_it_likes_is_read_in_linear_time(tmp_path):
    # each 'y as Base' of one long comment line is looked at as a possible 'import y as Base':
    # where its line starts and the last parenthesis before it come from the scan so far (a
    # search back to the line's start for each of them took 21 s of CPU at 200,000 of them)
    data = "# " + "y as Base " * 400_000 + "\nclass Data(Base):\n    pass\n"
    root = write(tmp_path / "t", {"q/__init__.py": "", "q/data.py": data, "q/b.py": STALE})
    done = poolguard("lint", "--no-cache", "q", cwd=root, expect=1, timeout=60)
    assert done.stdout.startswith("q/b.py:3:9: KVP001 ")
