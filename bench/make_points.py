#!/usr/bin/env python3
"""Random labelled vectors in LIBSVM format for the benchmarks.

--group G writes each example as G consecutive rows sharing `label qid:N`
(a set of vectors per example, the SVMlight convention)."""
import argparse
import random

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--n", type=int, required=True, help="number of examples")
ap.add_argument("--dim", type=int, required=True)
ap.add_argument("--group", type=int, default=0, help="vectors per example (qid groups)")
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()
rng = random.Random(args.seed)
for i in range(args.n):
    label = 1 if i % 2 == 0 else -1
    centre = [rng.gauss(0.3 * label, 1.0) for _ in range(args.dim)]
    spread = 1.0 + 0.5 * label
    for _ in range(max(args.group, 1)):
        x = [c + rng.gauss(0.0, spread) for c in centre] if args.group else centre
        qid = " qid:%d" % (i + 1) if args.group else ""
        print("%d%s %s" % (label, qid, " ".join("%d:%.6f" % (d + 1, v) for d, v in enumerate(x))))
