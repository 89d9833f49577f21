#!/bin/sh
# Builds the grouped CPU GEMM bench harness into build/cpu_grouped_gemm_bench (no cmake).
# Usage: ./build.sh   (from any directory; CXX, CXXFLAGS, NM and READELF override the defaults)
#
# The kernel TU is compiled to an object and audited before anything is linked, by the CPU GEMM's
# own audit (../cpu/build.sh --audit, docs/integrity.md gap G5): it may define only cpu_gemm::
# symbols (this kernel lives in cpu_gemm::grouped) and may reference no clock, file, exit handler,
# thread, process or signal call, and may have no static initialiser. A refused object is named
# and nothing is linked.
# Needs ../cpu/build.sh and ../cpu/bench_util.h beside this folder (as in kopt's kernels/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
audit="$here/../cpu/build.sh"
[ -f "$audit" ] || { echo "build.sh: $audit is missing (the kernel symbol audit); keep kernels/cpu beside kernels/cpu_grouped" >&2; exit 1; }
mkdir -p "$here/build"
flags="-std=c++17 ${CXXFLAGS:--O2} -Wall -Wextra"
rm -f "$here/build/cpu_grouped_gemm_bench"
# shellcheck disable=SC2086
${CXX:-c++} $flags -c -o "$here/build/grouped_gemm.o" "$here/grouped_gemm.cpp"
sh "$audit" --audit "$here/build/grouped_gemm.o"
# The harness first: where both hold a weak copy of a template, the first one linked is kept.
# shellcheck disable=SC2086
${CXX:-c++} $flags -o "$here/build/cpu_grouped_gemm_bench.tmp" "$here/bench.cpp" "$here/build/grouped_gemm.o"
mv -f "$here/build/cpu_grouped_gemm_bench.tmp" "$here/build/cpu_grouped_gemm_bench"
