#!/usr/bin/env python3
"""Remez fits of the two polynomials of fxc's single-precision `pow`
(Sources/FXIR/Transcendentals.swift): log2(1 + f)/f on [sqrt(1/2) - 1, sqrt(2) - 1]
and 2^r on [-1/2, 1/2], minimising the relative error. Prints each
polynomial's coefficients, highest power first, rounded to float (the values
in Transcendentals.log2Series and exp2Series), and its relative error.

Needs numpy (Benchmarks/.venv has it): Benchmarks/.venv/bin/python scripts/fit-pow.py
"""
import numpy as np


def remez(fn, a, b, degree, rounds=30):
    """The minimax relative-error polynomial of `degree` for fn on [a, b] (Remez exchange on a dense grid)."""
    xs = np.linspace(a, b, 200_001)
    fx = fn(xs)
    n = degree + 2
    k = np.arange(n)
    ref = (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * k[::-1] / (n - 1))
    for _ in range(rounds):
        fr = fn(ref)
        system = np.column_stack([ref**j for j in range(degree + 1)] + [(-1.0) ** k * fr])
        coefficients = np.linalg.solve(system, fr)[:-1]
        err = (np.polyval(coefficients[::-1], xs) - fx) / fx
        edges = np.concatenate(([0], np.where(np.diff(np.sign(err)) != 0)[0] + 1, [len(xs)]))
        extrema = np.array([s + np.argmax(np.abs(err[s:e])) for s, e in zip(edges[:-1], edges[1:])])
        if len(extrema) < n:
            break
        while len(extrema) > n:  # keep n alternating extrema, dropping the smaller end
            extrema = extrema[1:] if abs(err[extrema[0]]) < abs(err[extrema[-1]]) else extrema[:-1]
        ref = xs[extrema]
    return coefficients, np.max(np.abs(err))


def log2_over_f(f):
    safe = np.where(f == 0, 1, f)
    return np.where(f == 0, 1 / np.log(2), np.log1p(f) / safe / np.log(2))


for name, fn, interval, degree in [
    ("log2Series", log2_over_f, (np.sqrt(0.5) - 1, np.sqrt(2) - 1), 9),
    ("exp2Series", np.exp2, (-0.5, 0.5), 6),
]:
    c, err = remez(fn, *interval, degree)
    print(f"{name} (degree {degree}, relative error {err:.2g}):")
    print("  " + ", ".join(repr(np.float32(v)).removeprefix("np.float32(").removesuffix(")") for v in c[::-1]))
