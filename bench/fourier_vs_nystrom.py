"""Random Fourier features against ppk map's Nystrom map, at equal dimension, on Gaussian rows whose
kernel is an RBF in their means.

Real data: scikit-learn's copy of the UCI handwritten digits (1,797 images of 8 x 8 pixels, 10
classes; Debian's python3-sklearn), pixels scaled to [0, 1], split into 1,197 training and 600 test
images (seeded). Each image x becomes the row N(x, V I) (`ppk fit gaussian --var V`); between two such
rows the normalised kernel at rho is exactly exp(-gamma |x - x'|^2) with gamma = rho / (4 V)
(docs/feature-maps.md), so random Fourier features (Rahimi and Recht, NIPS 2007),
z(x) = sqrt(2 / m) cos(W' x + b), W ~ N(0, 2 gamma I), b ~ U[0, 2 pi), approximate the same kernel as
`ppk map -t ppk_norm --map nystrom --landmarks m`. For m in M_VALUES, over 5 seeds each: the relative
Frobenius error of the test rows' Gram matrix and the test accuracy of liblinear-train -s 3 -B 1, C
chosen by 5-fold cross-validation on the training features (liblinear-train -v 5) from {1, 10, 100}.

Usage: /usr/bin/python3 bench/fourier_vs_nystrom.py BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.datasets import load_digits

VARIANCE = 2.0
RHO = 1.0
GAMMA = RHO / (4 * VARIANCE)
M_VALUES = (25, 50, 100, 200, 400)
SEEDS = range(1, 6)


def write_rows(path, x, y):
    with open(path, "w") as f:
        for row, label in zip(x, y):
            f.write("%d %s\n" % (label, " ".join("%d:%.17g" % (d + 1, v) for d, v in enumerate(row) if v != 0)))


def read_features(path, width):
    labels, rows = [], []
    for line in open(path):
        tokens = line.split()
        labels.append(float(tokens[0]))
        row = np.zeros(width)
        for token in tokens[1:]:
            index, value = token.split(":")
            row[int(index) - 1] = float(value)
        rows.append(row)
    return np.array(rows)


def accuracy(train_path, test_path):
    """liblinear at the C of the best 5-fold CV accuracy on the training features; the test accuracy."""
    best = None
    for c in ("1", "10", "100"):
        out = subprocess.run(["liblinear-train", "-s", "3", "-B", "1", "-c", c, "-v", "5", train_path],
                             capture_output=True, text=True, check=True).stdout
        cv = float(re.search(r"Cross Validation Accuracy = ([0-9.]+)%", out).group(1))
        if best is None or cv > best[0]:
            best = (cv, c)
    subprocess.run(["liblinear-train", "-q", "-s", "3", "-B", "1", "-c", best[1], train_path, "model"], check=True,
                   capture_output=True)
    out = subprocess.run(["liblinear-predict", test_path, "model", "predictions"], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"Accuracy = ([0-9.]+)%", out).group(1))


def main():
    ppk = os.path.join(os.path.abspath(sys.argv[1]), "bin", "ppk")
    digits = load_digits()
    x, y = digits.data / 16.0, digits.target
    order = np.random.RandomState(0).permutation(len(y))
    train, test = order[:1197], order[1197:]
    os.chdir(tempfile.mkdtemp())
    write_rows("train.txt", x[train], y[train])
    write_rows("test.txt", x[test], y[test])
    for name in ("train", "test"):
        subprocess.run([ppk, "fit", "gaussian", "--var", str(VARIANCE), name + ".txt", "-o", name + ".ppk"], check=True)
    squared = ((x[test][:, None, :] - x[test][None, :, :]) ** 2).sum(axis=2)
    exact = np.exp(-GAMMA * squared)

    print("Digits (1,197 training, 600 test images), N(x, %g I) rows, ppk_norm rho = %g: exp(-%g |x - x'|^2)"
          % (VARIANCE, RHO, GAMMA))
    print("%5s | %26s | %26s" % ("m", "Nystrom: Gram error, accuracy", "Fourier: Gram error, accuracy"))
    for m in M_VALUES:
        results = {"nystrom": [], "fourier": []}
        for seed in SEEDS:
            subprocess.run([ppk, "map", "-t", "ppk_norm", "-g", str(RHO), "--map", "nystrom", "--landmarks", str(m),
                            "--seed", str(seed), "train.ppk", "--save-map", "n.map", "-o", "train.nystrom"],
                           check=True, capture_output=True)
            subprocess.run([ppk, "map", "--map-from", "n.map", "test.ppk", "-o", "test.nystrom"], check=True)
            z = read_features("test.nystrom", m)
            results["nystrom"].append((np.linalg.norm(exact - z @ z.T) / np.linalg.norm(exact),
                                       accuracy("train.nystrom", "test.nystrom")))
            random = np.random.RandomState(seed)
            w = random.normal(0.0, np.sqrt(2 * GAMMA), size=(x.shape[1], m))
            b = random.uniform(0, 2 * np.pi, size=m)
            features = {name: np.sqrt(2.0 / m) * np.cos(x[rows] @ w + b) for name, rows in (("train", train),
                                                                                             ("test", test))}
            write_rows("train.fourier", features["train"], y[train])
            write_rows("test.fourier", features["test"], y[test])
            z = features["test"]
            results["fourier"].append((np.linalg.norm(exact - z @ z.T) / np.linalg.norm(exact),
                                       accuracy("train.fourier", "test.fourier")))
        cells = []
        for name in ("nystrom", "fourier"):
            errors, accuracies = np.array(results[name]).T
            cells.append("%.4f +- %.4f, %5.2f%%" % (errors.mean(), errors.std(), accuracies.mean()))
        print("%5d | %26s | %26s" % (m, cells[0], cells[1]), flush=True)


if __name__ == "__main__":
    main()
