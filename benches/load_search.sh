#!/usr/bin/env bash
# How many points the load search measures against an exhaustive scan, on examples/sim-slo: for
# each configuration both studies measured, the search's points, boundary and stop reason, and
# the boundary a scan of every load in the study's range (`min` to `max`, or its lowest 64
# loads, the most a list holds) finds under the same SLO. Prints a Markdown
# table. Not a test: the simulated engine measures wall time, so boundaries move with the
# machine's load (and the greedy path with them).
#   NO_BUILD=1 bash benches/load_search.sh   (NO_BUILD: skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# (`search` would be refused as a study folder name: the mkdocs drop-in has a folder of that name.)
for way in searched scanned; do
  cp -r examples/sim-slo "$work/$way"
  rm -rf "$work/$way/runs"
done
range=$(sed -n 's/^load = .*min = \([0-9]*\), max = \([0-9]*\).*/\1 \2/p' examples/sim-slo/study.toml)
[ -n "$range" ] || { echo "examples/sim-slo/study.toml: no \`load = { ..., min = A, max = B, ... }\` line" >&2; exit 1; }
read -r lo hi <<<"$range"
# A list holds at most 64 loads: the scan covers the 64 from the bottom of the range.
[ $((hi - lo)) -lt 64 ] || hi=$((lo + 63))
echo "scan: every load from $lo to $hi" >&2
sed -i "s/^load = .*/load = { values = [$(seq -s, "$lo" "$hi" | sed 's/,/, /g')] }/" "$work/scanned/study.toml"
perflab run "$work/searched" >/dev/null 2>&1
perflab run "$work/scanned" >/dev/null 2>&1
perflab analyze "$work/searched" >"$work/searched.json"
perflab analyze "$work/scanned" >"$work/scanned.json"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def configs(way):
    a = json.load(open(f"{work}/{way}.json"))
    return {c["config"]: c for c in a["curves"][0]["configs"]}
search, scan = configs("searched"), configs("scanned")
print("| configuration | search: points | search: boundary (stop) | scan: points | scan: boundary | apart |")
print("| --- | --- | --- | --- | --- | --- |")
for config in sorted(set(search) & set(scan)):
    s, x = search[config], scan[config]
    apart = abs((s["boundary"] or 0) - (x["boundary"] or 0))
    print(f"| {config} | {len(s['points'])} | {s['boundary']} ({s['stop']}) | {len(x['points'])} | {x['boundary']} | {apart} |")
PY
