#!/usr/bin/env bash
# Builds build/libscale_shift.so: hipcc on AMD; on NVIDIA nvcc with kopt's <hip/hip_runtime.h>
# stand-in (share/kopt/include/hip_shim of an installed kopt, or KOPT_HIP_SHIM). Usage: build.sh [ARCH]
set -euo pipefail
cd "$(dirname "$0")"
export PATH=$PATH:/usr/local/cuda/bin
arch=${1:-${TARGET_GPU:-sm_90}}
mkdir -p build
if command -v hipcc >/dev/null && [[ $arch == gfx* ]]; then
  hipcc -O3 --offload-arch="$arch" -fPIC -shared -o build/libscale_shift.so scale_shift.hip
else
  shim=${KOPT_HIP_SHIM:-$(dirname "$(command -v kopt)")/../share/kopt/include/hip_shim}
  nvcc -O3 -x cu -arch="$arch" -Xcompiler -fPIC -shared -I"$shim" -o build/libscale_shift.so scale_shift.hip
fi
