#!/usr/bin/env bash
# Stand up a throwaway single-node Slurm cluster (Debian 12's slurm-wlm 22.05 + munge) in DIR, as
# root, without systemd and without touching /etc: every file, socket and log lives under DIR.
#
#   eval "$(tools/ci/slurm-up.sh DIR)"      # prints: export SLURM_CONF=DIR/etc/slurm.conf
#   ... srun / sbatch ...
#   tools/ci/slurm-down.sh DIR
#
# Idempotent: when DIR's cluster is already up it only prints the export line. Installs the two
# packages with apt-get when they are missing. Picks free TCP ports, so two clusters (two test
# scripts at once) can run side by side on one machine.
#
# Environment:
#   KOPT_SLURM_FAKE_GPUS=N  declare N fake GPUs (gres gpu) on the node, backed by device nodes
#                           under DIR/dev, so --gres=gpu:K and one-task-per-GPU can be tested on a
#                           machine without GPUs. Slurm sets CUDA_VISIBLE_DEVICES for them.
# Exit status: 0 up; 2 cannot run here (not root, packages unavailable); 1 failed to start.
set -euo pipefail

D=${1:?usage: slurm-up.sh DIR}
mkdir -p "$D"
D=$(cd "$D" && pwd)
CONF="$D/etc/slurm.conf"
# Remembered, so restarting a half-dead cluster (after a test killed slurmd) keeps its shape.
if [ -n "${KOPT_SLURM_FAKE_GPUS:-}" ]; then
  FAKE_GPUS=$KOPT_SLURM_FAKE_GPUS
elif [ -f "$D/fake_gpus" ]; then
  FAKE_GPUS=$(cat "$D/fake_gpus")
else
  FAKE_GPUS=0
fi
[[ "$FAKE_GPUS" =~ ^[0-9]+$ ]] || { echo "slurm-up: KOPT_SLURM_FAKE_GPUS must be a number" >&2; exit 1; }
echo "$FAKE_GPUS" >"$D/fake_gpus"

say() { echo "slurm-up: $*" >&2; }

node_state() { SLURM_CONF="$CONF" timeout 10 sinfo -h -n localhost -o %t 2>/dev/null || true; }

