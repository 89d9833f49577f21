#!/usr/bin/env bash
# Stop what tools/ci/slurm-up.sh DIR started. Jobs first: a job's slurmstepd and processes outlive
# slurmd, and an orphaned slurmstepd ignores SIGTERM. Then the daemons, by their recorded pids.
# Safe to call twice and on a half-started cluster.
D=${1:?usage: slurm-down.sh DIR}
[ -f "$D/pids" ] || exit 0
export SLURM_CONF="$D/etc/slurm.conf"
# Gone or a zombie (waiting for init to reap it) both count as stopped; kill -0 says "alive" to both.
live() { local st; st=$(awk '/^State:/{print $2}' "/proc/$1/status" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }

slurmd_pid=$(awk '$1 == "slurmd" {print $2}' "$D/pids")
jobs=$(timeout 10 squeue -h -o %i 2>/dev/null)
if [ -n "$jobs" ] && live "$slurmd_pid"; then
  timeout 10 scancel --full --quiet $jobs 2>/dev/null
  for _ in $(seq 1 100); do [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
fi
# With slurmd dead nothing can confirm a cancel; the job processes are killed below instead.

# slurmstepd processes of this cluster (their environment names our SLURM_CONF) that survived,
# e.g. after slurmd was killed: SIGKILL them and the job processes under them, which would
# otherwise run on (an orphaned slurmstepd ignores SIGTERM).
kill_tree() {
  local child
  kill -STOP "$1" 2>/dev/null  # no new children while we collect them
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -KILL "$1" 2>/dev/null
}
for pid in $(pgrep -x slurmstepd 2>/dev/null); do
  if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then kill_tree "$pid"; fi
done

while read -r _ pid; do kill -TERM "$pid" 2>/dev/null; done <"$D/pids"
for _ in $(seq 1 100); do
  alive=0
  while read -r _ pid; do live "$pid" && alive=1; done <"$D/pids"
  [ $alive = 0 ] && { rm -f "$D/pids"; exit 0; }
  sleep 0.1
done
while read -r _ pid; do kill -KILL "$pid" 2>/dev/null; done <"$D/pids"
rm -f "$D/pids"
exit 0
