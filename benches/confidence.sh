#!/usr/bin/env bash
# How often a decision is right when runs are noisy: a two-variant study on the simulated engine
# where variant B is about 3% faster than A (its decode step is 3.6% shorter; the rest of a
# request's time does not shrink, and the script measures the difference without noise first,
# 12 runs each), every benchmark's
# speed varies by up to ±5% (`--sim-noise 0.05`: half drawn at each engine start, half at each
# benchmark) and the noise threshold is 1%. Each trial is the study measured from scratch with
# its own seed, three ways: one run a variant; a fixed number of runs a variant; two runs a
# variant and `--until-confident` with a budget. Prints a Markdown table: how often each way
# adopts B (the better one), keeps or adopts A (the worse one) or says it cannot tell, and the
# benchmark runs it took. Not a test: the numbers depend on the seeds and the machine's timing.
#   bash benches/confidence.sh [TRIALS] [FIXED_RUNS] [BUDGET]
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-20}
fixed=${2:-8}
budget=${3:-40}
cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Writes a fresh study to $1 with `repeats = $2` and the engine's noise (share $4, default 0.05)
# seeded with $3.
study() {
  local dir=$1 repeats=$2 seed=$3 noise=${4:-0.05}
  mkdir -p "$dir"
  cat >"$dir/study.toml" <<EOF
model = "sim/model"
baseline = "engine/a"
target_profile = "burst"
noise_threshold = 1.0
repeats = $repeats

[title]
en = "Two variants 3% apart under 5% noise"

[hardware]
en = "simulated GPU"

[benchmark]
tool = "perflab bench"

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {port} --model {model} --sim-startup-seconds 0.05 --sim-decode-ms 5 --sim-noise $noise --sim-seed $seed --sim-noise-counter $dir/starts"
start_timeout = 30
stop_grace = 5

[[profile]]
id = "burst"
name = { en = "16 requests at once (16 in / 24 out)" }
dataset = "random"
input_tokens = 16
output_tokens = 24
seed = 1
total_requests = 16
max_concurrency = 16

[[stage]]
id = "engine"
title = { en = "Variant" }

[[stage.variant]]
id = "a"
label = "A"
engine = "sim"

[[stage.variant]]
id = "b"
label = "B (shorter steps)"
engine = "sim"
flags = ["--sim-decode-ms 4.82"]
EOF
}

# The stage's decision: better (B adopted), worse (A stays although the runs could tell) or
# unclear (they could not).
verdict() {
  perflab analyze "$1" | python3 -c '
import json, sys
a = json.load(sys.stdin)["stages"][0]["adoption"]
if a["kind"] == "adopted" and a["variant"] == "b":
    print("better")
elif a["kind"] == "cannot-tell":
    print("unclear")
else:
    print("worse")'
}

# Benchmark results on disk: the runs a way took.
runs() {
  find "$1/runs" -name 'burst*.txt' | wc -l
}

# The difference without the engine's noise (the machine's own timing still varies).
study "$work/calibration" 12 0 0
perflab run "$work/calibration" >/dev/null 2>&1
truth=$(perflab analyze "$work/calibration" | python3 -c '
import json, sys
a = json.load(sys.stdin)["stages"][0]["adoption"]
i = a.get("interval") or {"low": float("nan"), "high": float("nan")}
print("%.1f%% (95%% CI %.1f–%.1f%%)" % (a["gain_percent"], i["low"], i["high"]))')
rm -rf "$work/calibration"
echo "B against A without the engine's noise, 12 runs each: $truth" >&2

declare -A count spent
for way in single fixed confident; do
  for v in better worse unclear; do count[$way.$v]=0; done
  spent[$way]=0
done
for trial in $(seq 1 "$trials"); do
  for way in single fixed confident; do
    dir=$work/$way-$trial
    case $way in
      single) study "$dir" 1 "$trial"; perflab run "$dir" >/dev/null 2>&1 ;;
      fixed) study "$dir" "$fixed" "$trial"; perflab run "$dir" >/dev/null 2>&1 ;;
      confident) study "$dir" 2 "$trial"; perflab run "$dir" --until-confident --budget "$budget" >/dev/null 2>&1 ;;
    esac
    v=$(verdict "$dir")
    count[$way.$v]=$((count[$way.$v] + 1))
    spent[$way]=$((spent[$way] + $(runs "$dir")))
    rm -rf "$dir"
  done
  echo "trial $trial of $trials done" >&2
done

echo "B against A without the engine's noise, 12 runs each: $truth"
echo
echo "| $trials trials, noise ±5%, threshold 1% | adopts B (better) | keeps A (worse) | cannot tell | benchmark runs a trial |"
echo "| --- | --- | --- | --- | --- |"
row() {
  local way=$1 label=$2
  local mean
  mean=$(python3 -c "print(f'{${spent[$way]} / $trials:.1f}')")
  echo "| $label | ${count[$way.better]} | ${count[$way.worse]} | ${count[$way.unclear]} | $mean |"
}
row single "one run a variant"
row fixed "$fixed runs a variant"
row confident "2 runs a variant, then \`--until-confident --budget $budget\`"
