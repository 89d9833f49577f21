#!/bin/sh
# Builds the CPU GEMM bench harness into build/cpu_gemm_bench with one compiler call (no cmake).
# Usage: ./build.sh   (from any directory; CXX and CXXFLAGS override the defaults)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/build"
${CXX:-c++} -std=c++17 ${CXXFLAGS:--O2} -Wall -Wextra -o "$here/build/cpu_gemm_bench.tmp" \
  "$here/gemm.cpp" "$here/bench.cpp"
mv -f "$here/build/cpu_gemm_bench.tmp" "$here/build/cpu_gemm_bench"
