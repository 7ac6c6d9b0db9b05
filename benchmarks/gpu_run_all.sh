#!/usr/bin/env bash
# The whole GPU benchmark, on the H200 host, from the repository root:
#   benchmarks/gpu_run_all.sh [DIR] [RESULTS]
# DIR: the carried folder (benchmarks/gpu_build_carry.sh; default .gpu_carry). RESULTS: where
# the raw outputs go (default $OUT if set, else benchmarks/results). Stages (GPU_STAGES, default
# all): replay (gpu_bug_replay.py; REPLAY_ARGS, default "--jobs 4": four cases at once, each
# its own process; add e.g. "--skip compute-sanitizer"), generic (gpu_generic_cost.py: check
# per launch, table class and a class no table names), bounds (gpu_bounds.py), launch
# (gpu_launch_cost.py: the bounds kernel's host launch, broken down), sanitizer
# (compute-sanitizer memcheck on the same step). Each stage runs even if an earlier one failed, under a time limit
# (220 + 120 + 180 + 60 + 160 s by default; with the compute-sanitizer replay cases the replay needs
# more: run it in a call of its own, TIMEOUT_REPLAY=540).
set -uo pipefail
cd "$(dirname "$0")/.."
carry=${1:-.gpu_carry}; results=${2:-${OUT:-benchmarks/results}}
stages=${GPU_STAGES:-replay generic bounds launch sanitizer}
mkdir -p "$results"
. benchmarks/gpu_env.sh "$carry" || { echo "gpu_env.sh failed"; exit 2; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import torch, triton, flashinfer, sglang; print('torch', torch.__version__, \
'triton', triton.__version__, 'flashinfer', flashinfer.__version__, 'sglang', sglang.__version__)" \
    2>&1 | tail -1
  command -v compute-sanitizer || echo "no compute-sanitizer"; } | tee "$results/gpu_host.txt"
for stage in $stages; do
  case $stage in
    replay) timeout ${TIMEOUT_REPLAY:-220} python3 benchmarks/gpu_bug_replay.py ${REPLAY_ARGS:---jobs 4} 2>&1 \
      | tee "$results/gpu_bug_replay.txt" ;;
    generic) timeout ${TIMEOUT_GENERIC:-120} python3 benchmarks/gpu_generic_cost.py 2>&1 \
      | tee "$results/gpu_generic_cost.txt" ;;
    bounds) timeout ${TIMEOUT_BOUNDS:-180} python3 benchmarks/gpu_bounds.py 2>&1 | tee "$results/gpu_bounds.txt" ;;
    launch) timeout ${TIMEOUT_LAUNCH:-60} python3 benchmarks/gpu_launch_cost.py 2>&1 | tee "$results/gpu_launch_cost.txt" ;;
    sanitizer) timeout ${TIMEOUT_SANITIZER:-160} python3 benchmarks/gpu_bounds.py --sanitizer-only --head-dim 64 \
      --sanitizer-timeout 140 2>&1 | tee "$results/gpu_sanitizer.txt" ;;
  esac
done
