"""A tenth hostile round on the CLI (tidy10): what the earlier rounds left, through the real
``poolguard`` subprocess on real files."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from textwrap import dedent

import pytest
from clirun import STALE, json_rows, poolguard, write


@pytest.mark.parametrize("occurrence", ["true", "false", "0", "-1", "1.0", '"1"', "null", "[1]"])
def test_a_baseline_occurrence_that_is_no_whole_number_is_refused(tmp_path, occurrence):
    # JSON's true is Python's True, an int equal to 1: it matched occurrence 1 and hid the
    # finding, where any other value that --write-baseline never writes is refused
    root = write(tmp_path / "t", {"b.py": STALE})
    poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "base.json", "b.py",
              cwd=root, expect=0)
    payload = json.loads((root / "base.json").read_text())
    payload["findings"][0]["occurrence"] = json.loads(occurrence)
    (root / "base.json").write_text(json.dumps(payload))
    done = poolguard("lint", "--isolated", "--no-cache", "--baseline", "base.json", "b.py",
                     cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: error: baseline base.json has malformed findings (finding 1: occurrence "
        f"{occurrence} is not a whole number from 1 up)"], done.stderr


# The flag's store spelt with a fullwidth letter, its gate plainly: one attribute to Python.
RESPELT = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.use_\\uff53wa = isinstance(self.token_to_kv_pool, SWAKVPool)

        def forward_decode(self, q, k, v, layer, forward_batch):
            if self.use_swa:
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id)
            return q
""").encode().decode("unicode_escape")


@pytest.mark.parametrize("spelt, read", [("use_\uff53wa", "use_swa"),
                                         ("Demo\uff21ttnBackend", "DemoAttnBackend")])
def test_a_name_python_normalises_is_the_reason_the_codemod_declines(tmp_path, spelt, read):
    # the facts (ast) name the flag as Python reads it (NFKC), libcst as it is spelt: the
    # codemod found no store of self.use_swa and said "is not a statement of its own", or no
    # class DemoAttnBackend and said "DemoAttnBackend.__init__ not found"
    source = RESPELT.replace("use_\uff53wa", "use_swa").replace(read, spelt)
    root = write(tmp_path / "t", {"b.py": source.encode()})
    done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", "b.py",
                     cwd=root, expect=1)
    assert (f"poolguard: b.py: DemoAttnBackend not rewritten by --unsafe-fixes: the name "
            f"{ascii(spelt)} is {read} to Python (NFKC) but not to the codemod, which matches "
            f"names as spelt: spell it {read}") in done.stderr.splitlines(), done.stderr


def test_a_gate_spelt_otherwise_still_gets_the_rewrite(tmp_path):
    # a respelt gate reads the property the rewrite makes: rewritten, verified, idempotent
    source = RESPELT.replace("use_\uff53wa", "use_swa").replace(
        "if self.use_swa:", "if self.use_\uff53wa:")
    root = write(tmp_path / "t", {"b.py": source.encode()})
    poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "b.py", cwd=root,
              expect=0)
    fixed = (root / "b.py").read_text()
    ast.parse(fixed)
    assert "self._swa_kv_pool = self._resolve_swa_kv_pool(model_runner)" in fixed
    poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "b.py", cwd=root,
              expect=0)
    assert (root / "b.py").read_text() == fixed


UNDECODABLE = b'class DemoAttnBackend(AttentionBackend):\n    x = "\xff\xfe"\n'


def test_undecodable_stdin_is_one_kvp900_and_flake8s_own_failure_is_not_the_plugins(tmp_path):
    # README: flake8 7 decodes stdin as UTF-8 itself (flake8.utils.stdin_get_value) before any
    # plugin runs, so `flake8 -` ends in its own traceback; poolguard lint - reports the file
    root = tmp_path / "t"
    root.mkdir()
    (tmp_path / "in.py").write_bytes(UNDECODABLE)
    with open(tmp_path / "in.py", "rb") as stdin:
        done = poolguard("lint", "--isolated", "-", cwd=root, expect=1, stdin=stdin, text=False)
    assert done.stdout.decode().startswith("stdin:1:1: KVP900 cannot parse: cannot decode"), \
        done.stdout
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "-"], cwd=root,
                            input=UNDECODABLE, capture_output=True, timeout=120)
    assert b"lint_rules" not in flake8.stderr, flake8.stderr.decode(errors="replace")


def _stderr_lines(done) -> list:
    return done.stderr.decode("utf-8", "backslashreplace").split("\n")[:-1]


