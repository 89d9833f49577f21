#!/usr/bin/env bash
# Builds the libFuzzer targets in their own clang tree and runs each for SECONDS on a copy of its
# seed corpus (tests/fuzz/corpus/<target>: the repository's copy is never written). Fails when a
# target finds a crash, a sanitizer error, a leak or a hang (-timeout): the input is kept under
# $KOPT_FUZZ_ARTIFACTS (default: the build tree's fuzz-artifacts/) and named in the output.
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]     (defaults: 20, build-fuzz)
set -euo pipefail
seconds=${1:-20}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ is not installed (Debian: apt-get install clang)"; exit 77; }
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DKOPT_FUZZ=ON -DKOPT_BUILD_TESTS=OFF -DKOPT_WITH_GPU=OFF >/dev/null
targets=(fuzz_bench_csv fuzz_manifest fuzz_mcp_session fuzz_http_request fuzz_settings_diff fuzz_worker_reply)
cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"
artifacts=${KOPT_FUZZ_ARTIFACTS:-$build/fuzz-artifacts}
mkdir -p "$artifacts"
status=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  cp "$root/tests/fuzz/corpus/${t#fuzz_}/"* "$corpus/"
  echo "fuzz: $t for ${seconds}s"
  if ! "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$corpus" >"$build/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; the input that failed is in $artifacts (log: $build/$t.log):"
    grep -E "ERROR|SUMMARY|Test unit written" "$build/$t.log" | head -5
    status=1
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/$t.log" | tr '\n' ' '
    echo "(corpus $(ls "$corpus" | wc -l) inputs)"
  fi
  rm -rf "$corpus"
done
exit $status
