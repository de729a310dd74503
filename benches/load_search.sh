#!/usr/bin/env bash
# How many points the load search measures against an exhaustive scan, on examples/sim-slo: for
# each configuration both studies measured, the search's points, boundary and stop reason, and
# the boundary a scan of every load from 4 to 64 finds under the same SLO. Prints a Markdown
# table. Not a test: the simulated engine measures wall time, so boundaries move with the
# machine's load (and the greedy path with them).
#   NO_BUILD=1 bash benches/load_search.sh   (NO_BUILD: skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
export PATH=$PWD/target/release:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for way in search scan; do
  cp -r examples/sim-slo "$work/$way"
  rm -rf "$work/$way/runs"
done
sed -i "s/^load = .*/load = { values = [$(seq -s, 4 64 | sed 's/,/, /g')] }/" "$work/scan/study.toml"
perflab run "$work/search" >/dev/null 2>&1
perflab run "$work/scan" >/dev/null 2>&1
perflab analyze "$work/search" >"$work/search.json"
perflab analyze "$work/scan" >"$work/scan.json"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def configs(way):
    a = json.load(open(f"{work}/{way}.json"))
    return {c["config"]: c for c in a["curves"][0]["configs"]}
search, scan = configs("search"), configs("scan")
print("| configuration | search: points | search: boundary (stop) | scan: points | scan: boundary | apart |")
print("| --- | --- | --- | --- | --- | --- |")
for config in sorted(set(search) & set(scan)):
    s, x = search[config], scan[config]
    apart = abs((s["boundary"] or 0) - (x["boundary"] or 0))
    print(f"| {config} | {len(s['points'])} | {s['boundary']} ({s['stop']}) | {len(x['points'])} | {x['boundary']} | {apart} |")
PY
