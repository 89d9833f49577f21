#!/usr/bin/env bash
# One device call made of named steps, in order, everything packed into $OUT/all.tgz (the device
# tool brings back only a handful of files per call). From the repository root on the GPU machine,
# with build-gpu-bundle carried (tools/gpu/make_bundle.sh):
#   bash tools/gpu/device_call.sh STEP [STEP ...]
# Steps:
#   machine              kopt doctor, then device_info with measure_ceilings=true: the machine's
#                        measured copy bandwidth and bf16 matmul rate, cached for every campaign
#                        that follows (the plausibility audit, T2 and the report's fraction of the
#                        ceiling read them)
#   reference:MODE       tools/gpu/launch_free_reference.py on both Triton benches; MODE read (the
#                        shipped flush), write (--write-flush) or read-nodrain (--no-drain: the
#                        harness without its write-back charge, to tell the charge from the card)
#                        or read-drainN (--drain-mb N: the drain read N MB long)
#   probe:VARIANT        tools/gpu/process_effect_probe.py --mode processes on the Triton RMSNorm,
#                        shapes $PROBE_SHAPES (default rms_4k_4k,rms_16k_4k), 4 pairs of 2 reps,
#                        within $PROBE_LIMIT seconds (default 200; the lines so far are kept)
#   sweep                tools/gpu/hip_knob_sweep.sh run (build-hip-sweep carried)
#   triton-sweep         tools/gpu/triton_knob_sweep.py on the Triton RMSNorm, then its campaign
#                        (triton_rmsnorm_accept.json) rewritten with the rounds the look picked
#   campaign:SCRIPT:SECS one scripted campaign through kopt's MCP tools (tools/gpu/h200_campaigns.sh)
#   exploits:SECS        the GPU exploit classes (tests/exploits/gpu/run_h200.sh) within SECS
#   exploits-direct:SECS only the exploit suite's harness-direct part (every Triton exploit through
#                        the quick harness alone, no kopt campaign) within SECS
#   exploits-grouped:SECS only the class-10 campaign on the grouped GEMM
#   exploits-attacks:SECS only the Triton matmul campaign's attack rounds $KOPT_EXPLOITS_ATTACKS
#                        (ids, comma-separated, run in that order; no control round), within SECS
# A step that fails is logged in steps.txt and the next one runs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
FINAL=${OUT:-$ROOT/out-device-call}
work=$(mktemp -d)
B=$ROOT/build-gpu-bundle
export LD_LIBRARY_PATH=$B/lib PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/kopt-campaigns/triton-cache
export KOPT_CACHE_DIR=/tmp/kopt-cache
command -v git >/dev/null || export PATH=$PATH:$B/gitbin
mkdir -p /tmp/kopt-campaigns "$KOPT_CACHE_DIR"
{ date -u; git log -1 --format=%H 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$work/env.txt" 2>&1
campaigns=()
for step in "$@"; do
  start=$(date +%s)
  case $step in
    machine)
      "$B/bin/kopt" doctor >"$work/doctor.txt" 2>&1
      "$B/bin/kopt" call device_info '{"measure_ceilings": true}' >"$work/device_info.json" 2>&1
      rc=$? ;;
    reference:*)
      mode=${step#reference:} flag=()
      [ "$mode" = write ] && flag=(--write-flush)
      [ "$mode" = read-nodrain ] && flag=(--no-drain)
      case $mode in read-drain[0-9]*) flag=(--drain-mb "${mode#read-drain}") ;; esac
      rc=0
      for k in matmul rmsnorm; do
        timeout 80 python3 tools/gpu/launch_free_reference.py "kernels/triton/${k}_bench.py" "${flag[@]}" \
          --out "$work/reference-$k-$mode.jsonl" >"$work/reference-$k-$mode.log" 2>&1 || rc=$?
      done ;;
    probe:*)
      variant=${step#probe:}
      timeout "${PROBE_LIMIT:-200}" python3 tools/gpu/process_effect_probe.py kernels/triton/rmsnorm_bench.py --mode processes \
        --shapes "${PROBE_SHAPES:-rms_4k_4k,rms_16k_4k}" --pairs 4 --reps 2 --variant "$variant" \
        --out "$work/probe-$variant.jsonl" >"$work/probe-$variant.log" 2>&1
      rc=$?
      cp /tmp/probe-*.log "$work/" 2>/dev/null
      grep -h '"mode"' "$work/probe-$variant.log" | cut -c1-200 ;;
    sweep)
      bash tools/gpu/hip_knob_sweep.sh run "$work/sweep"; rc=$? ;;
    triton-sweep)
      timeout 240 python3 tools/gpu/triton_knob_sweep.py --out "$work/triton-sweep" \
        --pick-rounds "$work/triton-sweep/rounds.json" >"$work/triton-sweep.log" 2>&1 &&
        python3 tools/gpu/campaigns/make_accept_campaigns.py --rmsnorm-rounds "$work/triton-sweep/rounds.json" \
          >>"$work/triton-sweep.log" 2>&1
      rc=$?
      tail -n 30 "$work/triton-sweep.log" ;;
    campaign:*)
      spec=${step#campaign:}
      OUT=$work bash tools/gpu/h200_campaigns.sh "$spec"; rc=$?
      [ -f "$work/records.tar.gz" ] && mv "$work/records.tar.gz" "$work/records-$(basename "${spec%%:*}" .json).tar.gz"
      campaigns+=("$spec") ;;
    exploits:*)
      mkdir -p "$work/exploits"
      OUT=$work/exploits KOPT_EXPLOITS_BUDGET_S=${step#exploits:} bash tests/exploits/gpu/run_h200.sh; rc=$? ;;
    exploits-direct:*)
      mkdir -p "$work/exploits-direct"
      OUT=$work/exploits-direct KOPT_EXPLOITS_BUDGET_S=${step#exploits-direct:} KOPT_EXPLOITS_STEPS=harness-direct \
        bash tests/exploits/gpu/run_h200.sh; rc=$? ;;
    exploits-grouped:*)
      # Only the grouped GEMM's class-10 campaign of the exploit suite, within SECS.
      mkdir -p "$work/exploits-grouped"
      timeout "${step#exploits-grouped:}" python3 tests/exploits/gpu/triton_exploit_campaign.py --kopt "$B/bin/kopt" \
        --source "$ROOT" --work /tmp/kopt-exploits-grouped --parts grouped >"$work/exploits-grouped/lines.txt" 2>&1
      rc=$?
      cp /tmp/kopt-exploits-grouped/transcript.log /tmp/kopt-exploits-grouped/server.stderr.log "$work/exploits-grouped/" 2>/dev/null
      cat "$work/exploits-grouped/lines.txt" ;;
    exploits-attacks:*)
      mkdir -p "$work/exploits-attacks"
      secs=${step#exploits-attacks:}
      timeout "$secs" python3 tests/exploits/gpu/triton_exploit_campaign.py --kopt "$B/bin/kopt" --source "$ROOT" \
        --work /tmp/kopt-exploits-attacks --parts matmul --attacks "${KOPT_EXPLOITS_ATTACKS:?ids, comma-separated}" \
        --deadline $(( $(date +%s) + secs - 5 )) --round-reserve-s 35 >"$work/exploits-attacks/lines.txt" 2>&1
      rc=$?
      cp /tmp/kopt-exploits-attacks/transcript.log /tmp/kopt-exploits-attacks/server.stderr.log "$work/exploits-attacks/" 2>/dev/null
      cat "$work/exploits-attacks/lines.txt" ;;
    *) echo "device_call: unknown step '$step'" >&2; rc=2 ;;
  esac
  echo "$step: exit $rc after $(( $(date +%s) - start ))s" | tee -a "$work/steps.txt"
done
mkdir -p "$FINAL"
tar czf "$FINAL/all.tgz" -C "$work" .
cat "$work/env.txt" "$work/steps.txt"
