"""A fifth hostile round on the CLI (attack5): configs, baselines and machine formats, through
the real ``poolguard`` subprocess on real files."""
from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from clirun import STALE, poolguard, write


def test_a_config_saved_with_a_byte_order_mark_is_named_not_dropped(tmp_path):
    # Notepad's "UTF-8" puts a BOM before "[flake8]": the header then did not count as ours,
    # so the user's ignore was dropped without a word (flake8 drops it too): now one line
    config = codecs.BOM_UTF8 + b"[flake8]\nextend-ignore = KVP001\n"
    root = write(tmp_path / "t", {"s.py": STALE, "setup.cfg": config, "my.cfg": config})
    for args in ([], ["--config", "my.cfg"]):
        done = poolguard("lint", "--no-cache", *args, "s.py", cwd=root, expect=2)
        assert done.stdout == ""
        assert "byte order mark" in done.stderr and "without it" in done.stderr, done.stderr
    # a file that is not ours is still not ours, BOM or not
    (root / "setup.cfg").write_bytes(codecs.BOM_UTF8 + b"[metadata]\nname = x\n")
    poolguard("lint", "--no-cache", "s.py", cwd=root, expect=1)


def test_a_baseline_reached_through_a_file_link_matches_by_where_it_lives(tmp_path):
    # the rows were made relative to the link's folder, but the baseline lives in the target's:
    # read by its real path (or as /dev/stdin) every finding came back as new
    root = write(tmp_path / "t", {"s.py": STALE})
    (root / "keep").mkdir()
    os.symlink("keep/real.json", root / "link.json")
    poolguard("lint", "--no-cache", "--write-baseline", "link.json", "s.py", cwd=root, expect=0)
    rows = json.loads((root / "keep" / "real.json").read_text())["findings"]
    assert [row["path"] for row in rows] == ["../s.py"]
    for baseline in ("link.json", "keep/real.json"):
        done = poolguard("lint", "--no-cache", "--baseline", baseline, "s.py", cwd=root,
                         expect=0)
        assert "1 finding hidden by the baseline" in done.stderr, done.stderr
    with open(root / "keep" / "real.json", "rb") as stdin:
        done = poolguard("lint", "--no-cache", "--baseline", "/dev/stdin", "s.py", cwd=root,
                         expect=0, stdin=stdin)
    assert "1 finding hidden by the baseline" in done.stderr, done.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
@pytest.mark.parametrize("job", [["--add-noqa"], ["--write-baseline", "bl.json"]])
def test_a_machine_format_is_always_a_whole_document(tmp_path, fmt, job):
    # --add-noqa and --write-baseline printed nothing on stdout: `| jq` failed on a clean run
    root = write(tmp_path / "t", {"s.py": STALE})
    done = poolguard("lint", "--no-cache", "--format", fmt, *job, "s.py", cwd=root, expect=0)
    if fmt == "json":
        assert json.loads(done.stdout) == []
    elif fmt == "sarif":
        assert json.loads(done.stdout)["runs"][0]["results"] == []
    else:
        assert done.stdout == ""
    again = poolguard("lint", "--no-cache", "--format", fmt,
                      *(["--baseline", "bl.json"] if "bl.json" in job else []), "s.py",
                      cwd=root, expect=0)
    assert again.stdout == done.stdout


def test_a_config_line_that_is_no_key_value_pair_is_named_by_number(tmp_path):
    # "Source contains parsing errors: 'setup.cfg'" said neither which line nor what is wrong
    root = write(tmp_path / "t", {"s.py": STALE,
                                  "setup.cfg": "[flake8]\n# ours\nselect KVP001\nignore = E1\n"})
    done = poolguard("lint", "--no-cache", "s.py", cwd=root, expect=2)
    assert done.stderr.splitlines() == [
        f"poolguard: error: cannot parse config file {root / 'setup.cfg'}: line 3 is no "
        "'key = value' pair: 'select KVP001'"]


# A mirror and its gates on a pool kept as ``self.fi_pool``.
FI_POOL = """\
class DemoAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.fi_pool = some_lookup(model_runner)
        self.use_sliding_window_kv_pool = self.fi_pool is not None

    def forward_decode(self, q, layer):
        if self.use_sliding_window_kv_pool:
            return q
        return layer
"""


