# Source on the GPU host, from the repository root, after carrying the folder that
# benchmarks/gpu_build_carry.sh built:   . benchmarks/gpu_env.sh [DIR]   (default .gpu_carry)
# Installs the wheels and the pruned SGLang to /tmp/site, unpacks the pruned flashinfer to
# /tmp/fi, puts this checkout first on PYTHONPATH, and sets what flashinfer's JIT needs
# (CUDA_HOME from the real nvcc, a libcuda.so to link against).
d=${1:-.gpu_carry}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site "$d"/whl/*.whl || return 1
tar -xJf "$d/sglang_min.txz" -C /tmp/site && cp -r "$d"/sglang_poolguard-*.dist-info /tmp/site/ \
  || return 1
mkdir -p /tmp/fi && tar -xzf "$d/fi_min.tgz" -C /tmp/fi || return 1
export PYTHONPATH=$PWD:/tmp/fi:/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export FLASHINFER_WORKSPACE_BASE=/tmp/fiws MAX_JOBS=16 PYTHONUNBUFFERED=1
nvcc_path=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
export PATH=$CUDA_HOME/bin:$PATH
if [ ! -e "$CUDA_HOME/lib64/stubs/libcuda.so" ]; then
  mkdir -p /tmp/cudalib && ln -sf "$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')" \
    /tmp/cudalib/libcuda.so
  export LIBRARY_PATH=/tmp/cudalib${LIBRARY_PATH:+:$LIBRARY_PATH}
fi
