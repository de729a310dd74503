#!/usr/bin/env bash
# Whether examples/sim-slo's published boundaries hold when measured again from outside the
# search. Runs the example RUNS times (default 10), each in a fresh copy; after each run, for
# every configuration whose search ended on a point boundary b (resolution), starts the engine
# by hand with the command its boundary point's manifest recorded, and measures b and b + 1
# three times each with `perflab bench` (the recorded benchmark command, its concurrency
# replaced). A measurement meets the SLO when p99 TTFT <= 80 ms, mean TPOT <= 10 ms and all 128
# requests completed. For an upper-bound answer it measures b alone. Prints a Markdown table
# and how often the example's answer (every configuration's boundary and stop, every stage's
# decision) changed between runs. LOAD=N keeps N busy loops running beside it, as other work on
# the machine would. Not a test: it measures wall time on whatever machine it runs on.
#   RUNS=10 LOAD=2 NO_BUILD=1 bash benches/slo_remeasure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
hogs=()
cleanup() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 "${LOAD:-0}"); do
  (while :; do :; done) &
  hogs+=($!)
done

for run in $(seq 1 "${RUNS:-10}"); do
  cp -r examples/sim-slo "$work/run$run"
  perflab run "$work/run$run" >"$work/run$run.log" 2>&1
  perflab analyze "$work/run$run" >"$work/run$run.json"
done

python3 - "$work" "${RUNS:-10}" <<'PY'
import json, os, socket, subprocess, sys, time, glob
work, runs = sys.argv[1], int(sys.argv[2])

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def serving(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(12).startswith(b"HTTP/1.1 200")
    except OSError:
        return False

def met(bench, load, port):
    argv = [w.replace("{port}", str(port)) for w in bench]
    argv[argv.index("--max-concurrency") + 1] = str(load)
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    block = json.loads(subprocess.run(["perflab", "parse", "-"], input=out, capture_output=True, text=True).stdout)[0]
    m = block["metrics"]
    return m.get("p99_ttft_ms", 1e9) <= 80 and m.get("mean_tpot_ms", 1e9) <= 10 and m.get("completed") == 128

def remeasure(run, config, loads):
    stage, variant = config.split("/")
    found = glob.glob(f"{work}/run{run}/runs/{stage}/{variant}/attempts/*/chat@{loads[0]}.manifest.json")
    m = json.load(open(sorted(found)[-1]))
    port = free_port()
    engine = subprocess.Popen([w.replace("{port}", str(port)) for w in m["command"]], stderr=subprocess.DEVNULL)
    try:
        while not serving(port):
            time.sleep(0.05)
        return [sum(met(m["benchmark_command"], load, port) for _ in range(3)) for load in loads]
    finally:
        engine.kill(); engine.wait()

answers, rows, held, checked = [], [], 0, 0
for run in range(1, runs + 1):
    a = json.load(open(f"{work}/run{run}.json"))
    configs = a["curves"][0]["configs"]
    answers.append((tuple((c["config"], c["boundary"], c["stop"], json.dumps(c.get("band"))) for c in configs),
                    tuple((s["id"], s["adoption"]["kind"], s["adoption"].get("variant")) for s in a["stages"])))
    for c in configs:
        b = c["boundary"]
        if c["stop"] == "resolution" and not c.get("band"):
            got = remeasure(run, c["config"], [b, b + 1])
            ok = got[0] >= 2 and 3 - got[1] >= 2
            rows.append(f"| {run} | {c['config']} | {b} (exact) | {got[0]} of 3 | {3 - got[1]} of 3 | {'yes' if ok else 'no'} |")
        elif c["stop"] == "upper-bound":
            got = remeasure(run, c["config"], [b])
            ok = got[0] >= 2
            rows.append(f"| {run} | {c['config']} | {b} (upper bound) | {got[0]} of 3 | – | {'yes' if ok else 'no'} |")
        else:
            rows.append(f"| {run} | {c['config']} | {b} ({c['stop']}, band {c.get('band')}) | – | – | – |")
            continue
        held += ok; checked += 1
print("| run | configuration | published boundary b | b met | b + 1 missed | held |")
print("| --- | --- | --- | --- | --- | --- |")
print("\n".join(rows))
changed = sum(1 for x, y in zip(answers, answers[1:]) if x != y)
print(f"\nboundaries that held (b met in 2 of 3 or more, b + 1 missed in 2 of 3 or more): {held} of {checked}")
print(f"runs whose answer differed from the run before: {changed} of {runs - 1}")
PY
