"""A fourth hostile round on the CLI (attack4): autofix over a package whose findings span
modules, through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import json
from textwrap import dedent

from clirun import poolguard, write

# The flag is stored in one module and gated on in a subclass in another: the subclass's
# KVP003 exists only in the package analysis, the file alone is clean.
SPLIT = {
    "q/__init__.py": "",
    "q/base.py": dedent("""\
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


        class ParentAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.paged_split = isinstance(model_runner.token_to_kv_pool, SWAKVPool)
    """),
    "q/child.py": dedent("""\
        from q.base import ParentAttnBackend


        class ChildAttnBackend(ParentAttnBackend):
            def forward_extend(self, q, layer):
                if self.paged_split:
                    return q
                return layer
    """),
}


def test_unsafe_fixes_say_why_a_class_known_only_from_the_package_is_not_rewritten(tmp_path):
    # the codemod reads one file: a class whose findings come from another module was counted
    # as rewritten (into nothing), so no line said why and the summary kept promising it. The
    # base's noqa keeps it as it is, so the child's gate stays (attack14: --diff shows what
    # --fix leaves, and once the base is rewritten the child has nothing left to decline)
    files = dict(SPLIT, **{"q/base.py": SPLIT["q/base.py"].replace(
        "SWAKVPool)\n", "SWAKVPool)  # noqa: KVP002\n")})
    root = write(tmp_path / "t", files)
    for mode in ("--diff", "--fix"):
        done = poolguard("lint", "--no-cache", mode, "--unsafe-fixes", "q", cwd=root, expect=1)
        assert "q/child.py: ChildAttnBackend not rewritten by --unsafe-fixes: " in done.stderr
        assert "may be fixed with" not in done.stderr
    root = write(tmp_path / "split", SPLIT)
    done = poolguard("lint", "--no-cache", "--diff", "--unsafe-fixes", "q", cwd=root, expect=1)
    assert done.stderr == "poolguard: --fix would change 1 file; 0 findings would remain\n"
    rows = json.loads(poolguard("lint", "--no-cache", "--unsafe-fixes", "--format", "json",
                                "q", cwd=root, expect=1).stdout)
    assert any(r["path"] == "q/child.py" for r in rows)  # a plain lint still offers it


def test_fix_reports_what_a_lint_of_the_fixed_package_finds(tmp_path):
    # the child's gate is stale only while the base stores the flag: once --fix rewrote the
    # base, the report of what is left (and the exit status) still counted the child's gate
    root = write(tmp_path / "t", SPLIT)
    done = poolguard("lint", "--no-cache", "--fix", "--unsafe-fixes", "q", cwd=root, expect=0)
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1] == "poolguard: Fixed 1 file; all checks passed!"
    poolguard("lint", "--no-cache", "q", cwd=root, expect=0)
    again = poolguard("lint", "--no-cache", "--fix", "--unsafe-fixes", "q", cwd=root, expect=0)
    assert again.stderr.splitlines()[-1] == "poolguard: All checks passed!"


# The backend keeps what the runner (another module) built on its pool, beside a flag the
# codemod rewrites: after the rewrite the runner-built state is still a finding, and only the
# package analysis sees it.
RUNNER_BUILT = {
    "r/__init__.py": "",
    "r/runner.py": dedent("""\
        class ModelRunner:
            def init_memory_pool(self):
                self.kv_index_translator = KVIndexTranslator(self.token_to_kv_pool)
    """),
    "r/backend.py": dedent("""\
        from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


        class TritonishAttnBackend(AttentionBackend):
            def __init__(self, model_runner):
                self.kv_index_translator = model_runner.kv_index_translator
                self.use_sliding_window_kv_pool = isinstance(model_runner.token_to_kv_pool,
                                                             SWAKVPool)

            def forward_decode(self, q, layer):
                if self.use_sliding_window_kv_pool:
                    return self.kv_index_translator.translate(q)
                return layer
    """),
}


def test_a_class_the_codemod_rewrote_is_not_offered_the_rewrite_again(tmp_path):
    # what is left in a rewritten class was promised to a second `--fix --unsafe-fixes`,
    # which then rewrote nothing
    root = write(tmp_path / "t", RUNNER_BUILT)
    done = poolguard("lint", "--fix", "--unsafe-fixes", "r", cwd=root, expect=1)
    assert done.stdout.splitlines() == [
        "r/backend.py:6:9: KVP001 self.kv_index_translator is the runner's, built on its pool; "
        "FROZEN_KV swaps only the pool: swap it too in frozen_kv_mtp_utils"]
    assert done.stderr.splitlines() == ["poolguard: Fixed 1 file; found 1 finding."]
    again = poolguard("lint", "--no-cache", "--fix", "--unsafe-fixes", "r", cwd=root, expect=1)
    assert again.stdout == done.stdout
    # the fix's report is never what a later lint is answered with (warm == cold)
    warm, cold = (poolguard("lint", *extra, "r", cwd=root, expect=1)
                  for extra in ([], ["--no-cache"]))
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_a_cr_only_file_that_says_decoding_is_linted_not_called_undecodable(tmp_path):
    # the cookie check looked for "coding" up to the second "\n": in a CR-only file that is
    # the whole file, so any "decoding"/"encoding" in it made a valid file a KVP900
    source = ("class XAttnBackend(AttentionBackend):\r"
              "    def __init__(self, model_runner):\r"
              "        self.p = model_runner.token_to_kv_pool\r"
              "\r"
              "    def forward_decode(self):\r"
              '        """One speculative decoding step."""\r'
              "        return 1\r")
    root = write(tmp_path / "t", {"cr.py": source.encode(), "lf.py": source.replace("\r", "\n")})
    compile(source.encode(), "cr.py", "exec")  # Python reads it
    rows = json.loads(poolguard("lint", "--no-cache", "--isolated", "--format", "json", ".",
                                cwd=root, expect=1).stdout)
    assert sorted((r["path"], r["line"], r["code"]) for r in rows) == [
        ("cr.py", 3, "KVP001"), ("lf.py", 3, "KVP001")]


REWRITTEN = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class FlagAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.use_sliding_window_kv_pool = isinstance(model_runner.token_to_kv_pool,
                                                         SWAKVPool)

        def forward_decode(self, q, layer):
            if self.use_sliding_window_kv_pool:
                return q
            return layer
""")


