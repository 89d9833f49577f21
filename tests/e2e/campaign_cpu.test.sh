#!/usr/bin/env bash
# A whole campaign on the bundled CPU GEMM, driven by a scripted agent
# through the official TypeScript SDK over stdio (tests/e2e/campaign_agent.mjs): baseline, an
# accepted round, a regressing round reverted, a correctness-breaking round reverted, a
# noise-level round re-measured, termination, final acceptance, report; the git history and every
# record checked afterwards.
# ctest: RESOURCE_LOCK timed_cpu_campaign (its verdicts read CPU timings; see tests/CMakeLists.txt)
source "$(dirname "$0")/lib/common.sh"
: "${KOPT_SOURCE_DIR:?set KOPT_SOURCE_DIR to the source tree}"
command -v git >/dev/null || { echo "git is required" >&2; exit 77; }
command -v c++ >/dev/null || { echo "a C++ compiler is required" >&2; exit 77; }

ws="$E2E_TMP/ws"
source "$(dirname "$0")/lib/cpu_kernel_repo.sh"
make_cpu_kernel_repo "$ws/repo"
cp "$KOPT_SOURCE_DIR/manifests/cpu_gemm.yaml" "$ws/cpu_gemm.yaml"
export KOPT_TIPS_ROOT="$ws/tips"
export GIT_AUTHOR_NAME=kopt-e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=kopt-e2e GIT_COMMITTER_EMAIL=e2e@example.com

cd "$E2E_DIR"
"$NODE22" campaign_agent.mjs "$KOPT_BIN" "$ws"
