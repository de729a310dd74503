#!/usr/bin/env bash
# How often the accuracy gate decides right: seeded trials on the simulated engine. Each trial
# measures a fresh study from scratch: a base configuration (90% of the arithmetic questions
# right) and, in a stage that requires `max_drop = 1.0` point, a variant 5% faster (a shorter
# decode step) that is either 3 points less accurate (`--sim-accuracy 0.87`) or as accurate.
# `--sim-seed` (the trial's number) draws which questions each configuration gets right; the
# simulated engine gets wrong, in a less accurate configuration, the questions the more accurate
# one gets wrong and a few more (see src/sim/answer.rs), as a change of numerics flips the
# borderline answers of a model decoded greedily. Prints a Markdown table: how often the stage
# adopted the variant, and the gate's verdicts. Not a test: a script whose table is in
# docs/benchmarks.md.
#   NO_BUILD=1 REQUESTS=64 bash benches/accuracy_trials.sh [TRIALS] [QUESTIONS] [CASES]
# CASES: `lower`, `same` or both (`lower,same`, the default). Run it with `nice -n 19` on a
# shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-100}
questions=${2:-500}
cases=${3:-lower,same}
# Requests of each benchmark: more make the 5% speed difference stand out of a loaded machine's
# noise (the gate's verdict does not depend on them).
requests=${REQUESTS:-64}
[ -n "${NO_BUILD:-}" ] || cargo build --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Copies of the binaries, so that a build during the trials does not change them.
mkdir -p "$work/bin" && cp target/debug/perflab target/debug/perflab-engine "$work/bin/"
export PATH=$work/bin:$PATH

# Writes a fresh study to $1: the variant's flags $2, the engine's seed $3.
study() {
  local dir=$1 flags=$2 seed=$3
  mkdir -p "$dir"
  cat >"$dir/study.toml" <<TOML
model = "sim/model"
baseline = "engine/base"
target_profile = "burst"
noise_threshold = 2.0

[title]
en = "A faster variant under an accuracy gate"

[hardware]
en = "simulated GPU"

[benchmark]
tool = "perflab bench"

[[evaluation]]
id = "arith"
name = { en = "the arithmetic set" }
data = "perflab:arithmetic"
questions = $questions
max_tokens = 8

[[engine]]
id = "sim"
name = "Sim"
version = "1"
command = "perflab-engine --port {port} --model {model} --sim-startup-seconds 0.01 --sim-decode-ms 4 --sim-batch-penalty 0 --sim-accuracy 0.9 --sim-seed $seed"
start_timeout = 30
stop_grace = 5

[[profile]]
id = "burst"
name = { en = "$requests requests, 8 at once (8 in / 128 out)" }
dataset = "random"
input_tokens = 8
output_tokens = 128
seed = 1
total_requests = $requests
max_concurrency = 8

[[stage]]
id = "engine"
title = { en = "Engine" }

[[stage.variant]]
id = "base"
label = "Base"
engine = "sim"

[[stage]]
id = "gate"
title = { en = "Faster variant" }
accuracy = { evaluation = "arith", max_drop = 1.0 }

[[stage.variant]]
id = "same"
label = "unchanged"

[[stage.variant]]
id = "fast"
label = "fast"
flags = [$flags]
TOML
}

# The gate stage's decision and the gate's verdict on the variant, and the points it lost.
verdict() {
  perflab analyze "$1" | python3 -c '
import json, sys
s = [s for s in json.load(sys.stdin)["stages"] if s["id"] == "gate"][0]
v = [v for v in s["accuracy"]["variants"] if v["variant"] == "fast"][0]
d = (v.get("difference") or {}).get("points", float("nan"))
print("adopted" if s["adoption"]["kind"] == "adopted" else "refused", v["verdict"]["kind"], "%.1f" % d)'
}

for trial in $(seq 1 "$trials"); do
  for case in ${cases//,/ }; do
    flags='"--sim-decode-ms 3.8"'
    [ "$case" = lower ] && flags='"--sim-decode-ms 3.8", "--sim-accuracy 0.87"'
    dir=$work/$case-$trial
    study "$dir" "$flags" "$trial"
    perflab run "$dir" >/dev/null 2>&1 || true
    echo "trial $trial $case $(verdict "$dir")"
    rm -rf "$dir"
  done
done | tee "$work/trials" >&2

echo
echo "| variant (5% faster) | questions | trials | adopted | refused | verdict: below / unclear / within | mean difference (points) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for case in ${cases//,/ }; do
  awk -v c="$case" -v q="$questions" '$3 == c {
      n++; if ($4 == "adopted") a++; else r++;
      v[$5]++; d += $6
    } END {
      name = (c == "lower") ? "3 points less accurate" : "as accurate"
      printf "| %s | %d | %d | %d | %d | %d / %d / %d | %.2f |\n", name, q, n, a, r, v["below"], v["unclear"], v["within"], d / n
    }' "$work/trials"
done