# Gone or a zombie both count as dead (kill -0 says "alive" to a zombie).
alive() { local st; st=$(awk '/^State:/{print $2}' "/proc/${1:-0}/status" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }

# Already up? (all recorded daemons alive and the node answers)
if [ -f "$D/pids" ] && [ -f "$CONF" ]; then
  up=1
  while read -r _ pid; do alive "$pid" || up=0; done <"$D/pids"
  if [ $up = 1 ] && [[ "$(node_state)" =~ ^(idle|mix|alloc)$ ]]; then
    echo "export SLURM_CONF=$CONF"
    exit 0
  fi
  # A half-dead cluster from an earlier run: stop what is left, then start afresh.
  "$(dirname "$0")/slurm-down.sh" "$D" >/dev/null 2>&1 || true
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v srun >/dev/null; then
  if [ "$(id -u)" != 0 ]; then say "slurm-wlm/munge are not installed and this is not root"; exit 2; fi
  say "installing slurm-wlm and munge with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends slurm-wlm munge >"$D/apt.log" 2>&1; then
    apt-get update -q >>"$D/apt.log" 2>&1 || true
    apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$D/apt.log" 2>&1 \
      || { say "apt-get install failed (see $D/apt.log)"; exit 2; }
  fi
fi
if [ "$(id -u)" != 0 ]; then say "the daemons must run as root (SlurmUser=root)"; exit 2; fi

mkdir -p "$D"/{etc,log,state/ctld,state/d,munge}
chmod 0755 "$D" "$D/munge"  # munged insists on o+x for its socket directory
[ -f "$D/munge/munge.key" ] || mungekey --create --keyfile="$D/munge/munge.key"

# Two free TCP ports (LISTEN sockets from /proc/net/tcp{,6}); start from a number derived from
# DIR so concurrent clusters rarely even probe the same ports.
listening_ports() {
  local hex
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4=="0A" {n=split($2,a,":"); print a[n]}' |
    while read -r hex; do echo $((16#$hex)); done | sort -u
}
pick_ports() {
  local used base p
  used=" $(listening_ports | tr '\n' ' ') "
  base=$(( 20000 + $(echo -n "$D" | cksum | cut -d' ' -f1) % 20000 ))
  for ((p = base; p < base + 2000; p += 2)); do
    if [[ "$used" != *" $p "* && "$used" != *" $((p + 1)) "* ]]; then echo "$p $((p + 1))"; return 0; fi
  done
  return 1
}
read -r CTLD_PORT SLURMD_PORT < <(pick_ports) || { say "no free TCP ports"; exit 1; }

# The node's shape as slurmd sees the hardware (giving only CPUs= makes slurmd complain).
HW=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
MEM=$(( $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) - 1024 ))

GRES_TYPES=""
NODE_GRES=""
if [ "$FAKE_GPUS" -gt 0 ]; then
  mkdir -p "$D/dev"
  : >"$D/etc/gres.conf"
  for ((i = 0; i < FAKE_GPUS; i++)); do
    # A character device (a copy of /dev/null's numbers with a distinct minor is not needed:
    # task/none binds nothing) that Slurm can stat; it only sets CUDA_VISIBLE_DEVICES from it.
    [ -e "$D/dev/fakegpu$i" ] || mknod "$D/dev/fakegpu$i" c 1 3
  done
  echo "Name=gpu File=$D/dev/fakegpu[0-$((FAKE_GPUS - 1))]" >"$D/etc/gres.conf"
  GRES_TYPES="GresTypes=gpu"
  NODE_GRES="Gres=gpu:$FAKE_GPUS "
fi

# Beyond the recipe in shared/spec/slurm.md: SlurmdTimeout/MessageTimeout=5 so a killed slurmd is
# noticed in ~7 s (not responding) and the node is DOWN in ~15 s, which the node-loss test needs;
# MinJobAge=600 keeps finished jobs visible to scontrol long enough to read their exit codes.
cat >"$CONF" <<CONF
ClusterName=kopt
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket.2
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
StateSaveLocation=$D/state/ctld
SlurmdSpoolDir=$D/state/d
SlurmctldPidFile=$D/state/slurmctld.pid
SlurmdPidFile=$D/state/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
EnforcePartLimits=ALL
SchedulerParameters=batch_sched_delay=0
SlurmdTimeout=5
MessageTimeout=5
MinJobAge=600
MailProg=/bin/true
$GRES_TYPES
NodeName=localhost ${HW}${NODE_GRES}RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

export SLURM_CONF="$CONF"
cleanup_on_failure() {
  local rc=$?
  if [ $rc != 0 ]; then
    say "failed; last log lines:"
    tail -n 20 "$D"/log/*.log "$D"/log/*.out "$D/munge/munged.log" >&2 2>/dev/null || true
    "$(dirname "$0")/slurm-down.sh" "$D" >/dev/null 2>&1 || true
  fi
}
trap cleanup_on_failure EXIT

: >"$D/pids"
munged --socket="$D/munge/munge.socket.2" --key-file="$D/munge/munge.key" \
  --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
  --seed-file="$D/munge/munged.seed" </dev/null  # forks; its pid is in munged.pid
echo "munged $(cat "$D/munge/munged.pid")" >>"$D/pids"
# setsid + files for every stream: the daemons outlive this script without holding the caller's
# terminal, pipes (a `$(slurm-up.sh)` would never return) or process group.
setsid slurmctld -D -f "$CONF" </dev/null >"$D/log/slurmctld.out" 2>&1 &
echo "slurmctld $!" >>"$D/pids"
setsid slurmd -D -f "$CONF" </dev/null >"$D/log/slurmd.out" 2>&1 &
echo "slurmd $!" >>"$D/pids"

for _ in $(seq 1 300); do  # up to 30 s; about 1 s on a quiet machine
  [ "$(node_state)" = idle ] && break
  sleep 0.1
done
[ "$(node_state)" = idle ] || { say "the node did not become idle"; exit 1; }
trap - EXIT
echo "export SLURM_CONF=$CONF"
