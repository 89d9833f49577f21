#!/usr/bin/env bash
# A job whose slurmd is killed mid-run is Outcome::Lost with a clear error, never a result, for
# both srun and sbatch. Its own cluster, because killing slurmd breaks it (~20 s per mode: slurmctld
# needs several seconds of unanswered pings before it calls the node "not responding").
set -uo pipefail
. "$KOPT_SOURCE_DIR/tests/fixtures/exec/slurm_test_lib.sh"
find_probe
start_slurm 0
W=$WORK

for mode in sbatch srun; do
  "$PROBE" run --executor slurm --poll-ms 200 --node-lost-after-ms 2000 --mode $mode --stdout "$W/$mode.out" -- \
    sh -c "echo \$\$ > $W/$mode.pid; exec sleep 1000" >"$W/$mode.result" &
  probe=$!
  if ! wait_for_file "$W/$mode.pid"; then bad "$mode: the job started"; kill $probe; continue; fi
  t0=$SECONDS; kill -9 "$(awk '$1 == "slurmd" {print $2}' "$SLURM_DIR/pids")"
  wait $probe
  echo "# $mode: lost after $((SECONDS - t0)) s"; out=$(cat "$W/$mode.result")
  check "$mode: the job is lost, not measured" test "$(field "$out" outcome)" = lost
  check "$mode: the error names the node and says it is lost" \
    bash -c '[[ "$1" == *"node localhost"* && "$1" == *"lost, not measured"* ]]' _ "$(field "$out" error)"
  # Bring the cluster back for the next mode (slurm-up.sh restarts a half-dead cluster and kills
  # the orphaned job processes).
  t0=$SECONDS; bash "$KOPT_SOURCE_DIR/tools/ci/slurm-up.sh" "$SLURM_DIR" >/dev/null 2>&1 || { bad "slurm restarted"; break; }; echo "# restart took $((SECONDS - t0)) s"
  check "$mode: the orphaned job process is gone after the restart" gone "$(cat "$W/$mode.pid")"
done
finish
