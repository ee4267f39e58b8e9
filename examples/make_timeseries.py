#!/usr/bin/env python3
"""The time-series experiment of JMLR 2004 section 8.3, regenerated: 20 random switching linear
dynamical systems (SLDS) with 5 regimes, a 2-D state and 2-D observations (the "exemplars"), 10
per class; each exemplar sampled 5 times for 25 steps: 100 sequences, 50 per class. Output: LIBSVM
rows 'LABEL qid:Q 1:x1 2:x2', one per step, one qid per sequence (the grouping `ppk fit lds` and
`ppk fit slds` read), or with --flat one row per sequence of its 50 values (LIBSVM's RBF kernel).

The paper gives only the sizes above. What this generator chooses, per exemplar:
  regime k = 1..5: A_k = a_k R(theta_k), a rotation by theta_k ~ U(0, pi) scaled by a_k ~ U(0.7, 0.99);
                   Q_k = 0.05 I + W_k W_k', W_k 2 x 2 with N(0, 0.3^2) entries;
  switching:       start uniform; each row of the transition matrix is 0.8 on the diagonal (stay)
                   plus 0.2 times a Dirichlet(1, .., 1) draw over the 5 regimes;
  s_0 ~ N(0, I)    (the same initial law for every exemplar: the class is in the dynamics);
  x_t = C s_t + N(0, 0.1 I), C 2 x 2 with N(0, 1) entries.
A sequence: r_0 from the start, s_0, x_0; then r_t from the chain, s_t = A_{r_t} s_{t-1} + N(0, Q_{r_t}).
The classes share no structure: a classifier must recognise each sequence's exemplar from its four
siblings (leave-one-out), which is what makes the problem hard."""
import argparse
import math
import random

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--exemplars", type=int, default=20, help="random SLDSs, half per class")
ap.add_argument("--samples", type=int, default=5, help="sequences per exemplar")
ap.add_argument("--length", type=int, default=25, help="steps per sequence")
ap.add_argument("--flat", action="store_true", help="one row per sequence: x_0..x_{T} concatenated")
args = ap.parse_args()
rng = random.Random(args.seed)
REGIMES, NOISE = 5, 0.1


def matmul(m, v):
    return [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]]


def cholesky(s):  # 2 x 2, positive definite
    l00 = math.sqrt(s[0][0])
    l10 = s[1][0] / l00
    return [[l00, 0.0], [l10, math.sqrt(s[1][1] - l10 * l10)]]


def correlated(factor):
    return matmul(factor, [rng.gauss(0, 1), rng.gauss(0, 1)])


def draw(weights):
    u, total = rng.random(), 0.0
    for k, w in enumerate(weights):
        total += w
        if u < total:
            return k
    return len(weights) - 1


def exemplar():
    regimes = []
    for _ in range(REGIMES):
        a, theta = rng.uniform(0.7, 0.99), rng.uniform(0, math.pi)
        transition = [[a * math.cos(theta), -a * math.sin(theta)], [a * math.sin(theta), a * math.cos(theta)]]
        w = [[rng.gauss(0, 0.3) for _ in range(2)] for _ in range(2)]
        q = [[0.05 * (i == j) + sum(w[i][k] * w[j][k] for k in range(2)) for j in range(2)] for i in range(2)]
        regimes.append((transition, cholesky(q)))
    chain = []
    for k in range(REGIMES):
        g = [rng.gammavariate(1, 1) for _ in range(REGIMES)]
        chain.append([0.8 * (j == k) + 0.2 * g[j] / sum(g) for j in range(REGIMES)])
    c = [[rng.gauss(0, 1) for _ in range(2)] for _ in range(2)]
    return regimes, chain, c


def sample(model):
    regimes, chain, c = model
    r = rng.randrange(REGIMES)
    s = [rng.gauss(0, 1), rng.gauss(0, 1)]
    out = []
    for t in range(args.length):
        if t:
            r = draw(chain[r])
            transition, factor = regimes[r]
            noise = correlated(factor)
            s = [v + e for v, e in zip(matmul(transition, s), noise)]
        x = matmul(c, s)
        out.append([v + rng.gauss(0, math.sqrt(NOISE)) for v in x])
    return out


qid = 0
for e in range(args.exemplars):
    label = 1 if e < args.exemplars // 2 else -1
    model = exemplar()
    for _ in range(args.samples):
        qid += 1
        series = sample(model)
        if args.flat:
            values = [v for x in series for v in x]
            print("%d %s" % (label, " ".join("%d:%.6f" % (i + 1, v) for i, v in enumerate(values))))
        else:
            for x in series:
                print("%d qid:%d 1:%.6f 2:%.6f" % (label, qid, x[0], x[1]))
