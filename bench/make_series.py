#!/usr/bin/env python3
"""Labelled time series in LIBSVM format for the benchmarks: each sequence is consecutive rows
'label qid:N 1:x_1 ... D:x_D' (the grouping `ppk fit lds` reads), simulated from
    s_t = a s_{t-1} + N(0, 0.6^2),   x_t = s_t c + N(0, 0.3^2 I)
with a scalar state, a = 0.8 for label 1 and a = -0.7 for label -1, and one c of unit length for
all sequences."""
import argparse
import math
import random

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--n", type=int, required=True, help="number of sequences")
ap.add_argument("--length", type=int, required=True, help="vectors per sequence")
ap.add_argument("--dim", type=int, required=True, help="dimension D of each vector")
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()
rng = random.Random(args.seed)
c = [rng.gauss(0, 1) for _ in range(args.dim)]
norm = math.sqrt(sum(v * v for v in c))
c = [v / norm for v in c]
for qid in range(1, args.n + 1):
    label, a = (1, 0.8) if qid % 2 else (-1, -0.7)
    s = rng.gauss(0, 1)
    for t in range(args.length):
        if t:
            s = a * s + rng.gauss(0, 0.6)
        x = " ".join("%d:%.6f" % (d + 1, s * c[d] + rng.gauss(0, 0.3)) for d in range(args.dim))
        print("%d qid:%d %s" % (label, qid, x))
