"""A twelfth hostile round on the CLI and the flake8 plugin (attack12): what attack11 left
open, then odd paths, config values, baselines, caches and streams, through the real
``poolguard`` subprocess (and the real flake8) on real files."""
from __future__ import annotations

import codecs
import json
import shutil
import subprocess
import sys

import pytest
from clirun import STALE, poolguard, write
from samples import GATED

FIXED = GATED.replace("if self.use_sliding_window_kv_pool:", "if self._swa_kv_pool is not None:")


@pytest.mark.parametrize("name", [".", "..", "/", "./", "sub/", "sub/..", "sub"])
@pytest.mark.parametrize("mode", ["--diff", "--fix", "--select=KVP"])
def test_stdin_named_as_a_folder_is_refused(tmp_path, name, mode):
    # '--stdin-filename . --diff' printed a diff headed '--- a/.' ('a/' for '/', 'a/tmp' for
    # '..'), which no git apply or patch takes, and matched per-file-ignores as no file would
    root = write(tmp_path / "t", {"sub/keep.py": ""})
    with open(write(tmp_path, {"in.py": GATED}) / "in.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", mode, "--stdin-filename", name,
                         "-", cwd=root, expect=2, stdin=source)
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"poolguard: error: --stdin-filename needs a file's name, got the folder {name!r}"]


def test_stdin_named_as_a_file_in_a_folder_still_diffs(tmp_path):
    root = write(tmp_path / "t", {"sub/keep.py": ""})
    with open(write(tmp_path, {"in.py": GATED}) / "in.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", "--diff", "--stdin-filename",
                         "sub/new.py", "-", cwd=root, expect=1, stdin=source)
    assert done.stdout.splitlines()[:2] == ["--- a/sub/new.py", "+++ b/sub/new.py"]


def _two_boms(text: str) -> bytes:
    return codecs.BOM_UTF8 * 2 + text.encode()


@pytest.mark.parametrize("head", ["", "# -*- coding: utf-8 -*-\n"], ids=["plain", "cookie"])
def test_a_file_with_two_byte_order_marks_is_kvp900_as_python_refuses_it(tmp_path, head):
    # the runner decoded the BOM away (utf-8-sig) and the engine then dropped a second one as
    # if it were the BOM: a file Python refuses ('invalid non-printable character U+FEFF')
    # was linted and fixed as valid. libcst takes one leading U+FEFF, so the KVP900 also said
    # 'libcst reads newer syntax; run poolguard under a Python that has it': no Python does
    root = write(tmp_path / "t", {"two.py": _two_boms(head + GATED), "b.py": STALE,
                                  "one.py": codecs.BOM_UTF8 + (head + GATED).encode()})
    python = subprocess.run([sys.executable, "two.py"], cwd=root, capture_output=True,
                            text=True, timeout=60)
    assert "invalid non-printable character U+FEFF" in python.stderr
    line = 1 + head.count("\n")
    done = poolguard("lint", "--isolated", "--no-cache", "--format", "json", ".", cwd=root,
                     expect=1)
    rows = json.loads(done.stdout)
    assert sorted((r["path"], r["line"], r["code"]) for r in rows) == [
        ("b.py", 3, "KVP001"), ("one.py", 6 + line - 1, "KVP003"), ("two.py", 1, "KVP900")]
    assert [r["message"] for r in rows if r["path"] == "two.py"] == [
        "cannot parse: invalid non-printable character U+FEFF; fix that so the KVP rules can "
        "check this file"]
    before = (root / "two.py").read_bytes()
    poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=root, expect=1)
    assert (root / "two.py").read_bytes() == before  # never "fixed" as if it parsed
    assert (root / "one.py").read_bytes() == codecs.BOM_UTF8 + (head + FIXED).encode()


