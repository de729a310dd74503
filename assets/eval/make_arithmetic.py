#!/usr/bin/env python3
"""Writes arithmetic.jsonl: perflab's bundled evaluation set, 1000 questions of integer arithmetic.

The set is generated, not collected: every question is made here from a fixed seed, so the file
is the same wherever this runs (`python3 make_arithmetic.py > arithmetic.jsonl`). It is part of
perflab and under perflab's licence (MIT OR Apache-2.0).

Each line: {"id": "a0001", "question": "What is 37 + 48?", "answer": "85"}.
"""
import json
import random

QUESTIONS = 1000
SEED = 20261206


def question(rng):
    kind = rng.choice(["+", "-", "*", "+-"])
    if kind == "+":
        a, b = rng.randint(10, 999), rng.randint(10, 999)
        return f"What is {a} + {b}?", a + b
    if kind == "-":
        a, b = rng.randint(10, 999), rng.randint(10, 999)
        return f"What is {a} - {b}?", a - b
    if kind == "*":
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        return f"What is {a} * {b}?", a * b
    a, b, c = rng.randint(10, 99), rng.randint(10, 99), rng.randint(10, 99)
    return f"What is {a} + {b} - {c}?", a + b - c


def main():
    rng = random.Random(SEED)
    for i in range(1, QUESTIONS + 1):
        text, answer = question(rng)
        print(json.dumps({"id": f"a{i:04d}", "question": text, "answer": str(answer)}))


if __name__ == "__main__":
    main()
