"""A ninth hostile round on the CLI (tidy9): what the earlier rounds left, through the real
``poolguard`` subprocess on real files."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from clirun import STALE, poolguard, write

# One type flag (KVP002) and its gate (KVP003); a method and the runner kept beside them.
FLAGGED = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.model_runner = model_runner
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.use_swa = isinstance(self.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_swa:
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            return q
""")


@pytest.mark.parametrize("attr", ["token_to_kv_pool", "token_to_kv_pool_allocator",
                                  "model_runner", "use_swa", "forward_decode"])
@pytest.mark.parametrize("unsafe", [False, True])
def test_a_pool_attr_the_class_holds_otherwise_is_never_fixed_into(tmp_path, attr, unsafe):
    # the fixes test `self.<kvp-pool-attr> is not None`: over the active pool or the runner
    # that is always true (a safe --fix made every model take the SWA path), over the flag
    # itself a recursive property, over a method a shadowing store
    root = write(tmp_path / "t", {"b.py": FLAGGED})
    done = poolguard("lint", "--no-cache", "--isolated", "--kvp-pool-attr", attr, "--fix",
                     *(["--unsafe-fixes"] if unsafe else []), "b.py", cwd=root, expect=1)
    assert (root / "b.py").read_text() == FLAGGED, done.stderr
    assert "b.py:8:9: KVP002" in done.stdout
    if unsafe:
        assert f"not rewritten by --unsafe-fixes: self.{attr} " in done.stderr, done.stderr


def test_a_pool_attr_of_its_own_is_still_fixed_into(tmp_path):
    root = write(tmp_path / "t", {"b.py": FLAGGED})
    poolguard("lint", "--no-cache", "--isolated", "--kvp-pool-attr", "window_pool", "--fix",
              "--unsafe-fixes", "b.py", cwd=root, expect=0)
    fixed = (root / "b.py").read_text()
    ast.parse(fixed)
    assert "self.window_pool = self._resolve_swa_kv_pool(model_runner)" in fixed
    assert "if self.window_pool is not None:" in fixed


FORMS = Path(__file__).resolve().parent / "forms"


def test_what_unsafe_fixes_declines_is_said_the_same_on_every_run(tmp_path):
    # the reason named the first flag of a set (self.win / self.swa_layers / self.flagged by
    # hash seed), and the classes' lines came in the order their notes were first met
    files = [str(FORMS / name) for name in ("stale_factories.py", "stale_module_state.py")]
    said = set()
    for seed in ("1", "3", "5"):
        done = poolguard("lint", "--no-cache", "--isolated", "--diff", "--unsafe-fixes", *files,
                         cwd=tmp_path, env={"PYTHONHASHSEED": seed}, expect=1)
        said.add(done.stderr)
    assert len(said) == 1, said
    assert said.pop().count("not rewritten by --unsafe-fixes") == 4


@pytest.mark.parametrize("blank", [" ", "\t", "  \n"])
def test_a_blank_cache_dir_is_unset_not_a_folder_in_the_linted_tree(tmp_path, blank):
    # POOLGUARD_CACHE_DIR=' ' (an env file's 'KEY= ') made a folder named ' ' in the cwd
    root = write(tmp_path / "t", {"s.py": STALE})
    home = tmp_path / "home"
    env = {**os.environ, "POOLGUARD_CACHE_DIR": blank, "HOME": str(home),
           "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", "s.py"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "s.py:3:9: KVP001" in done.stdout, done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["s.py"]
    assert (home / ".cache" / "sglang-poolguard").is_dir()


@pytest.mark.parametrize("line", ['extend-select = ["KVP004"]', "select = 'KVP001'",
                                  "ignore = [KVP001]", "extend-ignore = {KVP002}"])
def test_a_code_list_spelled_as_toml_in_an_ini_config_is_refused(tmp_path, line):
    # the INI file keeps '["KVP004"]' as text: no KVP code, so it was dropped as another
    # plugin's and the run went on with the default set (KVP004 never on, KVP001 not ignored)
    root = write(tmp_path / "t", {"s.py": STALE, "setup.cfg": f"[flake8]\n{line}\n"})
    done = poolguard("lint", "--no-cache", ".", cwd=root, expect=2)
    assert done.stderr.count("\n") == 1 and "is no code: list codes bare, comma-separated" \
        in done.stderr, done.stderr


def test_a_comment_left_in_a_code_list_still_reads_as_before(tmp_path):
    root = write(tmp_path / "t", {"s.py": STALE,
                                  "setup.cfg": "[flake8]\nextend-ignore = E203, # black\n"})
    done = poolguard("lint", "--no-cache", ".", cwd=root, expect=1)
    assert "s.py:3:9: KVP001" in done.stdout
