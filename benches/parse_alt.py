#!/usr/bin/env python3
"""The alternative `benches/parse.sh` measures `perflab parse` against: what a user would write
with five regular expressions to pull every label and value out of the `Serving Benchmark
Result` blocks of a log (and vLLM's 2023 summary lines), one JSON line a block. It reads the log
as a stream and finds the same label/value pairs as perflab's `raw`, but no metric names, units,
dialects or errors.

    python3 benches/parse_alt.py LOG > OUT
"""
import json
import re
import sys

HEADER = re.compile(r"^=+.*Serving Benchmark Result.*=+$")
RULE = re.compile(r"^={10,}$")
MARKER = re.compile(r"^={3,}[\s!]*(.*?)[\s!]*={3,}$")
SECTION = re.compile(r"^-{3,}\s*(.*?)\s*-{3,}$")
FIELD = re.compile(r"^([A-Za-z][^:]*):(.*)$")
CONTEXT = ("Traffic request rate", "Burstiness factor", "Maximum request concurrency")
LEGACY = ("Throughput", "Average latency", "Average latency per token", "Average latency per output token")


def field(line):
    m = FIELD.match(line.strip())
    return (m.group(1).strip(), m.group(2).strip()) if m else None


def main():
    out = sys.stdout
    emit = lambda n, pairs: out.write(json.dumps({"line": n, "raw": pairs}) + "\n")
    block = legacy = None
    context = {}
    with open(sys.argv[1], encoding="utf-8", errors="replace", newline="\n") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            t = line.strip()
            if block is not None:
                start, pairs, parent = block
                if not t:
                    continue
                if RULE.match(t):
                    emit(start, pairs)
                    block = None
                    continue
                if not HEADER.match(t):
                    m = MARKER.match(t) if len(t) > 6 else None
                    if m and m.group(1):
                        pairs.append([m.group(1), ""])
                        continue
                    s = SECTION.match(t)
                    if s and s.group(1):
                        block[2] = None
                        continue
                    kv = field(line)
                    if kv:
                        if parent and line[:1].isspace():
                            pairs.append([f"{parent} / {kv[0]}", kv[1]])
                        else:
                            pairs.append(list(kv))
                            block[2] = kv[0] if not kv[1] else None
                        continue
                emit(start, pairs)
                block = None
            kv = field(t)
            if legacy is not None:
                if kv and kv[0] in LEGACY:
                    legacy[1].append(list(kv))
                    continue
                emit(*legacy)
                legacy = None
            if HEADER.match(t):
                block = [n, [list(c) for c in context.values()], None]
                context = {}
            elif kv and kv[0] == "Successful requests":
                block = [n, [list(c) for c in context.values()] + [list(kv)], None]
                context = {}
            elif kv and kv[0] in CONTEXT:
                context.pop(kv[0], None)
                context[kv[0]] = kv
            elif kv and kv[0] == "Total time" and kv[1].endswith(" s"):
                legacy = (n, [list(kv)])
    for left in (block, legacy):
        if left is not None:
            emit(left[0], left[1])


if __name__ == "__main__":
    main()
