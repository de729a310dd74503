#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine for the tests: slurmctld and two slurmd ("n1",
# "n2", one CPU each) on 127.0.0.1, everything under DIR, on free ports, no systemd, no munge
# (auth/none). `up DIR` starts it and prints the SLURM_CONF to use; `down DIR` cancels its jobs,
# stops its daemons and kills every process that still carries its SLURM_CONF (job processes a
# daemon left behind).
set -euo pipefail

usage() { echo "usage: $0 up|down DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf="$dir/slurm.conf"

# A TCP port on 127.0.0.1 nobody listens on (and that no other cluster of ours was given), below
# the kernel's range of ephemeral ports, which client connections take at any moment.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % 22000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && ! grep -qs "=$p\$\|Port=$p " "$dir/ports"; then
      echo "$p" >>"$dir/ports"
      echo "$p"
      return
    fi
  done
  echo "no free port" >&2
  exit 1
}

up() {
  for tool in slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install slurmctld slurmd slurm-client" >&2; exit 1; }
  done
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  : >"$dir/ports"
  local ctld n1 n2 user
  ctld=$(free_port); n1=$(free_port); n2=$(free_port)
  user=$(id -un)
  cat >"$conf" <<CONF
ClusterName=perflabtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
NodeName=n1 NodeHostname=n1 NodeAddr=127.0.0.1 Port=$n1 CPUs=1 State=UNKNOWN
NodeName=n2 NodeHostname=n2 NodeAddr=127.0.0.1 Port=$n2 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$conf
  slurmctld -f "$conf"
  slurmd -f "$conf" -N n1
  slurmd -f "$conf" -N n2
  # Both nodes idle: bounded wait (a node registers within seconds, slower on a busy machine).
  for _ in $(seq 1 300); do
    if [ "$(sinfo -h -o '%t' -N 2>/dev/null | grep -c '^idle')" = 2 ]; then
      echo "$conf"
      return
    fi
    sleep 0.1
  done
  echo "the cluster did not come up; see $dir/log" >&2
  sinfo -N >&2 || true
  tail -n 5 "$dir"/log/*.log >&2 || true
  down
  exit 1
}

down() {
  [ -f "$conf" ] || return 0
  export SLURM_CONF=$conf
  timeout 10 scancel --full --user "$(id -un)" 2>/dev/null || true
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  # Whatever still carries this cluster's SLURM_CONF: the daemons, step daemons and job processes.
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    local left=0
    for env in /proc/[0-9]*/environ; do
      local pid=${env#/proc/}; pid=${pid%/environ}
      [ "$pid" = $$ ] && continue
      if { tr '\0' '\n' <"$env" | grep -qx "SLURM_CONF=$conf"; } 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null || true
        left=1
      fi
    done
    [ $left = 0 ] && break
    sleep 0.2
  done
}

case $action in
  up) up ;;
  down) down ;;
  *) usage ;;
esac