def test_a_huge_module_with_the_vocabulary_is_kvp900_without_parsing_it(tmp_path):
    # a 54 MB module naming the vocabulary was parsed whole: 5 GB of memory (Python's syntax
    # tree takes 70-90 bytes per character) and 21 s, for a data table. Now above 8 Mi
    # characters it is one KVP900 saying why; the other files keep their findings, a data
    # module without the vocabulary (never parsed) stays clean
    row = "    0x%08x, 0x%08x, 0x%08x, 0x%08x,\n"
    table = "TABLE = [\n" + "".join(row % (i, i, i, i) for i in range(200_000)) + "]\n"
    assert len(table) > 8 * 1024 * 1024
    root = write(tmp_path / "t", {"huge.py": GATED + table, "data.py": table, "b.py": STALE})
    script = ("import resource, subprocess, sys\n"
              "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
              "sys.stdout.write(done.stdout)\nsys.stderr.write(done.stderr)\n"
              "sys.exit(done.returncode)\n")
    done = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "lint_rules.cli",
                           "lint", "--isolated", "--no-cache", "--jobs", "1", "."], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    peak_kib, *lines = done.stdout.splitlines()
    assert int(peak_kib) < 400 * 1024, peak_kib  # parsed, it took ~800 MB
    assert lines == [
        "b.py:3:9: KVP001 " + lines[0].split(" KVP001 ", 1)[1],
        f"huge.py:1:1: KVP900 cannot parse: the file has {len(GATED + table):,} characters, "
        "more than the 8,388,608 poolguard parses (its syntax tree would take about 0.8 GB of "
        "memory); split the file, or exclude it if it is data"]


def test_a_config_with_cr_line_ends_is_read_as_flake8_reads_it(tmp_path):
    # read_string split the file at LF only: a CR-only setup.cfg was one line, its [flake8]
    # header with every key after it dropped, so 'select = KVP001' was lost and the CLI
    # reported the KVP003 that flake8 (configparser.read: universal newlines) leaves out
    root = write(tmp_path / "t", {"b.py": GATED})
    (root / "setup.cfg").write_bytes(b"[flake8]\rselect = KVP001\rmax-line-length = 120\r")
    done = poolguard("lint", "--no-cache", "b.py", cwd=root, expect=0)
    assert done.stdout == ""
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "b.py"], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert flake8.returncode == 0 and flake8.stdout == "", flake8.stdout + flake8.stderr
    (root / "setup.cfg").write_bytes(b"[flake8]\rselect = KVP001\r  KVP\xff\r")
    done = poolguard("lint", "--no-cache", "b.py", cwd=root, expect=2)
    assert done.stderr.startswith(f"poolguard: error: cannot parse config file {root}/setup.cfg:")


def test_the_baseline_written_is_named_in_one_line(tmp_path):
    # 'wrote 1 finding to baseline new<LF>line.json' went to stderr as two lines, where every
    # other message escapes a control character in a name
    root = write(tmp_path / "t", {"b.py": STALE})
    done = poolguard("lint", "--isolated", "--no-cache", "--write-baseline", "new\nline.json",
                     "b.py", cwd=root, expect=0)
    assert done.stderr == "poolguard: wrote 1 finding to baseline new\\nline.json\n"
    assert (root / "new\nline.json").is_file()


def test_a_cache_file_taken_by_a_folder_is_named(tmp_path):
    # the warning named the cache folder ('<cache>: Is a directory'), which is a folder as it
    # should be, and not the cache file a folder had taken the name of
    root = write(tmp_path / "t", {"b.py": STALE})
    cache = tmp_path / "cache"
    poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=1)
    names = sorted(path.name for path in cache.iterdir())
    for name in names:
        (cache / name).unlink()
        (cache / name).mkdir()
    done = poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=1)
    assert done.stderr.splitlines()[0] == (
        f"poolguard: warning: no cache written: {cache / names[0]}: Is a directory (set "
        "POOLGUARD_CACHE_DIR to a writable folder)"), done.stderr


