#!/usr/bin/env python3
"""Learning curves on Seeger's two-cluster problem (NIPS 2001, section 3.1): the diagonal mixture
mutual-information kernel learned from unlabeled data against LIBSVM's RBF kernel.

Data: two 2-D Gaussians, one per class, with the same non-spherical covariance (elongated, rotated
by 45 degrees) and means placed so that the Bayes error is 2.64%, as in the paper. A kernel data set
D_u of 500 unlabeled points, a training pool of 100 and a test set of 500 points, mutually exclusive.

For each training-set size m and each of R runs: a training set and a holdout set of m points each
are drawn from the pool (m/2 of each class), the kernel's parameters and C are chosen by the error
on the holdout set (ties: the first in grid order), the SVM is trained on the training set with them
and tested on the test set. Both kernels see the same sets in every run. The MI kernel's mediator
(a two-component Gaussian mixture fitted to D_u by EM, model-trust scaled by lambda) is fitted once
per lambda and saved, then reused for the pool and the test set (ppk fit mi mixture --mediator-from).

Output: a tab-separated table (size, then mean test error and the half-width of its 95% t interval
for each kernel), to standard output or --out. Only the standard library is used.
"""
import argparse
import math
import os
import random
import subprocess
import sys
from statistics import NormalDist, mean, stdev

# Seeger 3.1: Bayes error 2.64% = Phi(-delta/2) for the Mahalanobis distance delta between the means.
BAYES_ERROR = 0.0264
MAJOR_SD, MINOR_SD = 1.5, 0.5          # standard deviations along and across the clusters
ANGLE = math.pi / 4                    # the clusters' long axis, 45 degrees


def cluster_geometry():
    """The shared covariance's Cholesky factor L (Sigma = L L') and the two class means."""
    c, s = math.cos(ANGLE), math.sin(ANGLE)
    major, minor = (c, s), (-s, c)
    delta = -2 * NormalDist().inv_cdf(BAYES_ERROR)
    half = delta * MINOR_SD / 2  # the means differ along the minor axis only
    means = {+1: (half * minor[0], half * minor[1]), -1: (-half * minor[0], -half * minor[1])}
    # Sigma = U diag(major^2, minor^2) U', U = [major minor]; L = U diag(sds) is a square root.
    root = ((major[0] * MAJOR_SD, minor[0] * MINOR_SD), (major[1] * MAJOR_SD, minor[1] * MINOR_SD))
    return root, means


def draw(rng, n, labels):
    root, means = cluster_geometry()
    points = []
    for _ in range(n):
        y = rng.choice(labels)
        z0, z1 = rng.gauss(0, 1), rng.gauss(0, 1)
        m = means[y]
        points.append((y, m[0] + root[0][0] * z0 + root[0][1] * z1, m[1] + root[1][0] * z0 + root[1][1] * z1))
    return points


def write_points(path, points, label=None):
    with open(path, "w") as out:
        for y, a, b in points:
            out.write("%+d 1:%.17g 2:%.17g\n" % (y if label is None else label, a, b))


