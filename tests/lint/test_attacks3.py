"""A third hostile round on the CLI: ``--jobs`` bounds, output on a terminal that is not UTF-8,
source from standard input, and the inputs attack3 found breaking a promise of the README."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys

import pytest
from clirun import STALE, poolguard, write

from lint_rules.cli import build_parser, main
from lint_rules.examples import read_example
from lint_rules.output import text_path
from lint_rules.runner import default_jobs

PREFIX = read_example("trtllm_backend_prefix.py")  # KVP001, a safe KVP002 fix, two KVP003


@pytest.fixture(autouse=True)
def _signals_kept():
    """``main(["lint", ...])`` in this process routes the stop signals to the run: undo it."""
    import signal

    from lint_rules.commands import STOP_SIGNALS

    kept = {stop: signal.getsignal(stop) for stop in STOP_SIGNALS}
    yield
    for stop, handler in kept.items():
        signal.signal(stop, handler)


@pytest.mark.parametrize("value", ["100000", str(10 ** 30), "auto", " auto"])
def test_jobs_above_the_cpus_is_capped_at_them(value):
    # one worker per CPU at most: --jobs 100000 used to fork one process per file
    assert build_parser().parse_args(["lint", "--jobs", value]).jobs == default_jobs()


@pytest.mark.parametrize("value", ["0", "-1", "abc", "2.5", "", "1e3"])
def test_jobs_that_is_not_a_positive_integer_is_a_usage_error(value, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["lint", "--jobs", value, "."])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"poolguard lint: error: argument --jobs/-j: expected a positive integer or 'auto', "
        f"got {value!r}")


@pytest.mark.parametrize("name, utf8, shown", [
    ("ü.py", True, "ü.py"),
    ("ü.py", False, '"\\303\\274.py"'),
    ("back\\xfc.py", True, '"back\\\\xfc.py"'),  # a literal backslash never reads as an escape
    ("back\\xfc.py", False, '"back\\\\xfc.py"'),
    ('say"hi.py', True, '"say\\"hi.py"'),
    ("tab\there.py", True, '"tab\\there.py"'),  # a tab or newline would break the line
    ("new\nline.py", True, '"new\\nline.py"'),
    (os.fsdecode(b"lat\xe9.py"), True, os.fsdecode(b"lat\xe9.py")),  # raw byte, surrogateescape
    (os.fsdecode(b"lat\xe9.py"), False, '"lat\\351.py"'),
    ("plain/dir/a.py", False, "plain/dir/a.py"),
])
def test_text_paths_are_unambiguous_on_any_stdout(name, utf8, shown):
    assert text_path(name, utf8) == shown


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems require UTF-8 names")
def test_an_ascii_stdout_gets_quoted_paths_utf8_annotations_and_every_explain(tmp_path):
    tree = write(tmp_path / "tree", {"ü.py": STALE, "back\\xfc.py": STALE})
    ascii_out = {"PYTHONIOENCODING": "ascii"}
    done = poolguard("lint", "--isolated", ".", cwd=tree, expect=1, env=ascii_out)
    assert sorted(line.split(":")[0] for line in done.stdout.splitlines()) == [
        '"\\303\\274.py"', '"back\\\\xfc.py"']
    annotations = poolguard("lint", "--isolated", "--format", "github", ".", cwd=tree,
                            expect=1, env=ascii_out, text=False)
    assert b"file=\xc3\xbc.py," in annotations.stdout  # GitHub's runner reads UTF-8
    shown = poolguard("explain", "KVP002", cwd=tree, expect=0, env=ascii_out)  # an em dash
    assert shown.stdout.startswith("KVP002") and "\\u2014" in shown.stdout


def _stdin(args: list, source: bytes, cwd, expect: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(cwd / ".cache")}
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", *args], cwd=cwd,
                          input=source, capture_output=True, env=env, timeout=300)
    assert "Traceback" not in done.stderr.decode(), done.stderr
    assert done.returncode == expect, (done.returncode, done.stderr)
    return done


def test_stdin_is_linted_fixed_and_diffed_as_the_same_file_would_be(tmp_path):
    tree = write(tmp_path / "tree", {"b.py": PREFIX})
    on_disk = poolguard("lint", "--isolated", "b.py", cwd=tree, expect=1)
    piped = _stdin(["--isolated", "--stdin-filename", "b.py"], PREFIX.encode(), tree, 1)
    assert piped.stdout.decode() == on_disk.stdout  # the same findings, named b.py
    assert _stdin(["--isolated", "-"], PREFIX.encode(), tree, 1).stdout.decode() == (
        on_disk.stdout.replace("b.py:", "stdin:"))
    diff = _stdin(["--isolated", "--diff", "--stdin-filename", "b.py"], PREFIX.encode(), tree, 1)
    fixed = _stdin(["--isolated", "--fix", "-"], PREFIX.encode(), tree, 1)  # KVP001 remains
    assert (tree / "b.py").read_text() == PREFIX  # nothing on disk is touched
    poolguard("lint", "--isolated", "--fix", "b.py", cwd=tree, expect=1)
    assert fixed.stdout == (tree / "b.py").read_bytes()  # ruff's --fix -: the source on stdout
    assert b"stdin:36:9: KVP001" in fixed.stderr and b"Fixed 1 file" in fixed.stderr
    assert diff.stdout.startswith(b"--- a/b.py\n+++ b/b.py\n")


def test_stdin_filename_is_what_per_file_ignores_and_exclude_match(tmp_path):
    tree = write(tmp_path / "tree", {"setup.cfg": "[flake8]\nper-file-ignores = pkg/*.py: KVP0"
                                                  "\nextend-exclude = gen/\n"})
    assert _stdin(["--stdin-filename", "pkg/m.py"], STALE.encode(), tree, 0).stdout == b""
    assert b"other.py:3:" in _stdin(["--stdin-filename", "other.py"], STALE.encode(), tree,
                                    1).stdout
    # an excluded name is not linted; --fix hands the source back unchanged
    assert _stdin(["--fix", "--stdin-filename", "gen/x.py", "-"], PREFIX.encode(), tree,
                  0).stdout == PREFIX.encode()


@pytest.mark.parametrize("args, message", [
    (["-", "a.py"], "- (standard input) and --stdin-filename take no other PATH"),
    (["--stdin-filename", "x.py", "a.py"], "- (standard input) and --stdin-filename take no"),
    (["--add-noqa", "-"], "--add-noqa edits files; it cannot be used on standard input"),
    (["--stdin-filename", " "], "--stdin-filename needs a file name, got ' '"),
])
def test_stdin_misuse_is_a_usage_error(args, message, capsys):
    assert main(["lint", "--isolated", *args]) == 2
    assert capsys.readouterr().err.startswith(f"poolguard: error: {message}")


def test_a_closed_stdin_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", "-"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, close_fds=True,
                          preexec_fn=lambda: os.close(0))
    assert done.returncode == 2 and done.stderr == (
        "poolguard: error: standard input is closed: nothing to lint\n")


def test_a_symlink_loop_in_a_walked_folder_is_an_error_line(tmp_path):
    tree = write(tmp_path / "tree", {"b.py": STALE})
    (tree / "l1.py").symlink_to("l2.py")
    (tree / "l2.py").symlink_to("l1.py")
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=tree, expect=2)
    assert done.stdout.startswith("b.py:3:")  # the other file's finding is kept
    for name in ("l1.py", "l2.py"):
        assert f"poolguard: error: {name}: Too many levels of symbolic links, not checked" in (
            done.stderr)


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE and SIGXFSZ")
def test_a_cache_write_that_fails_leaves_no_temp_file(tmp_path):
    # a full disk (here: a file-size limit) used to leave one .index-*.tmp per run
    child = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from lint_rules.cache import write_atomically\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        "try:\n"
        "    write_atomically(Path(sys.argv[1]) / 'index-x.json', 'x' * 5000)\n"
        "except OSError as exc:\n"
        "    print(exc.errno)\n")
    done = subprocess.run([sys.executable, "-c", child, str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == str(errno.EFBIG), done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spot", ["# The active pool", "kv_pool = model_runner"])
def test_a_nul_byte_is_never_called_newer_syntax(spot):
    # libcst reads a NUL inside a comment, which made the finding say "libcst reads newer
    # syntax; run poolguard under a Python that has it": no Python reads a NUL byte
    from lint_rules.engine import lint_source

    at = PREFIX.index(spot) + spot.index(" ") + 1
    [finding] = lint_source(PREFIX[:at] + "\0" + PREFIX[at:])
    assert finding.code == "KVP900" and "newer" not in finding.message
    assert (finding.line, finding.col) == (PREFIX.count("\n", 0, at) + 1,
                                           at - PREFIX.rfind("\n", 0, at) - 1)


@pytest.mark.parametrize("limit", ["1e-300", "1e-7"])
def test_a_tiny_parse_timeout_is_a_kvp900_not_a_traceback(tmp_path, limit):
    # the main process armed its timer before entering the block that catches it: a limit
    # this short fired right there and the run died with a traceback naming _Overtime
    tree = write(tmp_path / "tree", {"b.py": PREFIX})
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=tree,
                     expect=1, env={"POOLGUARD_PARSE_TIMEOUT": limit})
    [row] = json.loads(done.stdout)
    assert row["code"] == "KVP900" and "still being parsed" in row["message"]


def test_a_name_mangled_pool_attribute_is_refused_by_the_cli_and_flake8(tmp_path, capsys):
    # the safe KVP002 fix read getattr(self, "__swa_kv_pool", None): always None, since
    # self.__swa_kv_pool is stored as _Class__swa_kv_pool, so the "safe" fix turned SWA off
    assert main(["lint", "--isolated", "--kvp-pool-attr", "__swa_kv_pool", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "poolguard: error: kvp-pool-attr must not be a private name (Python mangles "
        "__swa_kv_pool per class, so the fixes could not read it), got '__swa_kv_pool'\n")
    (tmp_path / "b.py").write_text(STALE)
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KVP",
                           "--kvp-pool-attr", "__swa_kv_pool", "b.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "sglang-poolguard: kvp-pool-attr must not be a private name" in done.stdout + done.stderr


def test_sarif_fixes_of_stdin_are_computed_from_stdin_not_from_the_file_of_that_name(tmp_path):
    # an editor sends its unsaved buffer as --stdin-filename b.py: SARIF's replacements were
    # computed from b.py on disk (here empty: no fix at all), or were missing for "stdin"
    tree = write(tmp_path / "tree", {"b.py": ""})
    for name in ("b.py", "stdin"):
        done = _stdin(["--isolated", "--format", "sarif", "--stdin-filename", name],
                      PREFIX.encode(), tree, 1)
        results = json.loads(done.stdout)["runs"][0]["results"]
        assert [r["ruleId"] for r in results if "fixes" in r] == ["KVP002"], name


@pytest.mark.parametrize("named", [False, True], ids=["found", "--config"])
def test_a_huge_config_file_is_refused_unread(tmp_path, named):
    # a 16 GiB sparse setup.cfg was read whole by the config search (RAM: its size)
    tree = write(tmp_path / "tree", {"b.py": STALE})
    with open(tree / "setup.cfg", "wb") as handle:
        handle.truncate(1 << 34)
    args = ["--config", "setup.cfg"] if named else []
    done = poolguard("lint", "--no-cache", *args, "b.py", cwd=tree, expect=2, timeout=60)
    assert done.stderr.startswith("poolguard: error: cannot read config file ")
    assert done.stderr.endswith("setup.cfg: larger than 16777216 bytes\n")


@pytest.mark.parametrize("literal", ["'\\N{no such name}'", "'\\x4'", "b'\u00e9'"])
def test_a_bad_literal_is_never_called_newer_syntax(literal):
    # libcst does not check what a literal holds, so these were "libcst reads newer syntax;
    # run poolguard under a Python that has it", while no Python accepts them
    from lint_rules.engine import lint_source

    [finding] = lint_source(STALE + f"        x = {literal}\n")
    assert finding.code == "KVP900" and finding.line == 4 and "newer" not in finding.message


def test_stdin_without_a_writable_temporary_folder_is_one_line(tmp_path, monkeypatch, capsys):
    import io
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))  # what TMPDIR resolved to
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STALE.encode())))
    assert main(["lint", "--isolated", "--no-cache", "-"]) == 2
    assert capsys.readouterr().err.startswith(
        "poolguard: error: cannot lint standard input: no temporary file for it (No such file")


def test_a_misspelt_key_in_our_own_section_is_refused(tmp_path):
    # [poolguard] kvp-pol-attr = ... was ignored without a word: the fixes read another attribute
    tree = write(tmp_path / "tree", {"b.py": STALE, "setup.cfg": "[flake8]\nmax-line-length = 99\n"
                                     "[poolguard]\nkvp_pool_attr = _p\nkvp-pol-attr = _q\n"})
    done = poolguard("lint", "--no-cache", "b.py", cwd=tree, expect=2)
    assert done.stderr.startswith("poolguard: error: unknown key kvp-pol-attr in [poolguard] of ")