def test_a_fix_the_files_encoding_cannot_hold_costs_that_file_only(tmp_path):
    # a non-ASCII --kvp-pool-attr that the codemod writes into an ASCII-declared file:
    # --diff died with "internal error: UnicodeEncodeError", every other file's diff lost
    root = write(tmp_path / "t", {"ascii.py": "# -*- coding: ascii -*-\n" + REWRITTEN,
                                  "plain.py": REWRITTEN})
    flags = ["--no-cache", "--isolated", "--unsafe-fixes", "--kvp-pool-attr", "_swa_pöol"]
    done = poolguard("lint", "--diff", *flags, ".", cwd=root, expect=2)
    assert "+++ b/plain.py" in done.stdout and "ascii.py" not in done.stdout
    assert "internal error" not in done.stderr
    assert ("poolguard: error: ascii.py: cannot apply the fix: the file's encoding (ascii) "
            "cannot hold 'ö'") in done.stderr.splitlines()
    before = (root / "ascii.py").read_bytes()
    fixed = poolguard("lint", "--fix", *flags, ".", cwd=root, expect=2)
    assert (root / "ascii.py").read_bytes() == before
    assert "self._swa_pöol = self._resolve_swa_kv_pool(model_runner)" in (
        root / "plain.py").read_text(encoding="utf-8")
    assert [line for line in fixed.stderr.splitlines() if "ascii.py" in line] == [
        "poolguard: error: ascii.py: cannot apply the fix: the file's encoding (ascii) cannot "
        "hold 'ö'"]
    assert fixed.stdout.startswith("ascii.py:")  # its findings, as a lint shows them


# A subclass in another module forces the flag off: the codemod made the base's flag a
# read-only property, so constructing the subclass raised AttributeError (no setter).
FORCED = {
    "q/__init__.py": "",
    "q/base.py": REWRITTEN,
    "q/child.py": dedent("""\
        from q.base import FlagAttnBackend


        class ForcedAttnBackend(FlagAttnBackend):
            def __init__(self, model_runner, force_full=False):
                super().__init__(model_runner)
                if force_full:
                    self.use_sliding_window_kv_pool = False
    """),
}


def test_the_codemod_declines_a_flag_a_subclass_in_another_module_assigns(tmp_path):
    root = write(tmp_path / "t", FORCED)
    before = (root / "q/base.py").read_text()
    done = poolguard("lint", "--no-cache", "--isolated", "--fix", "--unsafe-fixes", "q",
                     cwd=root, expect=1)
    assert (root / "q/base.py").read_text() == before
    assert ("poolguard: q/base.py: FlagAttnBackend not rewritten by --unsafe-fixes: a subclass "
            "in another module may assign self.use_sliding_window_kv_pool, which the rewrite "
            "makes a read-only view of the pool") in done.stderr.splitlines()
    # the same subclass gone: the rewrite is made, as before
    (root / "q/child.py").unlink()
    poolguard("lint", "--no-cache", "--isolated", "--fix", "--unsafe-fixes", "q", cwd=root,
              expect=0)
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)" in (
        root / "q/base.py").read_text()
