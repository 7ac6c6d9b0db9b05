"""An eleventh hostile round on the CLI, the flake8 plugin and the guard's switches (attack11):
what the earlier rounds left, through the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from clirun import STALE, poolguard, write
from samples import GATED
from slowed_cli import default_signals


@pytest.mark.parametrize("cwd, named, stdin", [
    ("here", "../other/b.py", False), ("here", "../here/../other/b.py", False),
    ("other/deeper", "..", False), ("here", "../other/b.py", True), ("other", "./b.py", True),
])
def test_a_diff_of_a_file_named_through_dots_applies(tmp_path, cwd, named, stdin):
    # the header read a/../other/b.py (a/./b.py for stdin named so): git apply said
    # 'invalid path' from every folder and patch -p1 found no file
    write(tmp_path, {"other/b.py": GATED, "here/.keep": "", "other/deeper/.keep": ""})
    args = ("--stdin-filename", named, "-") if stdin else (named,)
    with open(tmp_path / "other" / "b.py") as source:
        done = poolguard("lint", "--isolated", "--no-cache", "--diff", *args,
                         cwd=tmp_path / cwd, expect=1, stdin=source if stdin else None)
    header = done.stdout.splitlines()[0]
    assert "/../" not in header and "/./" not in header, header
    absolute = header == f"--- a/{tmp_path.relative_to('/')}/other/b.py"
    assert absolute or header == "--- a/b.py", header
    (tmp_path / "p.diff").write_text(done.stdout)
    applied = subprocess.run(["git", "apply", str(tmp_path / "p.diff")],
                             cwd="/" if absolute else tmp_path / cwd,
                             capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, (header, applied.stderr)
    assert "if self._swa_kv_pool is not None:" in (tmp_path / "other" / "b.py").read_text()


@pytest.mark.parametrize("codec, why", [
    ("unicode_escape", "does not give its own bytes back from its text"),
    ("raw_unicode_escape", None),
    ("idna", "cannot encode it (encoding with 'idna' codec failed (UnicodeError: label empty "
             "or too long))"),
])
def test_a_codec_that_does_not_give_the_file_back_is_never_written_with(tmp_path, codec, why):
    # Python runs a module declaring these codecs. unicode_escape decodes a newline byte as a
    # newline but encodes it as '\n': --fix wrote the module as one comment line (it still
    # parsed: nothing else was left). idna refuses a dotted name over 63 characters:
    # 'internal error: UnicodeError', exit 2 and no other file's findings
    source = f"# coding: {codec}\n" + GATED
    root = write(tmp_path / "t", {"odd.py": source, "plain.py": GATED})
    before = (root / "odd.py").read_bytes()
    done = poolguard("lint", "--isolated", "--no-cache", "--diff", ".", cwd=root,
                     expect=1 if why is None else 2)
    assert "+++ b/plain.py" in done.stdout
    fixed = poolguard("lint", "--isolated", "--no-cache", "--fix", ".", cwd=root,
                      expect=0 if why is None else 2)
    assert "internal error" not in done.stderr + fixed.stderr
    assert "self._swa_kv_pool is not None:" in (root / "plain.py").read_text()
    if why is None:  # a codec that gives the file back is fixed as any other
        assert "+++ b/odd.py" in done.stdout
        assert (root / "odd.py").read_bytes() == before.replace(
            b"if self.use_sliding_window_kv_pool:", b"if self._swa_kv_pool is not None:")
        return
    line = f"poolguard: error: odd.py: cannot apply the fix: the file's encoding ({codec}) {why}"
    assert "odd.py" not in done.stdout and line in done.stderr.splitlines(), done.stderr
    assert (root / "odd.py").read_bytes() == before
    assert [row for row in fixed.stderr.splitlines() if "odd.py" in row] == [line]
    assert fixed.stdout.startswith("odd.py:7:12: KVP003")  # its findings, as a lint shows them


def test_add_noqa_never_writes_in_a_codec_that_does_not_give_the_file_back(tmp_path):
    # --add-noqa compared the code before and after as text, then wrote it unicode_escape'd:
    # one comment line, the class gone, exit 0 and 'added noqa to 1 line'
    source = "# coding: unicode_escape\n" + GATED
    root = write(tmp_path / "t", {"odd.py": source, "plain.py": GATED})
    done = poolguard("lint", "--isolated", "--no-cache", "--add-noqa", ".", cwd=root, expect=2)
    assert (root / "odd.py").read_text() == source
    noqa = "if self.use_sliding_window_kv_pool:  # noqa: KVP003\n"
    assert noqa in (root / "plain.py").read_text()
    assert done.stderr.splitlines() == [
        "poolguard: error: odd.py: cannot add noqa: the file's encoding (unicode_escape) does "
        "not give its own bytes back from its text",
        "poolguard: added noqa to 1 line in 1 file",
        "poolguard: error: 1 file could not be given a noqa"], done.stderr


# The real CLI, with Ctrl-C pressed (SIGINT to itself) the moment a write of a fixed file's
# bytes returns: the worst instant for a file rewritten in place (a hard-linked one).
_CTRL_C_AFTER_WRITE = """\
import os, signal, sys
_pwrite = os.pwrite
def pwrite(fd, data, offset):
    written = _pwrite(fd, data, offset)
    os.kill(os.getpid(), signal.SIGINT)
    return written
