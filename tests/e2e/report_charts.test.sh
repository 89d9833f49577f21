#!/usr/bin/env bash
# Issue 6, acceptance 1: the CPU end-to-end campaign (`kopt demo`) ends with report.md and the two
# charts; the charts are well-formed SVG, render to non-blank PNGs with rsvg-convert (the accepted
# and rolled-back markers visible), and are readable as MCP resources.
# ctest: RESOURCE_LOCK timed_cpu_campaign (its verdicts read CPU timings; see tests/CMakeLists.txt)
source "$(dirname "$0")/lib/common.sh"
if ! command -v rsvg-convert >/dev/null; then
  echo "SKIP: rsvg-convert not installed (Debian: apt-get install librsvg2-bin)" >&2
  exit 77
fi
SRC=$(cd "$E2E_DIR/../.." && pwd)
DEMO=$E2E_TMP/demo
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

if ! "$KOPT_BIN" demo --dir "$DEMO" --quiet >"$E2E_TMP/demo.log" 2>&1; then
  echo "FAIL: kopt demo exited non-zero; its last lines:" >&2
  tail -n 40 "$E2E_TMP/demo.log" >&2
  exit 1
fi
report=$(find "$DEMO" -path '*/.kopt/campaigns/*' -name report.md | head -n 1)
[[ -n "$report" ]] || { echo "FAIL: the demo wrote no report.md under $DEMO" >&2; exit 1; }
campaign_dir=$(dirname "$report")
campaign=$(basename "$campaign_dir")
echo "campaign: $campaign_dir"

for heading in "## Final Report" "### Result" "### Effective directions" "### Verified ineffective directions" \
  "### Real-training audit (rule 11)" "### Next three steps" "### Prediction accuracy"; do
  grep -qF -- "$heading" "$report" || fail "report.md lacks '$heading'"
done
grep -qE -- '- S_real \(K1-K4, transfers\)' "$report" || fail "report.md lacks the S_real line"
grep -qE -- '- R_real .*: \+0\.000%' "$report" || fail "report.md: R_real is not 0 in the demo"
grep -qF -- "## Final Report" "$campaign_dir/logs/optimize.md" || fail "logs/optimize.md lacks the Final Report section"

for chart in report-metric.svg report-heatmap.svg; do
  svg="$campaign_dir/$chart"
  [[ -s "$svg" ]] || { fail "$chart missing"; continue; }
  python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$svg" || fail "$chart is not well-formed XML"
  grep -q '<script' "$svg" && fail "$chart contains a script"
  rsvg-convert -f png -o "$E2E_TMP/${chart%.svg}.png" "$svg" || { fail "rsvg-convert rejected $chart"; continue; }
done
# One marker per round, one red cross per rolled-back round (plus the legend's).
rounds=$(find "$campaign_dir/rounds" -mindepth 1 -maxdepth 1 -name 'round-*' | wc -l)
markers=$(grep -o '<g><title>Round ' "$campaign_dir/report-metric.svg" | wc -l)
[[ "$markers" == "$rounds" ]] || fail "metric chart has $markers round markers for $rounds rounds"
rolled_back=$(grep -oE 'rolled back: [0-9]+' "$report" | grep -oE '[0-9]+$')
crosses=$(grep -o 'stroke="#d7301f"' "$campaign_dir/report-metric.svg" | wc -l)
(( crosses >= rolled_back + 1 )) || fail "metric chart: $crosses red crosses for $rolled_back rolled-back rounds"
(( rolled_back >= 1 )) || fail "the demo campaign should show a rolled-back round"
# Rendered: not blank, and the accepted and rolled-back colours are on the canvas.
python3 "$SRC/tests/e2e/clients/png_stats.py" "$E2E_TMP/report-metric.png" --min-ink 0.02 --min-colours 20 \
  --expect-colour 1b9e4b --expect-colour d7301f || fail "metric chart renders blank or without its markers"
python3 "$SRC/tests/e2e/clients/png_stats.py" "$E2E_TMP/report-heatmap.png" --min-ink 0.05 --min-colours 20 ||
  fail "heatmap renders blank"

# The same charts as MCP resources.
inspect() { bash "$E2E_DIR/lib/inspector.sh" --cli --format json -q "$@"; }
workspace=$(cd "$campaign_dir/../../../.." && pwd)  # <workspace>/<repo>/.kopt/campaigns/<name>
for uri in "kopt://campaign/$campaign/report/metric.svg" "kopt://campaign/$campaign/report/heatmap.svg"; do
  out=$(inspect --method resources/read --uri "$uri" -- "$KOPT_BIN" serve --workspace "$workspace") ||
    { fail "resources/read $uri failed"; continue; }
  python3 "$SRC/tests/e2e/clients/assert_json.py" contents image/svg+xml "<svg" <<<"$out" || fail "$uri: wrong contents"
done
out=$(inspect --method resources/read --uri "kopt://campaign/$campaign/report" -- "$KOPT_BIN" serve --workspace "$workspace") ||
  fail "resources/read report failed"
python3 "$SRC/tests/e2e/clients/assert_json.py" contents text/markdown "## Final Report" <<<"$out" || fail "report resource"
exit $failed