def test_option_names_are_read_as_python_reads_identifiers(tmp_path):
    # Python reads the ligature in "\ufb01_pool" as "fi_pool" (NFKC); the option kept the raw
    # spelling, so it named no attribute of the code: the fix was withdrawn and the message
    # told the user to resolve a pool the class already holds
    root = write(tmp_path / "t", {"m.py": FI_POOL})
    want = poolguard("lint", "--no-cache", "--kvp-pool-attr", "fi_pool", "m.py", cwd=root,
                     expect=1)
    assert "[*]" in want.stdout and "self.fi_pool is not None" in want.stdout
    for spelling in ("\ufb01_pool", "\uff46\uff49_pool"):  # the ligature, fullwidth f and i
        done = poolguard("lint", "--no-cache", "--kvp-pool-attr", spelling, "m.py", cwd=root,
                         expect=1)
        assert (done.stdout, done.stderr) == (want.stdout, want.stderr)
        flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "KVP",
                                 f"--kvp-pool-attr={spelling}", "m.py"], cwd=root,
                                capture_output=True, text=True)
        assert "self.fi_pool is not None" in flake8.stdout, flake8.stdout + flake8.stderr
    config = "[flake8]\nextend-select = KVP004\nkvp-pool-attr = \ufb01_pool\n"
    (root / "setup.cfg").write_text(config, encoding="utf-8")
    poolguard("lint", "--no-cache", "--fix", "m.py", cwd=root, expect=0)
    assert 'getattr(self, "fi_pool", None)' in (root / "m.py").read_text()
    for keyword_spelt in ("\uff49\uff46", "\u2115one"):  # fullwidth "if", double-struck N "None"
        done = poolguard("lint", "--no-cache", "--kvp-pool-attr", keyword_spelt, "m.py",
                         cwd=root, expect=2)
        assert "must not be a keyword however it is spelt" in done.stderr, done.stderr


def test_a_relative_xdg_cache_home_is_ignored_not_written_into_the_tree(tmp_path):
    # the XDG spec says a relative $XDG_CACHE_HOME is invalid and ignored; it was joined to
    # the current directory, so linting a repository left rel/sglang-poolguard/*.json in it
    root = write(tmp_path / "t", {"s.py": STALE})
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "POOLGUARD_CACHE_DIR"}
    env.update(HOME=str(home), XDG_CACHE_HOME="rel")
    done = subprocess.run([sys.executable, "-m", "lint_rules.cli", "lint", "s.py"], cwd=root,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["s.py"]
    assert list((home / ".cache" / "sglang-poolguard").glob("lint-*.json"))


def _runs_as(uid: int) -> bool:
    """This interpreter, with its packages, can run as ``uid`` (tox keeps ``.tox`` at mode 700:
    another uid then gets a bare system Python without flake8 or libcst)."""
    done = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                           sys.executable, "-c", "import flake8, libcst"], capture_output=True)
    return done.returncode == 0


NO_HOME_CHILD = """
import pathlib, runpy, sys
def no_home(cls):  # what pathlib says for a uid with no passwd entry and no $HOME
    raise RuntimeError("Could not determine home directory.")
pathlib.Path.home = classmethod(no_home)
sys.argv = ["poolguard", "lint", *sys.argv[1:], "s.py"]
runpy.run_module("lint_rules.cli", run_name="__main__")
"""


