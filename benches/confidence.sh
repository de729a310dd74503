#!/usr/bin/env bash
# How often a stage's decision is right when runs are noisy, and what it costs: a two-variant
# study on the simulated engine whose speed varies by up to ±5% (`--sim-noise 0.05`: half drawn
# at each engine start, half at each benchmark), the noise threshold 1%. Two cases: B is the
# same engine as A under another command (a flag that changes nothing), and B about 2% faster
# (a shorter decode step; the script measures the difference without noise first). Each trial
# measures the study from scratch with its own seed, three ways: one run a variant; a fixed
# number of engine starts a variant (`repeats = FIXED`, `repeat_across_restarts = true`); two
# starts a variant, then `--until-confident --budget BUDGET`. Prints a Markdown table: how often
# each way adopts B, keeps A with confidence or cannot tell, and the benchmark runs a trial took.
# Not a test: the numbers depend on the seeds and on the machine's timing.
#   NO_BUILD=1 JOBS=2 bash benches/confidence.sh [TRIALS] [FIXED] [BUDGET] [CASES] [WAYS]
# (NO_BUILD: skip the release build; JOBS: trials measured at once, default 1; PER_RUN: the share
# of the noise drawn at each benchmark, `--sim-noise-per-run`, default 0.5). On a machine
# that runs other work, give the trials the CPU first (`nice -n -15`) and the other work the
# last of it (`renice 19`, `ionice -c3`): a stall of the engine or the client is noise the
# engine was not asked to add.
# CASES: `same`, `faster` or both (`same,faster`); WAYS: any of `single,fixed,confident`.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-100}
fixed=${2:-24}
budget=${3:-60}
cases=${4:-same,faster}
ways=${5:-single,fixed,confident}
jobs=${JOBS:-1}
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Writes a fresh study to $1 with `repeats = $2`, B's flag $3 and the engine's noise (share $5,
# default 0.05) seeded with $4.
study() {
  local dir=$1 repeats=$2 flag=$3 seed=$4 noise=${5:-0.05}
  mkdir -p "$dir"
  cat >"$dir/study.toml" <<TOML
model = "sim/model"
baseline = "engine/a"
target_profile = "burst"
noise_threshold = 1.0
repeats = $repeats
repeat_across_restarts = true

[title]
en = "Two variants under 5% noise"

[hardware]
en = "simulated GPU"

[benchmark]
tool = "perflab bench"

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {port} --model {model} --sim-startup-seconds 0.01 --sim-decode-ms 4 --sim-batch-penalty 0 --sim-noise $noise --sim-noise-per-run ${PER_RUN:-0.5} --sim-seed $seed --sim-noise-counter $dir/starts"
start_timeout = 30
stop_grace = 5

[[profile]]
id = "burst"
name = { en = "8 requests at once (8 in / 48 out)" }
dataset = "random"
input_tokens = 8
output_tokens = 48
seed = 1
total_requests = 8
max_concurrency = 8

[[stage]]
id = "engine"
title = { en = "Variant" }

[[stage.variant]]
id = "a"
label = "A"
engine = "sim"

[[stage.variant]]
id = "b"
label = "B"
engine = "sim"
flags = ["$flag"]
TOML
}

# The stage's decision: adopted (B), kept (A, with confidence: the runs could tell) or unclear.
verdict() {
  perflab analyze "$1" | python3 -c '
import json, sys
a = json.load(sys.stdin)["stages"][0]["adoption"]
print({"adopted": "adopted", "cannot-tell": "unclear"}.get(a["kind"], "kept"))'
}

# Benchmark results on disk: the runs a way took.
runs() {
  find "$1/runs" -name 'burst*.txt' | wc -l
}

faster_flag="--sim-decode-ms 3.92"
same_flag="--sim-vocab-size 32001"
study "$work/calibration" 12 "$faster_flag" 0 0
perflab run "$work/calibration" >/dev/null 2>&1
truth=$(perflab analyze "$work/calibration" | python3 -c '
import json, sys
a = json.load(sys.stdin)["stages"][0]["adoption"]
i = a.get("interval") or {"low": float("nan"), "high": float("nan")}
print("%.1f%% (95%% CI %.1f–%.1f%%)" % (a["gain_percent"], i["low"], i["high"]))')
rm -rf "$work/calibration"
echo "B ($faster_flag) against A without the engine's noise, 12 starts each: $truth" >&2

# One trial: every case measured every way from scratch, a line each on standard output.
trial() {
  local trial=$1 case way flag dir
  for case in ${cases//,/ }; do
    flag=$same_flag
    [ "$case" = faster ] && flag=$faster_flag
    for way in ${ways//,/ }; do
      dir=$work/$case-$way-$trial
      case $way in
        single) study "$dir" 1 "$flag" "$trial"; perflab run "$dir" >/dev/null 2>&1 ;;
        fixed) study "$dir" "$fixed" "$flag" "$trial"; perflab run "$dir" >/dev/null 2>&1 ;;
        confident) study "$dir" 2 "$flag" "$trial"; perflab run "$dir" --until-confident --budget "$budget" >/dev/null 2>&1 ;;
      esac
      echo "trial $trial $case $way $(verdict "$dir") $(runs "$dir")"
      rm -rf "$dir"
    done
  done
}
export -f trial study verdict runs
export work cases ways fixed budget same_flag faster_flag PER_RUN
seq 1 "$trials" | xargs -P "$jobs" -I{} bash -c 'trial {}' | tee "$work/trials" >&2

declare -A count spent done_trials
for case in ${cases//,/ }; do
  for way in ${ways//,/ }; do
    for v in adopted kept unclear; do count[$case.$way.$v]=0; done
    spent[$case.$way]=0
    done_trials[$case.$way]=0
  done
done
while read -r _ _ case way v r; do
  count[$case.$way.$v]=$((count[$case.$way.$v] + 1))
  spent[$case.$way]=$((spent[$case.$way] + r))
  done_trials[$case.$way]=$((done_trials[$case.$way] + 1))
done <"$work/trials"

echo "B ($faster_flag) against A without the engine's noise, 12 starts each: $truth"
echo
echo "| noise ±5% (start and benchmark), threshold 1% | trials | adopts B | keeps A with confidence | cannot tell | benchmark runs a trial |"
echo "| --- | --- | --- | --- | --- | --- |"
for case in ${cases//,/ }; do
  for way in ${ways//,/ }; do
    n=${done_trials[$case.$way]}
    mean=$(python3 -c "print(f'{${spent[$case.$way]} / max($n, 1):.1f}')")
    what=$([ "$case" = same ] && echo "identical" || echo "B 2% faster")
    how=$(case $way in single) echo "one run a variant" ;; fixed) echo "$fixed starts a variant" ;; confident) echo "2 starts, then \`--until-confident --budget $budget\`" ;; esac)
    echo "| $what, $how | $n | ${count[$case.$way.adopted]} | ${count[$case.$way.kept]} | ${count[$case.$way.unclear]} | $mean |"
  done
done
