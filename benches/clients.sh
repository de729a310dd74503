#!/usr/bin/env bash
# Compares `perflab bench` with vLLM's own client, `vllm bench serve`.
#
#   benches/clients.sh agreement [ROUNDS]   # both clients, alternately, against one real vLLM server
#   benches/clients.sh ceiling [STREAMS]    # both clients at many streams against the simulated engine
#
# `agreement` starts a real vLLM (CPU build, the example model of examples/vllm-cpu) and runs the
# two clients on the same workload ROUNDS times each (default 3), alternating, so that drift of
# the machine hits both. It prints each client's median output throughput, TTFT and TPOT and the
# differences.
#
# `ceiling` starts the simulated engine as a trivial server (1 ms steps, no prefill cost, room
# for every stream) and drives it with STREAMS concurrent streams (default 1000) from each client
# in turn. It prints the output tokens a second each client read, and the client's own CPU time
# (user + system) for every 1,000 tokens, less the CPU time of a one-request run of the same
# client (its start-up: Python's imports weigh seconds).
#
# Needs vLLM's CPU build: examples/vllm-cpu/setup.sh installs it (venv outside the clone).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-agreement}"
venv="$(bash "$root/examples/vllm-cpu/setup.sh" | tail -1)"
model="$(dirname "$venv")/vllm-cpu-model"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
perflab="$root/target/release/perflab"
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
port=$((20000 + RANDOM % 20000))

wait_ready() {
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
    kill -0 "$server" 2>/dev/null || { echo "the server exited" >&2; return 1; }
    sleep 1
  done
  echo "the server did not become ready" >&2
  return 1
}

# Runs a client and keeps its output and its CPU time (user + system seconds).
timed() {
  local out="$1"
  shift
  /usr/bin/time -f '%U %S' -o "$out.cpu" "$@" >"$out" 2>"$out.err" || true
}

# Median of a metric over result files, read back with `perflab parse`.
median() {
  local key="$1"
  shift
  "$perflab" parse "$@" 2>/dev/null | python3 -c '
import json, statistics, sys
values = [r["metrics"][sys.argv[1]] for r in json.load(sys.stdin) if sys.argv[1] in r["metrics"]]
print(f"{statistics.median(values):.2f}" if values else "nan")' "$key"
}

cpu_per_1k_tokens() {
  python3 - "$perflab" "$@" <<'EOF'
import json, subprocess, sys, statistics
perflab, startup, files = sys.argv[1], sys.argv[2], sys.argv[3:]
base = sum(map(float, open(startup + ".cpu").read().split()[-2:]))
rates = []
for f in files:
    user, system = map(float, open(f + ".cpu").read().split()[-2:])
    user -= base
    blocks = json.loads(subprocess.run([perflab, "parse", f], capture_output=True, text=True).stdout or "[]")
    tokens = blocks[0]["metrics"].get("total_output_tokens", 0) if blocks else 0
    if tokens:
        rates.append((user + system) * 1000 / tokens)
print(f"{statistics.median(rates) * 1000:.1f} ms" if rates else "nan")
EOF
}

case "$mode" in
agreement)
  rounds="${2:-3}"
  HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1 VLLM_CACHE_ROOT="$work/cache" \
    "$venv/bin/vllm" serve "$model" --host 127.0.0.1 --port "$port" --dtype bfloat16 --max-model-len 2048 \
    >"$work/server.log" 2>&1 &
  server=$!
  wait_ready
  workload=(--random-input-len 64 --random-output-len 128 --num-prompts 64 --max-concurrency 8
    --metric-percentiles 50,99)
  for i in $(seq 1 "$rounds"); do
    HF_HUB_OFFLINE=1 timed "$work/vllm-$i.txt" "$venv/bin/vllm" bench serve --backend vllm \
      --base-url "http://127.0.0.1:$port" --model "$model" --tokenizer "$model" --dataset-name random \
      --seed "$i" "${workload[@]}"
    timed "$work/perflab-$i.txt" "$perflab" bench --quiet --base-url "http://127.0.0.1:$port" \
      --tokenizer "$model" --seed "$i" "${workload[@]}"
  done
  printf '| client | output tok/s | median TTFT (ms) | median TPOT (ms) |\n| --- | --- | --- | --- |\n'
  for c in vllm perflab; do
    printf '| %s | %s | %s | %s |\n' "$c" "$(median output_throughput "$work"/$c-*.txt)" \
      "$(median median_ttft_ms "$work"/$c-*.txt)" "$(median median_tpot_ms "$work"/$c-*.txt)"
  done
  ;;
ceiling)
  streams="${2:-1000}"
  "$root/target/release/perflab-engine" --port "$port" --model sim-model --sim-decode-ms 1 \
    --sim-prefill-ms-per-1k 0 --sim-batch-penalty 0 --max-num-seqs 5000 >"$work/server.log" 2>&1 &
  server=$!
  wait_ready
  workload=(--random-input-len 16 --random-output-len 200 --max-concurrency "$streams")
  for i in 0 1 2; do
    n=$((streams * 3))
    [ "$i" = 0 ] && n=1
    HF_HUB_OFFLINE=1 timed "$work/vllm-$i.txt" "$venv/bin/vllm" bench serve --backend vllm \
      --base-url "http://127.0.0.1:$port" --model sim-model --tokenizer "$model" --dataset-name random \
      --ignore-eos --num-prompts "$n" "${workload[@]}"
    timed "$work/perflab-$i.txt" "$perflab" bench --quiet --base-url "http://127.0.0.1:$port" \
      --model sim-model --num-prompts "$n" "${workload[@]}"
  done
  printf '| client (%s streams) | output tok/s read | client CPU per 1,000 tokens |\n| --- | --- | --- |\n' "$streams"
  for c in vllm perflab; do
    printf '| %s | %s | %s |\n' "$c" "$(median output_throughput "$work"/$c-[12].txt)" \
      "$(cpu_per_1k_tokens "$work/$c-0.txt" "$work"/$c-[12].txt)"
  done
  ;;
*)
  echo "usage: benches/clients.sh agreement [ROUNDS] | ceiling [STREAMS]" >&2
  exit 2
  ;;
esac