def test_no_home_directory_gets_a_lint_not_an_internal_error(tmp_path):
    # the same promise as below where no other uid can be used: Path.home() raising (as it does
    # for a container's arbitrary uid) must not turn every run into an internal error
    write(tmp_path, {"s.py": STALE})
    env = {k: v for k, v in os.environ.items()
           if k not in ("HOME", "POOLGUARD_CACHE_DIR", "XDG_CACHE_HOME")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    for extra in ([], ["--no-cache"]):
        done = subprocess.run([sys.executable, "-c", NO_HOME_CHILD, *extra], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        assert done.stdout.startswith("s.py:3:9: KVP001 "), done.stdout


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root to run as a uid with no passwd entry")
def test_a_user_with_no_home_gets_a_lint_not_an_internal_error(tmp_path):
    if not _runs_as(54321):
        pytest.skip("this interpreter's packages are not readable by another uid (.tox is 700)")
    # a container's arbitrary uid, no $HOME: Path.home() raised in the config search and the
    # cache, so every run was "internal error, please report" (flake8 just searches on)
    root = Path(tempfile.mkdtemp(prefix="attack5-nohome-"))
    try:
        os.chmod(root, 0o777)
        write(root, {"s.py": STALE})
        env = {k: v for k, v in os.environ.items()
               if k not in ("HOME", "POOLGUARD_CACHE_DIR", "XDG_CACHE_HOME")}
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        for extra in ([], ["--no-cache"]):
            done = subprocess.run(["setpriv", "--reuid=54321", "--regid=54321", "--clear-groups",
                                   sys.executable, "-m", "lint_rules.cli", "lint", *extra,
                                   "s.py"], cwd=root, env=env, capture_output=True, text=True)
            assert done.returncode == 1, done.stderr
            assert done.stdout.startswith("s.py:3:9: KVP001 "), done.stdout
        assert sorted(p.name for p in root.iterdir()) == ["s.py"]
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("sink", [">&-", ">/dev/full"])
def test_every_command_says_when_stdout_cannot_take_its_output(tmp_path, sink):
    # --version raised a traceback (exit 1); demo and guard-status called a closed or full
    # stdout an internal error to report; lint and explain already said what it was
    if sink == ">/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    cli = f"{sys.executable} -m lint_rules.cli"
    for command in ("--version", "explain KVP001", "demo"):
        done = subprocess.run(["sh", "-c", f"{cli} {command} {sink}"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "POOLGUARD_CACHE_DIR": str(tmp_path / "c"),
                                   "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr.splitlines()[-1].startswith(
            "poolguard: error: cannot write the report to stdout: "), (command, done.stderr)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("value", ["", " ", ",", " , \n"])
def test_a_select_that_names_no_code_is_refused_not_a_silent_pass(tmp_path, value):
    # `--select "$CODES"` with CODES unset selected nothing: "All checks passed!", exit 0, on
    # a file with a finding (the same empty value in a config file keeps the default set)
    root = write(tmp_path / "t", {"s.py": STALE})
    done = poolguard("lint", "--no-cache", "--isolated", "--select", value, "s.py", cwd=root,
                     expect=2)
    assert done.stderr == ("poolguard: error: --select names no code; leave it out for the "
                           "default set, or name codes or prefixes (KVP = all)\n")
    poolguard("lint", "--no-cache", "--isolated", "--ignore", value, "s.py", cwd=root, expect=1)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_the_class_index_neither_hangs_nor_is_read(tmp_path, kind):
    # attack2 made the results file a FIFO; the class-graph index beside it was still opened
    # with a blocking read: a package lint whose files changed hung for ever
    root = write(tmp_path / "t", {"pkg/__init__.py": "", "pkg/a.py": STALE})
    cache = tmp_path / "cache"
    cold = poolguard("lint", "--isolated", "pkg", cwd=root, cache_dir=cache, expect=1)
    (index,) = cache.glob("index-*.json")
    index.unlink()
    if kind == "fifo":
        os.mkfifo(index)
    else:
        index.symlink_to("/dev/zero")
    write(root, {"pkg/b.py": STALE.replace("Demo", "Other")})  # a miss: the index is read
    done = poolguard("lint", "--isolated", "pkg", cwd=root, cache_dir=cache, expect=1,
                     timeout=60)
    assert done.stdout.startswith(cold.stdout) and "pkg/b.py:3:9: KVP001" in done.stdout
    assert index.is_file() and not index.is_symlink()  # replaced by a real index


def test_a_module_a_cached_result_read_that_became_a_fifo_does_not_hang_the_run(tmp_path):
    # the child's cached result depends on base.py's digest; base.py replaced by a FIFO was
    # opened with a blocking read to check that digest: the warm run hung for ever
    root = write(tmp_path / "t", {
        "q/__init__.py": "",
        "q/base.py": ("from sglang.srt.mem_cache.swa_memory_pool import SWAKVPool\n\n\n"
                      "class ParentAttnBackend(AttentionBackend):\n"
                      "    def __init__(self, model_runner):\n"
                      "        self.split = isinstance(model_runner.token_to_kv_pool,\n"
                      "                                SWAKVPool)\n"),
        "q/child.py": ("from q.base import ParentAttnBackend\n\n\n"
                       "class ChildAttnBackend(ParentAttnBackend):\n"
                       "    def forward_extend(self, q, layer):\n"
                       "        return q if self.split else layer\n"),
    })
    cache = tmp_path / "cache"
    poolguard("lint", "--isolated", "q", cwd=root, cache_dir=cache, expect=1)
    (root / "q" / "base.py").unlink()
    os.mkfifo(root / "q" / "base.py")
    done = poolguard("lint", "--isolated", "q", cwd=root, cache_dir=cache, expect=2, timeout=60)
    assert "q/base.py: not a regular file, not checked" in done.stderr, done.stderr


def test_a_config_that_is_a_symlink_loop_is_named_as_one(tmp_path):
    # "config file loop.cfg does not exist": it does, as a link to itself
    root = write(tmp_path / "t", {"s.py": STALE})
    os.symlink("loop.cfg", root / "loop.cfg")
    done = poolguard("lint", "--no-cache", "--config", "loop.cfg", "s.py", cwd=root, expect=2)
    assert done.stderr == ("poolguard: error: cannot read config file loop.cfg: Too many levels "
                           "of symbolic links\n")
