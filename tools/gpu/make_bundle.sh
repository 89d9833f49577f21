#!/usr/bin/env bash
# Builds, on this machine, what tools/gpu/h200_validation.sh can use on the GPU machine when it
# cannot build there itself, and gathers it in build-gpu-bundle/ (ignored by git: name it in the
# device call's `carry`):
#   bin/kopt, bin/kopt_device_probe            the server and the device layer's probe
#   bin/kopt_bench_worker_switch                kopt's process control per batch (docs/performance.md)
#   bin/kopt_hip_gemm_bench, ..._rmsnorm_bench the native benches (sm_90, static CUDA runtime)
#   lib/libkopt_hip_kernels.so                  the kernels for ctypes (torch check)
#   lib/*.so                                    kopt's own shared dependencies (yaml-cpp, Boost,
#                                               cpp-httplib, OpenSSL...), since the GPU machine's
#                                               image (Ubuntu 24.04) has other versions or none
#   gitbin/git                                  this machine's git (its libraries in lib/), for an
#                                               image without one: kopt runs git for every campaign;
#                                               h200_campaigns.sh puts it on PATH when git is missing
# glibc, libstdc++ and libgcc_s are left to the GPU machine (newer there, backward compatible).
# Usage: tools/gpu/make_bundle.sh [build-dir]   (default build-gpu-release; about 64 MiB at most)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-gpu-release}
BUNDLE=build-gpu-bundle
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
# Each part on its own, so one that fails to build (say, kopt mid-change) leaves the others usable.
status=0
cmake --build "$BUILD" -j"${JOBS:-2}" --target kopt_device_probe || { echo "make_bundle: kopt_device_probe did not build" >&2; status=1; }
cmake --build "$BUILD" -j"${JOBS:-2}" --target kopt || { echo "make_bundle: kopt did not build" >&2; status=1; }
cmake --build "$BUILD" -j"${JOBS:-2}" --target kopt_bench_worker_switch ||
  { echo "make_bundle: kopt_bench_worker_switch did not build" >&2; status=1; }
if cmake --build "$BUILD" --target help 2>/dev/null | grep -q kopt_hip_gemm_bench; then
  cmake --build "$BUILD" -j"${JOBS:-2}" --target kopt_hip_gemm_bench kopt_hip_rmsnorm_bench kopt_hip_kernels ||
    { echo "make_bundle: the HIP benches did not build" >&2; status=1; }
else
  echo "make_bundle: no GPU compiler here: the bundle has no benches (the GPU machine builds them)" >&2
fi
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib"
[ -f "$BUILD/kopt" ] && cp "$BUILD/kopt" "$BUNDLE/bin/"
find "$BUILD" -name kopt_device_probe -type f -perm -u+x -exec cp {} "$BUNDLE/bin/" \;
find "$BUILD/bench" -maxdepth 1 -name kopt_bench_worker_switch -type f -exec cp {} "$BUNDLE/bin/" \;
for f in kopt_hip_gemm_bench kopt_hip_rmsnorm_bench; do
  find "$BUILD/kernels/hip" -maxdepth 1 -name "$f" -type f -exec cp {} "$BUNDLE/bin/" \;
done
find "$BUILD/kernels/hip" -maxdepth 1 -name libkopt_hip_kernels.so -exec cp {} "$BUNDLE/lib/" \;
strip --strip-debug "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so 2>/dev/null || true
# kopt's shared dependencies, minus the C/C++ runtime and the GPU driver.
skip='^(linux-vdso|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux|libgcc_s|libstdc\+\+|libcuda\.so)'
# git: kopt's own commands are builtins of the one binary; GIT_EXEC_PATH is left to default.
mkdir -p "$BUNDLE/gitbin"
cp -L "$(command -v git)" "$BUNDLE/gitbin/git"
for exe in "$BUNDLE"/bin/kopt "$BUNDLE"/bin/kopt_device_probe "$BUNDLE"/bin/kopt_bench_worker_switch "$BUNDLE"/gitbin/git; do
  [ -f "$exe" ] || continue
  ldd "$exe" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    if ! [[ "$name" =~ $skip ]]; then cp -L "$path" "$BUNDLE/lib/$name"; fi
  done
done
cat > "$BUNDLE/README" <<'TXT'
Built by tools/gpu/make_bundle.sh on the development machine. Use with
  LD_LIBRARY_PATH=$PWD/build-gpu-bundle/lib build-gpu-bundle/bin/kopt call device_info '{}'
TXT
du -sh "$BUNDLE"
ls -l "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/gitbin"
exit $status