os.pwrite = pwrite
from lint_rules.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_during_an_in_place_fix_leaves_the_old_or_the_new_file(tmp_path):
    # a hard-linked file is rewritten through its inode: Ctrl-C between the write and the
    # truncate left the fix followed by the old file's last bytes (the KVP003 fix is two
    # bytes shorter: '...return 0\n0\n'), and the original was not put back
    root = write(tmp_path / "t", {"b.py": GATED})
    os.link(root / "b.py", tmp_path / "link.py")
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C_AFTER_WRITE)
    env = {**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(script), "lint", "--isolated", "--no-cache",
                           "--fix", "b.py"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120, preexec_fn=default_signals)
    assert "Traceback" not in done.stderr and done.returncode == 130, done.stderr
    fixed = GATED.replace("if self.use_sliding_window_kv_pool:",
                          "if self._swa_kv_pool is not None:")
    assert (root / "b.py").read_text() in (GATED, fixed)
    assert os.path.samefile(root / "b.py", tmp_path / "link.py")


def test_a_cache_folder_shared_with_other_files_loses_none_of_them(tmp_path):
    # pruning kept the 8 newest 'lint-*.json' and 'codes-*.json' of the cache folder and
    # removed older '.lint-*.tmp': with POOLGUARD_CACHE_DIR a folder that also holds the
    # user's lint-report-1.json ... lint-report-10.json, a run deleted the 3 oldest
    root = write(tmp_path / "t", {"b.py": GATED})
    shared = tmp_path / "shared"
    mine = {f"lint-report-{n}.json": f'{{"n": {n}}}\n' for n in range(1, 11)}
    mine.update({f"codes-{n}.json": "[]\n" for n in range(10)})
    mine.update({".lint-notes.tmp": "notes\n", ".codes-draft12.tmp": "draft\n"})
    write(shared, mine)
    for number, name in enumerate(sorted(mine)):
        os.utime(shared / name, (1e9 + number, 1e9 + number))  # old: in 2001
    for select in ("KVP", "KVP001", "KVP002", "KVP003", "KVP00"):
        poolguard("lint", "--isolated", "--select", select, ".", cwd=root, cache_dir=shared)
    assert {name: (shared / name).read_text() for name in mine} == mine
    assert len(list(shared.glob("lint-*.json"))) == 10 + 5  # and the 5 runs' own files


