#!/usr/bin/env bash
# For a machine with an NVIDIA GPU at hand: runs a one-run study on GPU 0 in a temporary folder
# and prints what perflab recorded of the machine (each fact with its source) beside what
# nvidia-smi says itself, so that the two can be compared. Nothing of the repository is changed.
#
#   examples/gpu-check/run.sh                                   # the simulated engine on GPU 0
#   ENGINE='vllm serve Qwen/Qwen3-0.6B --port {port}' VERSION=0.11.0 examples/gpu-check/run.sh
#
# ENGINE is the engine's command (with {port}); VERSION the version the study declares: without
# it the run measures whatever is installed (--any-engine-version). PERFLAB is the perflab binary
# (default target/debug/perflab; its perflab-engine beside it).
set -euo pipefail
perflab="${PERFLAB:-target/debug/perflab}"
default_engine='perflab-engine --port {port} --sim-startup-seconds 0.1'
engine="${ENGINE:-$default_engine}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
study="$tmp/gpu-check"
mkdir -p "$study"
cat >"$study/study.toml" <<TOML
model = "check"
baseline = "check/only"
target_profile = "p"
title = { en = "GPU check" }
hardware = { en = "what nvidia-smi says" }

[benchmark]
tool = "perflab bench"

[[engine]]
id = "engine"
name = "Engine"
version = "${VERSION:-not declared}"
command = "$engine"
start_timeout = 600
gpus = 1

[[profile]]
id = "p"
name = { en = "p" }
dataset = "random"
input_tokens = 32
output_tokens = 16
total_requests = 8

[[stage]]
id = "check"
title = { en = "Check" }

[[stage.variant]]
id = "only"
label = "only"
engine = "engine"
TOML
printf '[local]\ngpus = 1\n' >"$tmp/machine.toml"
any=()
[ -n "${VERSION:-}" ] || any=(--any-engine-version)
echo "== nvidia-smi says" >&2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader --id=0 || echo "(no nvidia-smi)"
nvidia-smi | grep -o 'CUDA Version: [0-9.]*' || true
echo "== perflab run" >&2
"$perflab" run "$study" --config "$tmp/machine.toml" "${any[@]}"
echo "== what the run recorded" >&2
"$perflab" reproduce "$study" check/only/p