def run(args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


class Kernel:
    """One kernel of the comparison: its row files (pool and test, one per parameter value) and
    the svm-train options for each parameter value."""

    def __init__(self, name, configurations):
        self.name = name
        self.configurations = configurations  # list of (pool rows, test rows, svm-train options)


def test_errors(bin_dir, work, lines, options, c, train_idx, eval_rows):
    """Trains on the pool rows train_idx and returns the error rate on eval_rows."""
    train = os.path.join(work, "train.txt")
    evaluation = os.path.join(work, "eval.txt")
    model = os.path.join(work, "model")
    with open(train, "w") as f:
        f.write("\n".join(lines[i] for i in train_idx) + "\n")
    with open(evaluation, "w") as f:
        f.write("\n".join(eval_rows) + "\n")
    run([os.path.join(bin_dir, "svm-train"), "-q", *options, "-c", str(c), train, model])
    output = run([os.path.join(bin_dir, "svm-predict"), evaluation, model, os.path.join(work, "predictions")])
    accuracy = float(output.split("Accuracy = ")[1].split("%")[0])
    return 1 - accuracy / 100


def t_half_width(values):
    """The half-width of the 95% t confidence interval of the mean (normal quantile for n > 30)."""
    n = len(values)
    if n < 2:
        return 0.0
    quantiles = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 8: 2.365, 10: 2.262, 15: 2.145,
                 20: 2.093, 25: 2.064, 30: 2.045}
    q = quantiles.get(n, NormalDist().inv_cdf(0.975) if n > 30 else 2.1)
    return q * stdev(values) / math.sqrt(n)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the directory of ppk, svm-train and svm-predict")
    parser.add_argument("--work", default=".", help="where the data and row files go")
    parser.add_argument("--sizes", default="4,8,12,16,24,32,40", help="training-set sizes (even)")
    parser.add_argument("--runs", type=int, default=20, help="runs per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lambdas", default="5,30,100", help="the MI kernel's model-trust scalings")
    parser.add_argument("--gammas", default="0.03,0.1,0.3,1,3,10", help="the RBF kernel's gammas")
    parser.add_argument("--costs", default="0.1,1,10,100", help="the values of C")
    parser.add_argument("--out", default="-", help="the table ('-' = standard output)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    costs = args.costs.split(",")
    if any(m < 2 or m % 2 for m in sizes) or 2 * max(sizes) > 100:
        sys.exit("semisupervised.py: --sizes must be even numbers from 2 to 50 (training + holdout <= the pool of 100)")

    rng = random.Random(args.seed)
    work = args.work
    unlabeled = draw(rng, 500, (+1, -1))
    pool = [p for y in (+1, -1) for p in draw(rng, 50, (y,))]
    test = draw(rng, 500, (+1, -1))
    files = {name: os.path.join(work, name + ".txt") for name in ("unlabeled", "pool", "test")}
    write_points(files["unlabeled"], unlabeled, label=0)
    write_points(files["pool"], pool)
    write_points(files["test"], test)

    ppk = os.path.join(args.bin, "ppk")
    rbf = Kernel("LIBSVM RBF (-t 2)", [
        (read_lines(files["pool"]), read_lines(files["test"]), ["-t", "2", "-g", g]) for g in args.gammas.split(",")])
    mi_configurations = []
    for lam in args.lambdas.split(","):
        mediator = os.path.join(work, "mediator-%s.json" % lam)
        rows = {}
        for name in ("pool", "test"):
            rows[name] = os.path.join(work, "%s-mi-%s.ppk" % (name, lam))
        run([ppk, "fit", "mi", "mixture", "--components", "2", "--lambda", lam, "--unlabeled", files["unlabeled"],
             "--save-mediator", mediator, files["pool"], "-o", rows["pool"]])
        run([ppk, "fit", "mi", "mixture", "--mediator-from", mediator, files["test"], "-o", rows["test"]])
        mi_configurations.append((read_lines(rows["pool"]), read_lines(rows["test"]), ["-t", "ppk_norm", "-g", "1"]))
    mi = Kernel("MI kernel (diagonal mixture, ppk_norm)", mi_configurations)
    kernels = [mi, rbf]

    positives = [i for i, p in enumerate(pool) if p[0] > 0]
    negatives = [i for i, p in enumerate(pool) if p[0] < 0]
    table = ["size\t" + "\t".join("%s error\t%s 95%% half-width" % (k.name, k.name) for k in kernels)]
    for m in sizes:
        errors = {k.name: [] for k in kernels}
        for _ in range(args.runs):
            pos = rng.sample(positives, m)
            neg = rng.sample(negatives, m)
            train_idx = pos[: m // 2] + neg[: m // 2]
            holdout_idx = pos[m // 2:] + neg[m // 2:]
            for kernel in kernels:
                best = None
                for pool_rows, test_rows, options in kernel.configurations:
                    holdout_rows = [pool_rows[i] for i in holdout_idx]
                    for c in costs:
                        error = test_errors(args.bin, work, pool_rows, options, c, train_idx, holdout_rows)
                        if best is None or error < best[0]:
                            best = (error, pool_rows, test_rows, options, c)
                _, pool_rows, test_rows, options, c = best
                errors[kernel.name].append(test_errors(args.bin, work, pool_rows, options, c, train_idx, test_rows))
        table.append("%d\t" % m + "\t".join("%.4f\t%.4f" % (mean(errors[k.name]), t_half_width(errors[k.name]))
                                           for k in kernels))
    text = "\n".join(table) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
