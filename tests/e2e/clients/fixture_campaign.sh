# Writes a small campaign directory as the engine lays it out, for the client and Inspector tests
# that read resources without running a campaign:
#   source "$KOPT_SOURCE_DIR/tests/e2e/clients/fixture_campaign.sh"
#   make_fixture_campaign WORKSPACE   -> WORKSPACE/repo/.kopt/campaigns/gemm_cpu_cpu_20260101
FIXTURE_CAMPAIGN=gemm_cpu_cpu_20260101
make_fixture_campaign() {
  local dir="$1/repo/.kopt/campaigns/$FIXTURE_CAMPAIGN"
  mkdir -p "$dir/logs" "$dir/rounds/round-1/artifacts" "$dir/rounds/round-2/artifacts/runs"
  cat >"$dir/manifest.yaml" <<'YAML'
target_op: gemm
target_backend: CPU
target_gpu: cpu
primary_metric: Forward TFLOPS
YAML
  printf '{"phase": "ANALYZE", "last_round": 2}\n' >"$dir/state.json"
  printf '| Round | Status | Description |\n|---|---|---|\n| 1 | BASELINE | baseline |\n| 2 | ACCEPTED | tile 32 -> 64 |\n' \
    >"$dir/logs/performance_trend.md"
  printf '# Round 1\n\nBASELINE\n' >"$dir/rounds/round-1/summary.md"
  printf '{"decision": "BASELINE"}\n' >"$dir/rounds/round-1/decision.json"
  printf 'label,Check\nM64,PASS\n' >"$dir/rounds/round-1/artifacts/benchmark.csv"
  printf '# Round 2\n\nACCEPTED\n' >"$dir/rounds/round-2/summary.md"
  printf 'label,Check\nM64,PASS\n' >"$dir/rounds/round-2/artifacts/runs/pair-1.csv"
  printf '# Campaign report: %s\n\n## Final Report\n' "$FIXTURE_CAMPAIGN" >"$dir/report.md"
  printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#1b9e4b"/></svg>\n' \
    >"$dir/report-metric.svg"
  # Bait outside the campaign: reading it through a resource URI must fail.
  printf 'outside the campaign\n' >"$1/secret.txt"
}
