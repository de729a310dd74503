#!/usr/bin/env bash
# `perflab parse` against a Python script with five regular expressions (benches/parse_alt.py)
# that pulls the same label/value pairs out of the same log, on a log written by
# benches/parse_input.py (the bundled runs and the fixtures' samples between lines of noise,
# seeded). Each round runs both, alternately, writing to a file; the table gives the medians of
# CPU time (user + system) and of peak memory, and a 1 GB log's peak memory for perflab.
#
#   bash benches/parse.sh [ROUNDS] [SIZE_MB] [BIG_MB]      # defaults: 5, 100, 1000
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
size=${2:-100}
big=${3:-1000}
cargo build --release --quiet --bin perflab
bin=$PWD/target/release/perflab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/parse_input.py "$work/in.log" "$size" 1

# Runs a command with its output to a file; appends "cpu_seconds peak_kib" to $1.
measure() {
  local into=$1
  shift
  /usr/bin/time -f '%U %S %M' -o "$work/t" "$@" >"$work/out" 2>/dev/null || true
  tail -1 "$work/t" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }' >>"$into"
}

: >"$work/perflab"
: >"$work/python"
for _ in $(seq 1 "$rounds"); do
  measure "$work/perflab" "$bin" parse "$work/in.log"
  measure "$work/python" python3 benches/parse_alt.py "$work/in.log"
done
# The two found the same pairs: perflab's `raw` entries against the script's.
# (`perflab parse` exits 1 when a block is cut off, as some samples are.)
"$bin" parse "$work/in.log" >"$work/out.json" 2>/dev/null || true
pairs_perflab=$(python3 -c 'import json,sys; print(sum(len(b["raw"]) for b in json.load(open(sys.argv[1]))))' "$work/out.json")
python3 benches/parse_alt.py "$work/in.log" >"$work/alt"
pairs_python=$(python3 -c 'import json,sys; print(sum(len(json.loads(l)["raw"]) for l in open(sys.argv[1])))' "$work/alt")
rm -f "$work/out.json" "$work/alt"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
bytes=$(stat -c %s "$work/in.log")
cpu_p=$(cut -d' ' -f1 "$work/perflab" | median)
cpu_y=$(cut -d' ' -f1 "$work/python" | median)
mem_p=$(cut -d' ' -f2 "$work/perflab" | median)
mem_y=$(cut -d' ' -f2 "$work/python" | median)

python3 benches/parse_input.py "$work/big.log" "$big" 2
rm -f "$work/in.log"
: >"$work/bigp"
measure "$work/bigp" "$bin" parse "$work/big.log"
read -r cpu_big mem_big <"$work/bigp"
big_bytes=$(stat -c %s "$work/big.log")

awk -v b="$bytes" -v cp="$cpu_p" -v cy="$cpu_y" -v mp="$mem_p" -v my="$mem_y" -v n="$rounds" \
  -v pp="$pairs_perflab" -v py="$pairs_python" -v bb="$big_bytes" -v cb="$cpu_big" -v mb="$mem_big" 'BEGIN {
  printf "| %.0f MB log, %d rounds, medians | CPU time | MB/s of CPU | peak memory | label/value pairs |\n", b / 1e6, n
  printf "| --- | --- | --- | --- | --- |\n"
  printf "| `perflab parse` | %.2f s | %.0f | %.1f MB | %d |\n", cp, b / 1e6 / cp, mp / 1024, pp
  printf "| `benches/parse_alt.py` | %.2f s | %.0f | %.1f MB | %d |\n", cy, b / 1e6 / cy, my / 1024, py
  printf "| ratio | %.1f× faster | | | |\n\n", cy / cp
  printf "`perflab parse` on a %.0f MB log: %.2f s of CPU (%.0f MB/s), %.1f MB peak memory\n", bb / 1e6, cb, bb / 1e6 / cb, mb / 1024
}'
