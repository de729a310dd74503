#!/usr/bin/env bash
# Wall-clock time of the example study (examples/sim-study) run from scratch three ways: one
# configuration at a time, `--jobs 2` on this machine, and on a two-node Slurm cluster started
# with tests/slurm/cluster.sh (skipped when Slurm is not installed); the whole study, and its
# first stage alone with the baseline measured on the target profile only (two variants of about
# the same cost). Prints a Markdown table. Not a test: the numbers depend on the machine.
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

# Seconds one fresh run of the example takes: `whole` or `pair` (the first stage, two variants
# on one profile each), then perflab run's arguments.
once() {
  local what=$1
  shift
  rm -rf "$work/study"
  mkdir -p "$work/study"
  cp -r examples/sim-study "$work/study/"
  rm -rf "$work/study/sim-study/runs"
  if [ "$what" = pair ]; then
    sed -i 's/^noise_threshold = 3.0$/noise_threshold = 3.0\ncompare_profiles = ["mixed"]/' "$work/study/sim-study/study.toml"
    set -- "$@" --stage engine
  fi
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

declare -A t
for what in whole pair; do
  t[$what,serial]=$(median "$what")
  t[$what,local2]=$(median "$what" --jobs 2)
  t[$what,slurm]="(no Slurm)"
done
if command -v slurmctld >/dev/null 2>&1; then
  cluster=$(bash tests/slurm/cluster.sh up "$work/cluster")
  export SLURM_CONF=$cluster
  for what in whole pair; do t[$what,slurm]="$(median "$what" --backend slurm) s"; done
fi

echo "| how | whole study (11 engine starts) | first stage alone (2 variants) |"
echo "| --- | --- | --- |"
echo "| one at a time (\`perflab run\`) | ${t[whole,serial]} s | ${t[pair,serial]} s |"
echo "| two at once on this machine (\`--jobs 2\`) | ${t[whole,local2]} s | ${t[pair,local2]} s |"
echo "| two-node Slurm cluster (\`--backend slurm\`) | ${t[whole,slurm]} | ${t[pair,slurm]} |"
echo
echo "(median of $rounds runs each)"
