#!/usr/bin/env bash
# Build the folder the GPU benchmarks carry to the H200 host (no package index there), here:
#   benchmarks/gpu_build_carry.sh [DIR]        (DIR defaults to .gpu_carry, git-ignored)
# Needs pip access and the CPU test env (.tox/sglang0523, or PYTHON=... with torch + SGLang).
# DIR gets:
#   fi_min.tgz         flashinfer 0.7.2 (SGLang 0.5.23's pin) pruned to what imports and
#                      JIT-builds the XQA paged-decode kernel on SM90: every flashinfer *.py,
#                      the XQA sources, the binding, the shared headers its build includes
#   sglang_min.txz     SGLang 0.5.23's Python sources in the packages the benchmarks import
#                      (benchmarks/gpu_import_closure.py) + its dist-info; no sgl_kernel
#   whl/*.whl          apache-tvm-ffi and the pure-Python wheels SGLang's import set needs (cp312)
#   sglang_poolguard-0.dist-info/   our entry points, so SGLang's load_plugins() finds us
# On the host: `. benchmarks/gpu_env.sh DIR` installs it; benchmarks/gpu_run_all.sh runs all.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.gpu_carry}
py=${PYTHON:-.tox/sglang0523/bin/python}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
rm -rf "$out"; mkdir -p "$out/whl"
platforms="manylinux_2_17_x86_64 manylinux_2_24_x86_64 manylinux_2_27_x86_64 manylinux_2_28_x86_64
  manylinux_2_31_x86_64 manylinux_2_34_x86_64 manylinux2014_x86_64 manylinux1_x86_64 any"
download() {  # DEST SPEC...: cp312 binary wheels, no dependencies
  local dest=$1; shift
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp $(printf -- '--platform %s ' $platforms) -d "$dest" "$@" 2>&1 \
    | { grep -v '^WARNING: Location' || true; }
}

# 1. flashinfer, pruned (same selection as the team's prune-flashinfer.sh).
download "$work/fi" flashinfer-python==0.7.2
mkdir -p "$work/fx" && (cd "$work/fx" && python3 -m zipfile -e "$work"/fi/flashinfer_python-*.whl .)
(
  cd "$work/fx"
  {
    find flashinfer -name '*.py' -not -path 'flashinfer/data/*'
    echo flashinfer/py.typed
    find flashinfer/data/csrc/xqa -type f ! -name 'mla_sm120*'
    printf '%s\n' flashinfer/data/csrc/flashinfer_xqa_binding.cu flashinfer/data/csrc/tvm_ffi_utils.h \
      flashinfer/data/include/flashinfer/layout.cuh
    find flashinfer/data/cccl/libcudacxx/include/nv -type f
    ls -d flashinfer_python-*.dist-info/{METADATA,WHEEL,top_level.txt}
  } | while read -r f; do [ -e "$f" ] && echo "$f"; done > "$work/fi.lst"
  tar -czf "$OLDPWD/$out/fi_min.tgz" -T "$work/fi.lst"
)

# 2. Wheels: tvm-ffi (flashinfer's JIT binding) and SGLang's pure-Python import set.
download "$out/whl" apache-tvm-ffi==0.1.11 orjson==3.13.0 pybase64==1.5.1 msgspec==0.23.0 \
  pyzmq==27.3.0 gguf==0.19.0 partial-json-parser==0.2.1.1.post7 compressed-tensors==0.18.0 \
  loguru==0.7.3 dill==0.4.1 openai==3.57.0 jiter distro sniffio==1.3.1 httpx2==2.16.2 \
  httpcore2==2.16.2 pydantic==2.14.4 pydantic_core==2.50.5 typing-inspection==0.4.5 \
  annotated-types==0.8.0 starlette==1.10.0 ipython==9.18.1 ipython_pygments_lexers jedi parso \
  traitlets==5.16.1 prompt_toolkit pexpect ptyprocess decorator matplotlib-inline stack_data \
  executing asttokens pure_eval wcwidth

# 3. SGLang 0.5.23: the Python sources of the packages the benchmarks import, + dist-info.
download "$work/sg" sglang==0.5.23
mkdir -p "$work/sx" && (cd "$work/sx" && python3 -m zipfile -e "$work"/sg/sglang-*.whl .)
"$py" benchmarks/gpu_import_closure.py 2>/dev/null | grep '^sglang/' > "$work/sg.lst"
(cd "$work/sx" && ls -d sglang-*.dist-info/{METADATA,WHEEL,top_level.txt} >> "$work/sg.lst" \
  && tar -cJf "$OLDPWD/$out/sglang_min.txz" -T "$work/sg.lst")

# 4. Our entry points (the package itself runs from the checkout on PYTHONPATH).
info="$out/sglang_poolguard-0.dist-info"; mkdir -p "$info"
printf 'Metadata-Version: 2.1\nName: sglang-poolguard\nVersion: 0\n' > "$info/METADATA"
python3 - "$info/entry_points.txt" <<'PY'
import configparser, sys
cfg = configparser.ConfigParser(); cfg.read("setup.cfg")
with open(sys.argv[1], "w") as f:
    for group, body in cfg["options.entry_points"].items():
        f.write(f"[{group}]\n" + "\n".join(l.strip() for l in body.strip().splitlines()) + "\n\n")
PY
echo "$(wc -l < "$work/fi.lst") flashinfer files, $(wc -l < "$work/sg.lst") SGLang files," \
  "$(ls "$out/whl" | wc -l) wheels -> $out ($(du -sh "$out" | cut -f1))"
