#!/usr/bin/env bash
# build_kernels.sh BUILD_DIR TARGET_GPU [TARGET...]
# The build command of the HIP sample campaigns (manifests/hip_*.yaml): configures kernels/hip on
# its own (no kopt dependencies needed) for the campaign's GPU and builds the named targets (all
# when none are named). Run from the tree being built (the repository or a kopt worktree).
#   TARGET_GPU sm_90, sm_100, ...  -> nvcc, CMAKE_CUDA_ARCHITECTURES=90, 100, ...
#   TARGET_GPU gfx942, gfx950, ... -> hipcc, CMAKE_HIP_ARCHITECTURES=gfx942, ...
# Compiler errors go to stdout/stderr as the compiler prints them (kopt keeps them in build.log).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR TARGET_GPU [TARGET...]" >&2
  exit 2
fi
build=$1 gpu=$2
shift 2
arch=()
case "$gpu" in
  sm_*) arch=(-DCMAKE_CUDA_ARCHITECTURES="${gpu#sm_}") ;;
  gfx*) arch=(-DCMAKE_HIP_ARCHITECTURES="$gpu") ;;
  *) echo "build_kernels: '$gpu' is neither an sm_NN nor a gfxNNN arch" >&2; exit 2 ;;
esac
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S kernels/hip -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DKOPT_HIP_RESOURCE_REPORT=ON "${arch[@]}"
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 4)" "${targets[@]}"
for t in "$@"; do
  if [ ! -x "$build/$t" ] && [[ "$t" == *_bench ]]; then
    echo "build_kernels: $build/$t was not built (no GPU compiler found? see the cmake output above)" >&2
    exit 1
  fi
done
