#!/usr/bin/env bash
# Wall-clock time of the example study (examples/sim-study) run from scratch three ways: one
# configuration at a time, `--jobs 2` on this machine, and on a two-node Slurm cluster started
# with tests/slurm/cluster.sh (skipped when Slurm is not installed). Prints a Markdown table.
# Not a test: the numbers depend on the machine.
#   bash benches/wallclock.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
cargo build --release --quiet
bin=$PWD/target/release/perflab
work=$(mktemp -d)
cluster=""
cleanup() {
  if [ -n "$cluster" ]; then bash tests/slurm/cluster.sh down "$work/cluster" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Seconds one fresh run of the example takes with these arguments.
once() {
  rm -rf "$work/study"
  mkdir -p "$work/study"
  cp -r examples/sim-study "$work/study/"
  rm -rf "$work/study/sim-study/runs"
  local start end
  start=$(date +%s.%N)
  "$bin" run "$work/study/sim-study" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }'
}

# The median of ROUNDS runs.
median() {
  local times=()
  for _ in $(seq 1 "$rounds"); do times+=("$(once "$@")"); done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

serial=$(median)
local2=$(median --jobs 2)
slurm="not measured (Slurm is not installed)"
if command -v slurmctld >/dev/null 2>&1; then
  cluster=$(bash tests/slurm/cluster.sh up "$work/cluster")
  export SLURM_CONF=$cluster
  slurm=$(median --backend slurm)
fi

echo "| how | wall-clock time (median of $rounds) |"
echo "| --- | --- |"
echo "| one at a time (\`perflab run\`) | ${serial} s |"
echo "| two at once on this machine (\`--jobs 2\`) | ${local2} s |"
echo "| two-node Slurm cluster (\`--backend slurm\`) | ${slurm} s |"