@pytest.mark.parametrize("name, shown", [
    (b"fi\nfo.py", '"fi\\nfo.py"'),
    (b"fi\x1b[31mred.py", '"fi\\033[31mred.py"'),
    (b"x\xff\rr.py", '"x\\377\\015r.py"'),
    (b'say "hi".py', '"say \\"hi\\".py"'),
])
def test_a_name_in_an_error_line_is_quoted_as_in_the_report(tmp_path, name, shown):
    # the line said "poolguard: error: fi" and "fo.py: not a regular file, not checked" (two
    # lines), sent ESC sequences and CRs to the terminal, and a byte that is not UTF-8 as
    # "\udcff"; text findings C-quote such names as git does, error lines now too
    root = tmp_path / "t"
    root.mkdir()
    os.mkfifo(os.path.join(os.fsencode(root), name))
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=root, expect=2, text=False)
    assert _stderr_lines(done) == [
        f"poolguard: error: {shown}: not a regular file, not checked",
        "poolguard: No findings in the files checked; 1 error above."], done.stderr


def test_a_read_only_file_with_an_escape_in_its_name_is_one_quoted_line(tmp_path):
    root = write(tmp_path / "t", {"ro\x1b.py": RESPELT.replace("use_\uff53wa", "use_swa")})
    (root / "ro\x1b.py").chmod(0o444)
    done = poolguard("lint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", ".",
                     cwd=root, expect=2, text=False)
    assert ('poolguard: error: "ro\\033.py": cannot write the fix: read-only; not rewritten '
            '(make it writable to apply the fix)') in _stderr_lines(done), done.stderr
    assert b"\x1b" not in done.stderr


def test_a_declined_class_in_a_file_with_a_newline_in_its_name_is_one_line(tmp_path):
    root = write(tmp_path / "t", {"a\nb.py": RESPELT.encode()})
    done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", ".",
                     cwd=root, expect=1, text=False)
    assert any(line.startswith('poolguard: "a\\nb.py": DemoAttnBackend not rewritten by '
                               '--unsafe-fixes: the name') for line in _stderr_lines(done)), \
        done.stderr


LONG_HEAD = dedent("""\
    from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool


    class DemoAttnBackend(AttentionBackend):
        def __init__(self, model_runner):
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.a0 = isinstance(self.token_to_kv_pool, SWAKVPool)
""")


def _lint_in_time(tmp_path, source: str):
    """A lint of ``source`` under a 15 s analysis limit (a file still busy then is KVP900)."""
    root = write(tmp_path / "t", {"b.py": source})
    return poolguard("lint", "--isolated", "--no-cache", "--format", "json", "b.py", cwd=root,
                     expect=1, env={"POOLGUARD_PARSE_TIMEOUT": "15"})


def test_a_test_of_thousands_of_flag_reads_is_analysed_in_linear_time(tmp_path):
    # FileFacts.decides_nothing walked the whole if once per gate of its test: 6,000 reads of
    # the flag in one `or` took about a minute of CPU, so the file was KVP900 (the time limit),
    # its findings lost
    source = LONG_HEAD + "\n    def forward_decode(self, q):\n        if " + " or ".join(
        ["self.a0"] * 6000) + ":\n            return 1\n"
    rows = json_rows(_lint_in_time(tmp_path, source).stdout)
    assert rows == [("b.py", 7, "KVP002"), ("b.py", 10, "KVP003")], rows[:3]


def test_thousands_of_gated_flags_are_planned_in_linear_time(tmp_path):
    # the codemod's plan (fixes.plan._resolve_at) walked __init__ once per gate in another
    # method: 6,000 flags stored there and gated in forward_decode took about 25 s of CPU,
    # the file KVP900 under the limit
    count = 6000
    source = LONG_HEAD + "".join(f"        self.s{i} = self.a0\n" for i in range(count)) + \
        "\n    def forward_decode(self, q):\n" + "".join(
            f"        if self.s{i}:\n            q = 1\n" for i in range(count)) + \
        "        return q\n"
    rows = json_rows(_lint_in_time(tmp_path, source).stdout)
    assert len(rows) == 1 + 2 * count and ("b.py", 7, "KVP002") in rows, rows[:3]