def test_a_parse_time_limit_reached_says_what_to_change(tmp_path):
    # 'the file was still being parsed after 1e-07 s; fix that so the KVP rules can check
    # this file': nothing in the file was wrong, the limit was
    root = write(tmp_path / "t", {"b.py": STALE})
    done = poolguard("lint", "--isolated", "--no-cache", "b.py", cwd=root, expect=1,
                     env={"POOLGUARD_PARSE_TIMEOUT": "0.0000001"})
    assert done.stdout == (
        "b.py:1:1: KVP900 cannot parse: the file was still being parsed after 1e-07 s; if the "
        "machine was busy, set POOLGUARD_PARSE_TIMEOUT to more seconds\n")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("indent", ["    ", "\t"])
def test_fix_with_unsafe_fixes_leaves_nothing_for_a_second_run(tmp_path, newline, indent):
    # the class rewrite takes its class whole, so KVP004's safe fix in it waited: the first
    # '--fix --unsafe-fixes' said 'Fixed 1 file; found 1 finding (1 fixable with `poolguard
    # lint --fix`)' and a second run rewrote the file again
    source = GATED.replace("    ", indent).replace("\n", newline)
    root = write(tmp_path / "t", {"b.py": source.encode()})
    flags = ("lint", "--isolated", "--no-cache", "--extend-select", "KVP004", "--fix",
             "--unsafe-fixes", "b.py")
    first = poolguard(*flags, cwd=root, expect=0)
    assert first.stderr == "poolguard: Fixed 1 file; all checks passed!\n"
    fixed = (root / "b.py").read_bytes()
    assert b"@property" in fixed and b"if self._swa_kv_pool is not None:" in fixed
    lines = fixed.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
    assert fixed.count(newline.encode()) == lines, fixed  # every line ends as the file's do
    second = poolguard(*flags, cwd=root, expect=0)
    assert second.stderr == "poolguard: All checks passed!\n"
    assert (root / "b.py").read_bytes() == fixed


@pytest.mark.parametrize("table", ["tool.poolguard", "tool.flake8", " tool . poolguard "])
@pytest.mark.parametrize("ini", [None, "setup.cfg", "tox.ini"])
def test_a_pyproject_table_that_is_not_read_is_said(tmp_path, table, ini):
    # select = ["KVP001"] under [tool.poolguard] of pyproject.toml was ignored without a word
    # (poolguard reads INI files only, as flake8 does): the run reported the default set
    root = write(tmp_path / "t", {"pyproject.toml": f'[{table}]\nselect = ["KVP001"]\n',
                                  "sub/b.py": GATED})
    if ini:
        write(root, {ini: "[flake8]\nmax-line-length = 100\n"})
    done = poolguard("lint", "--no-cache", "b.py", cwd=root / "sub", expect=1)
    assert "b.py:6:12: KVP003" in done.stdout
    name = table.replace(" ", "")
    assert done.stderr.splitlines()[0] == (
        f"poolguard: warning: {root}/pyproject.toml has [{name}], which poolguard does not "
        "read (nor does flake8 by itself): put those keys in [poolguard] or [flake8] of "
        "setup.cfg, tox.ini or .flake8")
    quiet = poolguard("lint", "--no-cache", "--isolated", "b.py", cwd=root / "sub", expect=1)
    assert "warning" not in quiet.stderr


