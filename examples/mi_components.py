#!/usr/bin/env python3
"""The diagonal mixture MI kernel when classes span several mediator components, on real data
(issue 24, item 4; the tables are in docs/latent-models.md).

Seeger's MI kernel for a mixture likelihood (NIPS 2001, section 2.2, eq. 6) is
    Q(x1, x2) = sum_{s,t} W_st integral P(x1 | theta_s) P(x2 | theta_t) P_med(theta) dtheta,
with W symmetric, non-negative, positive on the diagonal. `ppk fit mi mixture` makes rows for the
diagonal choice W = diag(E_med[pi_s]), whose kernel is small between points of different
components: good when each class is one component, but a class spread over several components is
split. With independent component parameters under the mediator, the terms s != t factor into the
mediator's marginal likelihoods m_s(x) = integral P(x | theta_s) P_med(theta_s) dtheta_s, so
    Q = sum_s W_ss (<g_s(x1), g_s(x2)> - m_s(x1) m_s(x2)) + m(x1)' W m(x2),
positive semidefinite whenever W is (the first sum is a covariance under the mediator). The
couplings tried here, computed from the saved mediator (numpy, after checking that the diagonal
kernel computed so agrees with `ppk gram` to 1e-6; the
mixtures fitted at K = 8 or 16 have covariances of condition numbers up to 1e7):
    diagonal   W = diag(E[pi_s])                                   (what ppk ships)
    seeger     W = E[pi pi'] under the Dirichlet mediator           (the original MI kernel)
    tied       W = D^1/2 B D^1/2, D = diag(E[pi_s]), B_st the normalised expected-likelihood kernel
               of N(mu_s, c Sigma_s) and N(mu_t, c Sigma_t), c in {1, 4, 16} (components coupled by
               their overlap; c chosen on the holdout)
    grouped    components agglomerated (average linkage on B with c = 4) into as many groups as
               classes; W_st = sqrt(E[pi_s] E[pi_t]) within a group, 0 across
against LIBSVM's RBF kernel on the same vectors.

Data: real data sets shipped by Debian's python3-sklearn (apt-get install python3-sklearn), read
from its CSV files: wine (178 x 13, 3 classes), breast cancer (569 x 30, 2 classes), iris (150 x 4,
3 classes). Features standardised, projected on their first d principal components, scaled so that
the first has unit variance.

Protocol (as examples/semisupervised.py): R runs; in each, a third of the points is the test set
and the rest the pool, whose points without labels are the mediator's unlabeled data. For each
training size m, m/classes labeled points per class are drawn from the pool for training and as
many for a holdout; each kernel's parameters (K fixed per column; lambda in {5, 30, 100}; c for
tied; gamma for RBF) and C in {0.1, 1, 10, 100} are chosen by the holdout error (first of equals),
and the test error of that choice is averaged over the runs. Every kernel sees the same sets.

Usage: examples/mi_components.py --bin BUILD/bin [--runs 10] [--data wine,breast_cancer,iris]
Output: one tab-separated table per data set (mean test error in %).
Needs python3-numpy and python3-libsvm (svmutil, for precomputed kernels).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import svmutil

SKLEARN_DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data"
# name: (CSV file, principal components kept, component counts beyond the number of classes)
DATASETS = {
    "wine": ("wine_data.csv", 4, (8, 16)),
    "breast_cancer": ("breast_cancer.csv", 5, (8, 16)),
    "iris": ("iris.csv", 4, (8,)),
}
LAMBDAS = (5, 30, 100)
WIDENINGS = (1, 4, 16)
GAMMAS = (0.01, 0.03, 0.1, 0.3, 1)
COSTS = (0.1, 1, 10, 100)
SIZES = (6, 12, 24, 48)


def load(path, dims):
    """The CSV's features (standardised, first `dims` principal components) and integer labels."""
    with open(path) as f:
        rows = [[float(v) for v in line.split(",")] for line in f.read().splitlines()[1:]]
    data = np.array(rows)
    x, y = data[:, :-1], data[:, -1].astype(int)
    x = (x - x.mean(0)) / x.std(0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    z = x @ vt[:dims].T
    return z / z[:, 0].std(), y


def write_rows(path, x, labels):
    with open(path, "w") as out:
        for label, row in zip(labels, x):
            out.write("%d %s\n" % (label, " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(row))))


def log_normal(x, mean, cov):
    """log N(x_i | mean, cov) for the rows x_i of x."""
    chol = np.linalg.cholesky(cov)
    z = np.linalg.solve(chol, (x - mean).T)
    return -0.5 * (z * z).sum(0) - np.log(np.diag(chol)).sum() - 0.5 * len(mean) * np.log(2 * np.pi)


class Mediator:
    """The saved mediator's per-component quantities on the points x: the block kernels
    <g_s(x1), g_s(x2)> and the marginal likelihoods m_s(x)."""

    def __init__(self, mediator, x):
        lam, alpha0 = mediator["lambda"], mediator["prior_alpha"]
        components = mediator["components"]
        k, d = len(components), x.shape[1]
        n = sum(c["size"] for c in components)
        self.weights = np.array([(alpha0 + lam * c["size"] / n) / (k * alpha0 + lam) for c in components])
        self.dirichlet = self.weights * (k * alpha0 + lam)  # the mediator's Dirichlet parameters
        self.means = [np.array(c["mean"]) for c in components]
        self.covariances = [np.array(c["covariance"]) for c in components]
        self.blocks, self.marginals = [], np.zeros((len(x), k))
        for s, (mu, sigma, c) in enumerate(zip(self.means, self.covariances, components)):
            v = sigma * n / (lam * c["size"])  # Cov of P_med(mu_s)
            # <g_s(x1), g_s(x2)> = N([x1; x2] | [mu; mu], [[sigma + v, v], [v, sigma + v]])
            joint = np.block([[sigma + v, v], [v, sigma + v]])
            chol = np.linalg.cholesky(joint)
            inverse = np.linalg.solve(chol, np.eye(2 * d))  # L^-1 = [[A, 0], [B, C]], lower triangular
            z = x - mu
            first, cross, second = z @ inverse[:d, :d].T, z @ inverse[d:, :d].T, z @ inverse[d:, d:].T
            # |L^-1 [z_i; z_j]|^2 = |A z_i|^2 + |B z_i + C z_j|^2
            exponent = ((first ** 2).sum(1) + (cross ** 2).sum(1))[:, None] + (second ** 2).sum(1)[None, :] \
                + 2 * cross @ second.T
            log_det = 2 * np.log(np.diag(chol)).sum()
            self.blocks.append(np.exp(-0.5 * exponent - 0.5 * log_det - d * np.log(2 * np.pi)))
            self.marginals[:, s] = np.exp(log_normal(x, mu, sigma + v))

    def kernel(self, w):
        """Seeger's eq. 6 for the coupling W, normalised (eq. 3)."""
        q = self.marginals @ w @ self.marginals.T
        for s, block in enumerate(self.blocks):
            q += w[s, s] * (block - np.outer(self.marginals[:, s], self.marginals[:, s]))
        scale = np.sqrt(np.diag(q))
        return q / np.outer(scale, scale)

    def affinity(self, widening):
        """B_st: the normalised expected-likelihood kernel of N(mu_s, c Sigma_s) and N(mu_t, c Sigma_t)."""
        k = len(self.means)
        b = np.array([[np.exp(log_normal(self.means[s][None, :], self.means[t],
                                         widening * (self.covariances[s] + self.covariances[t]))[0])
                       for t in range(k)] for s in range(k)])
        scale = np.sqrt(np.diag(b))
        return b / np.outer(scale, scale)

    def couplings(self, classes):
        """The W of each coupling tried (name -> list of (parameter, W))."""
        root = np.sqrt(np.outer(self.weights, self.weights))
        total = self.dirichlet.sum()
        seeger = (np.outer(self.dirichlet, self.dirichlet) + np.diag(self.dirichlet)) / (total * (total + 1))
        out = {"diagonal": [(None, np.diag(self.weights))], "seeger": [(None, seeger)],
               "tied": [(c, root * self.affinity(c)) for c in WIDENINGS]}
        if len(self.means) > classes:
            b = self.affinity(4)
            groups = [[s] for s in range(len(self.means))]
            while len(groups) > classes:
                _, i, j = max((np.mean([b[s, t] for s in gi for t in gj]), i, j)
                              for i, gi in enumerate(groups) for j, gj in enumerate(groups) if i < j)
                groups[i] += groups.pop(j)
            same = np.zeros_like(b)
            for group in groups:
                same[np.ix_(group, group)] = 1
            out["grouped"] = [(None, root * same)]
        return out


def fit_mediator(bin_dir, work, x, k, lam, seed):
    """The mediator `ppk fit mi mixture` fits to the points x (labels ignored), as saved."""
    unlabeled, mediator = os.path.join(work, "unlabeled.txt"), os.path.join(work, "mediator.json")
    write_rows(unlabeled, x, [0] * len(x))
    subprocess.run([os.path.join(bin_dir, "ppk"), "fit", "mi", "mixture", "--components", str(k), "--lambda",
                    str(lam), "--seed", str(seed), "--unlabeled", unlabeled, "--save-mediator", mediator, unlabeled,
                    "-o", os.devnull], check=True, capture_output=True)
    with open(mediator) as f:
        return json.load(f)


def shipped_gram(bin_dir, work, x, mediator):
    """`ppk gram -t ppk_norm -g 1` of the rows the saved mediator makes of every point of x."""
    points, rows, saved = (os.path.join(work, f) for f in ("points.txt", "points.ppk", "saved.json"))
    write_rows(points, x, [0] * len(x))
    with open(saved, "w") as f:
        json.dump(mediator, f)
    subprocess.run([os.path.join(bin_dir, "ppk"), "fit", "mi", "mixture", "--mediator-from", saved, points, "-o", rows],
                   check=True, capture_output=True)
    gram = subprocess.run([os.path.join(bin_dir, "ppk"), "gram", "-t", "ppk_norm", "-g", "1", rows], check=True,
                          capture_output=True, text=True).stdout
    return np.array([[float(v) for v in line.split()] for line in gram.splitlines()])


def svm_error(gram, y, train, test, cost):
    def rows(indices):
        return [[i + 1] + list(gram[j, train]) for i, j in enumerate(indices)]
    model = svmutil.svm_train(list(y[train]), rows(train), "-t 4 -q -c %g" % cost)
    _, accuracy, _ = svmutil.svm_predict(list(y[test]), rows(test), model, "-q")
    return 100 - accuracy[0]


def evaluate(bin_dir, work, name, runs):
    path, dims, larger = DATASETS[name]
    x, y = load(os.path.join(SKLEARN_DATA, path), dims)
    features = int(open(os.path.join(SKLEARN_DATA, path)).readline().split(",")[1])
    classes = np.unique(y)
    rng = np.random.default_rng(1)
    errors = {}
    for run in range(runs):
        order = rng.permutation(len(y))
        test, pool = order[: len(y) // 3], order[len(y) // 3:]
        # kernels[method] = list of (parameters, Gram matrix over all points)
        kernels = {"RBF": [(g, np.exp(-g * ((x[:, None, :] - x[None, :, :]) ** 2).sum(2))) for g in GAMMAS]}
        for k in (len(classes),) + larger:
            for lam in LAMBDAS:
                # The mediator sees the pool without labels; every point gets its row.
                mediator = fit_mediator(bin_dir, work, x[pool], k, lam, run + 1)
                shipped = shipped_gram(bin_dir, work, x, mediator)
                terms = Mediator(mediator, x)
                for method, choices in terms.couplings(len(classes)).items():
                    for parameter, w in choices:
                        gram = terms.kernel(w)
                        if method == "diagonal" and not np.allclose(gram, shipped, rtol=1e-6, atol=1e-9):
                            sys.exit("mi_components: the diagonal kernel disagrees with ppk gram by %g" % np.abs(gram - shipped).max())
                        kernels.setdefault("K=%d %s" % (k, method), []).append(((lam, parameter), gram))
        draw = np.random.default_rng(100 + run)
        for size in SIZES:
            train, holdout = [], []
            for c in classes:
                members = draw.permutation(pool[y[pool] == c])
                per_class = size // len(classes)
                train += list(members[:per_class])
                holdout += list(members[per_class:2 * per_class])
            for method, choices in kernels.items():
                best = min(((svm_error(gram, y, train, holdout, cost), i, cost)
                            for i, (_, gram) in enumerate(choices) for cost in COSTS), key=lambda t: t[:2])
                _, i, cost = best
                errors.setdefault((method, size), []).append(svm_error(choices[i][1], y, train, test, cost))
    methods = sorted({method for method, _ in errors}, key=lambda m: (m == "RBF", len(m.split()[0]), m))
    print("%s (%d x %d, %d classes, d = %d): mean test error %% over %d runs" % (name, len(y), features, len(classes),
                                                                             dims, runs))
    print("m\t" + "\t".join(methods))
    for size in SIZES:
        print("%d\t%s" % (size, "\t".join("%.1f" % np.mean(errors[(m, size)]) for m in methods)))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the directory of ppk")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--data", default="wine,breast_cancer,iris", help="among " + ",".join(DATASETS))
    args = parser.parse_args()
    if not os.path.isdir(SKLEARN_DATA):
        sys.exit("mi_components: %s is missing; apt-get install python3-sklearn" % SKLEARN_DATA)
    with tempfile.TemporaryDirectory() as work:
        for name in args.data.split(","):
            evaluate(args.bin, work, name, args.runs)


if __name__ == "__main__":
    main()
