#!/usr/bin/env bash
# The Slurm executor against a real single-node Slurm (tools/ci/slurm-up.sh): srun and sbatch
# paths, exit codes and output files, a crash, a missing program, a cancelled long job (its
# processes gone), kopt's own time limit, an oversized request refused at once, and a sharded run
# with one GPU per Slurm job. KOPT_SLOW_TESTS=1 adds Slurm's own whole-minute time limit (~90 s).
set -uo pipefail
. "$KOPT_SOURCE_DIR/tests/fixtures/exec/slurm_test_lib.sh"
find_probe
start_slurm 2
W=$WORK
S=(--executor slurm --poll-ms 200)

out=$("$PROBE" inspect --executor slurm --partition debug)
check "inspect: the partition is usable and its 2 GPUs are listed" \
  bash -c '[[ "$1" == *"usable=yes"* && "$1" == *"partition debug"* && "$1" == *"gpu:2"* ]]' _ "$out"
out=$("$PROBE" inspect --executor slurm --partition nope)
check "inspect: an unknown partition is not usable" bash -c '[[ "$1" == *"usable=no"* ]]' _ "$out"

for mode in srun sbatch; do
  mkdir -p "$W/$mode/cwd"
  out=$("$PROBE" run "${S[@]}" --mode $mode --stdout "$W/$mode/out" --stderr "$W/$mode/err" --cwd "$W/$mode/cwd" \
        --env KOPT_T=hello -- sh -c 'echo "$KOPT_T $PWD"; echo to-stderr >&2; exit 5')
  check "$mode: exit code 5 comes back" test "$(field "$out" outcome)/$(field "$out" exit_code)" = exited/5
  check "$mode: env and cwd reach the job, stdout in its file" test "$(cat "$W/$mode/out")" = "hello $W/$mode/cwd"
  check "$mode: stderr in its own file" grep -qx to-stderr "$W/$mode/err"

  out=$("$PROBE" run "${S[@]}" --mode $mode --stdout "$W/$mode/ok" -- printf '%s|' 'a b' '$HOME')
  check "$mode: argv passes without a shell" test "$(field "$out" outcome)/$(field "$out" exit_code)/$(cat "$W/$mode/ok")" = 'exited/0/a b|$HOME|'

  out=$("$PROBE" run "${S[@]}" --mode $mode --stdout "$W/$mode/crash" -- sh -c 'kill -SEGV $$')
  check "$mode: a crash is signaled 11" test "$(field "$out" outcome)/$(field "$out" signal)" = signaled/11

  out=$("$PROBE" run "${S[@]}" --mode $mode --stdout "$W/$mode/missing" -- kopt-no-such-program)
  check "$mode: a missing program fails to start, naming it" \
    bash -c '[[ "$1" == *"outcome=failed_to_start"* && "$1" == *kopt-no-such-program* ]]' _ "$out"

  # A long job cancelled once it is running: the job and its background grandchild are gone.
  out=$("$PROBE" run "${S[@]}" --mode $mode --stdout "$W/$mode/cancel" --cancel-on-line ready -- \
        sh -c "sleep 1000 & echo \$! > $W/$mode/cancel.pid; echo ready; wait")
  check "$mode: cancelled" test "$(field "$out" outcome)" = cancelled
  check "$mode: the cancelled job's processes are gone" gone "$(cat "$W/$mode/cancel.pid")"

  # kopt's own time limit (Slurm's are whole minutes): 1.5 s on a 300 s sleep.
  out=$("$PROBE" run "${S[@]}" --mode $mode --timeout-ms 1500 --stdout "$W/$mode/slow" -- \
        sh -c "echo \$\$ > $W/$mode/slow.pid; exec sleep 300")
  check "$mode: timed out by kopt" test "$(field "$out" outcome)" = timed_out
  check "$mode: the timed-out job's process is gone" gone "$(cat "$W/$mode/slow.pid")"

  # More CPUs / GPUs than the node has: refused at submit, not left pending.
  out=$("$PROBE" run "${S[@]}" --mode $mode --extra --cpus-per-task=999 --stdout "$W/$mode/big" -- true)
  check "$mode: 999 CPUs refused at once" test "$(field "$out" outcome)" = failed_to_start
  out=$("$PROBE" run "${S[@]}" --mode $mode --gres gpu:3 --stdout "$W/$mode/biggpu" -- true)
  check "$mode: 3 GPUs on a 2-GPU node refused at once" test "$(field "$out" outcome)" = failed_to_start
done
check "no job left in the queue" test -z "$(squeue -h -o %i)"

# Sharding on Slurm: one job per shard, each with one (fake) GPU that Slurm assigns.
out=$("$PROBE" shard "${S[@]}" --mode srun --gres gpu:1 --scheduler-assigns --devices g0,g1 --shapes a,b,c \
      --summary "$W/shard/benchmark.csv" --samples "$W/shard/samples.jsonl" --workdir "$W/shard/work" --seed 4 \
      --stdout "$W/shard/log" --env FAKE_PRINT_DEVICE=1 -- "$KOPT_SOURCE_DIR/tests/fixtures/exec/fake_bench.sh")
check "slurm shard: ok" test "$(field "$out" outcome)/$(field "$out" shard_error)" = exited/
check "slurm shard: rows in shape order, each with a GPU Slurm assigned" \
  bash -c '[ "$(cut -d, -f1,6 "$1" | sed "s/@[01]\/none$/@gpu/")" = "$(printf "label,Check\na,PASS@gpu\nb,PASS@gpu\nc,PASS@gpu")" ]' _ "$W/shard/benchmark.csv"

if [ "${KOPT_SLOW_TESTS:-0}" = 1 ]; then
  out=$("$PROBE" run "${S[@]}" --mode sbatch --time 1 --timeout-ms 600000 --stdout "$W/limit" -- sleep 300)
  check "Slurm's own --time=1 limit is reported as timed out" \
    bash -c '[[ "$1" == *"outcome=timed_out"* && "$1" == *"time limit"* ]]' _ "$out"
fi
finish