def test_a_diff_of_a_file_named_by_its_absolute_path_applies_from_the_root(tmp_path):
    # the header read a//tmp/.../b.py: git apply ('invalid path') and patch -p1 refused it
    # from /; git's own diff writes a/tmp/.../b.py
    root = write(tmp_path / "t", {"b.py": RESPELT.replace("use_\uff53wa", "use_swa")})
    target = root / "b.py"
    done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes",
                     str(target), cwd=root, expect=1)
    relative = str(target).lstrip("/")
    assert done.stdout.startswith(f"--- a/{relative}\n+++ b/{relative}\n"), done.stdout[:200]
    (tmp_path / "p.diff").write_text(done.stdout)
    applied = subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd="/",
                             capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stderr
    poolguard("lint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes", str(target),
              cwd=root, expect=0)


@pytest.mark.parametrize("attr, why", [
    ("__class__", "is a special name Python gives its own meaning"),
    ("__dict__", "is a special name Python gives its own meaning"),
    ("forward", "is a method every attention backend has"),
    ("init_forward_metadata", "is a method every attention backend has"),
])
def test_a_pool_attr_python_or_the_base_class_owns_is_never_fixed_into(tmp_path, attr, why):
    # the rewrite stored the resolved pool there: `self.__class__ = None` raises TypeError,
    # `self.forward = pool` shadows the dispatch AttentionBackend.forward every model calls
    source = RESPELT.replace("use_\uff53wa", "use_swa")
    root = write(tmp_path / "t", {"b.py": source})
    done = poolguard("lint", "--isolated", "--no-cache", "--kvp-pool-attr", attr, "--fix",
                     "--unsafe-fixes", "b.py", cwd=root, expect=1)
    assert (root / "b.py").read_text() == source, done.stderr
    assert (f"poolguard: b.py: DemoAttnBackend not rewritten by --unsafe-fixes: self.{attr} "
            f"(kvp-pool-attr) {why}") in done.stderr.splitlines(), done.stderr


@pytest.mark.parametrize("args, line", [
    (["--config", "a\nb.cfg"], "poolguard: error: config file a\\nb.cfg does not exist"),
    (["--baseline", "x\ny.json"],
     "poolguard: error: cannot read baseline x\\ny.json: No such file or directory"),
    (["--config", "c\x1b[2Jd.cfg"], "poolguard: error: config file c\\033[2Jd.cfg does not exist"),
])
def test_a_name_typed_with_a_control_character_stays_on_its_error_line(tmp_path, args, line):
    # 'config file a' and 'b.cfg does not exist' were two lines; ESC[2J cleared the screen
    root = write(tmp_path / "t", {"b.py": STALE})
    done = poolguard("lint", *args, "b.py", cwd=root, expect=2)
    assert done.stderr.splitlines() == [line], done.stderr


def test_a_cache_folder_named_with_a_newline_is_warned_about_on_one_line(tmp_path):
    root = write(tmp_path / "t", {"b.py": STALE, "a\nfile": ""})
    done = poolguard("lint", "--isolated", "b.py", cwd=root, expect=1,
                     cache_dir=root / "a\nfile")
    assert done.stderr.splitlines()[0] == (
        f"poolguard: warning: no cache: {root}/a\\nfile is not a directory (set "
        "POOLGUARD_CACHE_DIR to a folder)"), done.stderr


def test_a_non_ascii_name_on_a_stderr_that_is_not_utf8_is_quoted_as_on_stdout(tmp_path):
    # the line said 'u/\xfc.py' (PYTHONIOENCODING=ascii), a backslash escape that reads as a
    # name, or 'u/\udcc3\udcbc.py' (LC_ALL=C); text findings show "\303\274.py" there (an
    # error line names a walked file as its findings do: no "./", 19d39b3)
    root = tmp_path / "t"
    root.mkdir()
    os.mkfifo(root / "\u00fc.py")
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=root, expect=2,
                     env={"PYTHONIOENCODING": "ascii"})
    assert done.stderr.splitlines()[0] == (
        'poolguard: error: "\\303\\274.py": not a regular file, not checked'), done.stderr


def test_an_empty_path_is_a_usage_error(tmp_path):
    # `poolguard lint "$FILES"` with FILES unset said 'poolguard: error: : No such file or
    # directory' (flake8 passes it silently, exit 0); ruff refuses it as usage
    root = write(tmp_path / "t", {"b.py": STALE})
    done = poolguard("lint", "--isolated", "", "b.py", cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        "poolguard: error: a PATH is empty (an unset variable?): name a file or folder, or . "
        "for this one"], done.stderr
    assert done.stdout == ""
