#!/usr/bin/env python3
"""Writes a long benchmark log for `benches/parse.sh`: the text result files of the bundled
studies (results/*/runs) and the text samples of tests/fixtures, drawn at random (seeded) and
separated by a few lines of server and progress-bar noise, until the log reaches SIZE megabytes.
The same seed and size give the same bytes.

    python3 benches/parse_input.py OUT SIZE_MB [SEED]
"""
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOISE = [
    "INFO {d} [metrics.py:{n}] Avg prompt throughput: {f} tokens/s, Running: {n} reqs, Waiting: 0 reqs",
    "INFO:     127.0.0.1:{n} - \"POST /v1/completions HTTP/1.1\" 200 OK",
    "{p}%|{bar}| {n}/1000 [00:{s:02d}<00:{s:02d}, {f}it/s]",
    "WARNING {d} [scheduler.py:{n}] Sequence group {n} is preempted by PreemptionMode.RECOMPUTE",
    "Namespace(backend='vllm', seed={n}, num_prompts=1000, request_rate=inf, burstiness=1.0)",
    "",
]


def pieces():
    found = sorted((ROOT / "results").glob("*/runs/**/*.txt"))
    for folder in ("parse", "samples"):
        found += sorted(p for p in (ROOT / "tests/fixtures" / folder).iterdir() if p.suffix in (".txt", ".log"))
    return [p.read_bytes().rstrip(b"\n") + b"\n" for p in found]


def noise(rng):
    line = rng.choice(NOISE).format(
        d=f"12-0{rng.randint(1, 9)} 1{rng.randint(0, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}",
        n=rng.randint(1, 99999),
        f=f"{rng.uniform(0, 5000):.1f}",
        p=rng.randint(0, 100),
        bar="█" * rng.randint(0, 10),
        s=rng.randint(0, 59),
    )
    return (line + "\n").encode()


def main():
    out, size = sys.argv[1], int(float(sys.argv[2]) * 1e6)
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    blocks = pieces()
    written = 0
    with open(out, "wb", buffering=1 << 20) as f:
        while written < size:
            chunk = b"".join(noise(rng) for _ in range(rng.randint(0, 6))) + rng.choice(blocks)
            f.write(chunk)
            written += len(chunk)


if __name__ == "__main__":
    main()