def test_a_pyproject_above_the_config_file_or_without_our_tables_is_quiet(tmp_path):
    root = write(tmp_path / "t", {"pyproject.toml": '[tool.poolguard]\nselect = ["KVP001"]\n',
                                  "proj/setup.cfg": "[flake8]\nselect = KVP001\n",
                                  "proj/pyproject.toml": "[tool.black]\nline-length = 100\n",
                                  "proj/b.py": STALE})
    done = poolguard("lint", "--no-cache", "b.py", cwd=root / "proj", expect=1)
    assert "warning" not in done.stderr, done.stderr


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
@pytest.mark.parametrize("name", ["x y.py", "a b/c d.py", 'q" x.py'])
def test_a_diff_of_a_name_with_a_space_applies_with_patch_and_git(tmp_path, name):
    # '--- a/x y.py' without git's trailing tab: GNU patch read the name up to the space and
    # said "can't find file to patch" (the hunk ignored, exit 1)
    for tool in (["patch", "-p1", "-s"], ["git", "apply"]):
        root = write(tmp_path / tool[0], {name: GATED})
        done = poolguard("lint", "--isolated", "--no-cache", "--diff", ".", cwd=root, expect=1)
        assert done.stdout.splitlines()[0].endswith(".py\t" if '"' not in name else '.py"\t')
        applied = subprocess.run(tool, input=done.stdout, cwd=root, capture_output=True,
                                 text=True, timeout=60)
        assert applied.returncode == 0, applied.stdout + applied.stderr
        assert (root / name).read_text() == FIXED


@pytest.mark.parametrize("section, said", [
    ("[poolguard]\nselect = E501\n", "E501 in select of [poolguard] in {cfg} is no KVP code: "
     "that section is poolguard's alone (other tools' codes go in [flake8])"),
    ("[poolguard]\nignore = KVP004, W503\n", "W503 in ignore of [poolguard] in {cfg} is no KVP "
     "code: that section is poolguard's alone (other tools' codes go in [flake8])"),
    ("[flake8]\nselect = KVP001\n[poolguard]\nselect =\n", "select in [poolguard] of {cfg} "
     "names no code; leave it out for the default set, or name codes or prefixes (KVP = all)"),
])
def test_a_code_list_of_our_own_section_holds_our_codes(tmp_path, section, said):
    # in [poolguard], which no other tool reads, 'select = E501' (or an empty select over
    # [flake8]'s KVP001) was dropped as another tool's code: the default set ran, exit 1
    root = write(tmp_path / "t", {"setup.cfg": section, "b.py": GATED})
    done = poolguard("lint", "--no-cache", "b.py", cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        "poolguard: error: " + said.format(cfg=root / "setup.cfg")]
    if "[flake8]" not in section:  # [flake8] keeps other tools' codes
        write(root, {"setup.cfg": section.replace("[poolguard]", "[flake8]")})
        poolguard("lint", "--no-cache", "b.py", cwd=root, expect=1)


def test_an_error_line_names_a_walked_file_as_its_findings_would(tmp_path):
    # walking '.' said 'error: ./fifo.py: ...' beside findings for 'b.py:3:9': a problem
    # matcher or a grep for one file saw two spellings of the folder's files
    root = write(tmp_path / "t", {"b.py": STALE, "sub/c.py": STALE})
    (root / "dangling.py").symlink_to("gone.py")
    (root / "sub" / "loop.py").symlink_to("loop.py")
    for named in (".", "./", "./sub/../"):
        done = poolguard("lint", "--isolated", "--no-cache", named, cwd=root, expect=2)
        assert done.stdout.splitlines()[0].startswith("b.py:3:9: KVP001")
        assert done.stderr.splitlines()[:2] == [
            "poolguard: error: dangling.py: broken symbolic link, not checked",
            "poolguard: error: sub/loop.py: Too many levels of symbolic links, not checked"]


@pytest.mark.parametrize("line, col", [(-5, 11), (0, 11), (6, -1)])
def test_a_cache_entry_with_an_impossible_position_is_not_served(tmp_path, line, col):
    # a cache file edited or damaged with its types intact answered 'b.py:-5:12: KVP003'
    root = write(tmp_path / "t", {"b.py": GATED})
    cache = tmp_path / "cache"
    first = poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=1)
    [stored] = cache.glob("lint-*.json")
    data = json.loads(stored.read_text())
    for entry in data["files"].values():
        entry[1][0][:2] = [line, col]
    stored.write_text(json.dumps(data))
    again = poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=1)
    assert again.stdout == first.stdout and first.stdout.startswith("b.py:6:12: KVP003")