@pytest.mark.parametrize("config, flags, word, key", [
    ("select = kvp001\n", (), "kvp001", "select"),
    ("extend-select = Kvp004\n", (), "Kvp004", "extend-select"),
    ("", ("--select", "kvp001"), "kvp001", "select"),
    ("", ("--ignore", "kvp"), "kvp", "ignore"),
])
def test_a_code_in_lower_case_is_refused_by_the_cli_and_flake8_alike(tmp_path, config, flags,
                                                                     word, key):
    # flake8 compares codes as written: 'select = kvp001' selected nothing there (no finding,
    # exit 0), while the CLI upper-cased it and reported KVP001 (exit 1) from the same config
    root = write(tmp_path / "t", {"setup.cfg": "[flake8]\n" + config, "b.py": STALE})
    why = f"is no code: codes are upper case, as flake8 compares them (there it would match " \
          f"nothing): write {word.upper()}"
    done = poolguard("lint", "--no-cache", *flags, "b.py", cwd=root, expect=2)
    where = flags[0] if flags else root / "setup.cfg"
    assert done.stderr.splitlines() == [f"poolguard: error: {word} in {where} {why}"]
    flake8 = subprocess.run([sys.executable, "-m", "flake8", *flags, "b.py"], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert flake8.returncode == 1 and "Traceback" not in flake8.stderr, flake8.stderr
    assert f"sglang-poolguard: {word} in {key} {why}" in flake8.stdout + flake8.stderr
    assert "b.py" not in flake8.stdout


def test_a_users_file_named_like_a_stray_temp_file_is_kept(tmp_path):
    # every walk removed '.poolguard-*.tmp' a minute old, the litter of a killed --fix: a
    # plain lint deleted the user's .poolguard-notes.tmp; only mkstemp's shape is litter
    root = write(tmp_path / "t", {"b.py": GATED, ".poolguard-notes.tmp": "mine\n",
                                  "sub/.poolguard-x.tmp": "mine too\n",
                                  "sub/.poolguard-k1ll3d00.tmp": "half"})
    for name in (".poolguard-notes.tmp", "sub/.poolguard-x.tmp", "sub/.poolguard-k1ll3d00.tmp"):
        os.utime(root / name, (1e9, 1e9))
    poolguard("lint", "--isolated", "--no-cache", ".", cwd=root, expect=1)
    assert (root / ".poolguard-notes.tmp").read_text() == "mine\n"
    assert (root / "sub/.poolguard-x.tmp").read_text() == "mine too\n"
    assert not (root / "sub/.poolguard-k1ll3d00.tmp").exists()


@pytest.mark.parametrize("version, shown", [
    ("true", "true"), ("null", "null"), ('"2"', '"2"'), ("2.0", "2.0"),
    ('"' + "v" * 100_000 + '"', '"' + "v" * 36 + "..."),
])
def test_a_baseline_version_is_said_as_the_file_spells_it(tmp_path, version, shown):
    # it was Python's repr: 'format version True' for JSON's true, None for null, and a
    # 100,000-character version made a 100,000-character error line
    root = write(tmp_path / "t", {"b.py": STALE, "base.json": '{"format": "poolguard-baseline",'
                                  f' "version": {version}, "findings": []}}'})
    done = poolguard("lint", "--isolated", "--no-cache", "--baseline", "base.json", "b.py",
                     cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: error: baseline base.json has format version {shown}; this poolguard reads "
        f"version 1: write it again with --write-baseline"], done.stderr[:300]


def test_a_flake8_that_reads_noqa_otherwise_gets_results_afresh(tmp_path):
    # the results are cached with flake8's noqa regex applied, but the key held only the
    # lint's sources and Python: after a flake8 upgrade that reads a bare '# noqa' no more
    # (here: a copy of flake8 whose regex wants codes), the warm run still said 'All checks
    # passed!' where a cold run, and flake8 itself, find the KVP003
    import flake8

    upgraded = tmp_path / "site"
    shutil.copytree(os.path.dirname(flake8.__file__), upgraded / "flake8")
    defaults = upgraded / "flake8" / "defaults.py"
    regex = r"(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?"
    assert regex in defaults.read_text()
    defaults.write_text(defaults.read_text().replace(regex, regex[:-1]))
    gate = "if self.use_sliding_window_kv_pool:"
    root = write(tmp_path / "t", {"b.py": GATED.replace(gate, gate + "  # noqa")})
    cache = tmp_path / "cache"
    poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=0)
    env = {"PYTHONPATH": str(upgraded)}
    warm = poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, env=env, expect=1)
    cold = poolguard("lint", "--isolated", "--no-cache", "b.py", cwd=root, env=env, expect=1)
    assert warm.stdout == cold.stdout and "b.py:6:12: KVP003" in warm.stdout
    poolguard("lint", "--isolated", "b.py", cwd=root, cache_dir=cache, expect=0)


@pytest.mark.parametrize("name", ["SGLANG_POOLGUARD", "SGLANG_POOLGUARD_FIX",
                                  "SGLANG_POOLGUARD_ACTION"])
def test_a_huge_guard_switch_value_is_refused_in_one_short_line(tmp_path, name):
    # the refusal quoted the whole value: 100,000 characters made a 100,154-byte line
    done = poolguard("guard-status", cwd=tmp_path, env={name: "x" * 100_000}, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: {name}='{'x' * 40}'... (100000 characters) is not valid; accepted values: "
        + done.stderr.split("accepted values: ", 1)[1].rstrip("\n")], done.stderr[:300]
    assert len(done.stderr) < 400