def test_a_runner_file_with_long_lines_costs_no_other_file_its_findings(tmp_path):
    # the text scans of a runner file (what it stores from its pool) tried a regex at every
    # candidate of a line and scanned the rest of the line each time: a 240 kB comment of
    # 'a=b;' beside the pool's name took minutes in every worker, so each backend asking the
    # runner about an attribute ran out of time (KVP900 'still being parsed after 120 s')
    runner = ("class ModelRunner:\n"
              "    def __init__(self):\n"
              "        self.token_to_kv_pool = make_pool()\n"
              "        self.swa_translator = self.token_to_kv_pool.translate\n"
              "        # token_to_kv_pool " + "a=b;" * 60_000 + "\n"
              "        # " + "self.a:" * 40_000 + "\n")
    backend = ("class DemoAttnBackend(AttentionBackend):\n"
               "    def __init__(self, model_runner):\n"
               "        self.tr = model_runner.swa_translator\n"
               "    def forward_decode(self, layer):\n"
               "        return self.tr\n")
    root = write(tmp_path / "t", {"pkg/__init__.py": "", "pkg/model_runner.py": runner,
                                  "pkg/backend.py": backend})
    done = poolguard("lint", "--isolated", "--no-cache", "pkg", cwd=root, expect=1, timeout=120,
                     env={"POOLGUARD_PARSE_TIMEOUT": "20"})
    assert done.stdout.splitlines() == [
        "pkg/backend.py:3:9: KVP001 self.tr is the runner's, built on its pool; FROZEN_KV "
        "swaps only the pool: swap it too in frozen_kv_mtp_utils"]


def test_a_long_line_of_class_words_is_pre_filtered_in_linear_time(tmp_path):
    # the pre-filter searched back to the line's start for every 'class' of a line (and
    # sliced from it): a 6 MB line of 'y.class_' kept the main process busy for minutes
    source = ("x = token_to_kv_pool  # swa_kv_pool\n" + "y.class_ " * 700_000 + "\n"
              "class A(AttentionBackend):\n    pass\n")
    root = write(tmp_path / "t", {"big.py": source, "b.py": STALE})
    done = poolguard("lint", "--isolated", "--no-cache", ".", cwd=root, expect=1, timeout=60)
    assert done.stdout.startswith("b.py:3:9: KVP001")


def test_a_deeply_nested_runner_file_is_scanned_in_linear_time(tmp_path):
    # each store's statement (its line and the more indented lines after it) was walked and
    # joined anew: 3,000 stores of growing indentation (4.5 MB) took 20-27 s in every worker,
    # more than the 10 s allowed here (the backend's KVP001 became a KVP900)
    runner = ("class ModelRunner:\n    def __init__(self):\n"
              "        self.token_to_kv_pool = make_pool()\n"
              "        self.swa_translator = self.token_to_kv_pool.translate\n"
              '        """' + "".join(" " * (8 + i) + f"self.a{i} = 1\n" for i in range(3000))
              + '"""\n')
    backend = ("class DemoAttnBackend(AttentionBackend):\n"
               "    def __init__(self, model_runner):\n"
               "        self.tr = model_runner.swa_translator\n"
               "    def forward_decode(self, layer):\n"
               "        return self.tr\n")
    root = write(tmp_path / "t", {"pkg/__init__.py": "", "pkg/model_runner.py": runner,
                                  "pkg/backend.py": backend})
    done = poolguard("lint", "--isolated", "--no-cache", "pkg", cwd=root, expect=1, timeout=120,
                     env={"POOLGUARD_PARSE_TIMEOUT": "10"})
    assert "pkg/backend.py:3:9: KVP001 self.tr is the runner's" in done.stdout, done.stdout
