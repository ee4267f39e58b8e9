#!/usr/bin/env python3
"""The documents demo (examples/documents-demo.sh) in Python, with scikit-learn estimators.

  1. synthetic bag-of-words documents (examples/make_documents.py), read as a scipy.sparse matrix;
  2. PPKSVCCV: one smoothed multinomial per document (ppk.fit) and LIBSVM with the kernel ppk in
     process, C (and in its last row the kernel and rho) chosen by cross-validation on one kernel
     matrix per kernel, rho and fold (the pattern of LogisticRegressionCV);
  3. the same documents with scikit-learn's SVC (LIBSVM too): linear and RBF on the counts, and RBF
     after MinMaxScaler (svm-scale -l 0's scaling, LIBSVM's recommended procedure).
For every estimator, C is chosen by 5-fold cross-validation on the training set (PPKSVCCV,
GridSearchCV for scikit-learn's SVC: both with scikit-learn's stratified folds) from the shell
demo's grid, then the test accuracy is reported.

Usage (after bash scripts/demo.sh, from the repository's top directory):
  PYTHONPATH=build/python /usr/bin/python3 examples/documents_demo.py
"""

import argparse
import os
import subprocess
import sys
import tempfile

from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from ppk.sklearn import PPKSVCCV

GRID = [0.1, 1, 10, 100, 1000]  # the shell demo's C values (examples/lib.bash)


def documents(vocabulary, n_train, n_test):
    """make_documents.py's corpus (seed 1) as (X, y, X_test, y_test), counts in scipy.sparse CSR."""
    with tempfile.TemporaryDirectory() as directory:
        train, test = os.path.join(directory, "train.txt"), os.path.join(directory, "test.txt")
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_documents.py"), "--seed", "1",
                        "--vocabulary", str(vocabulary), "--n-train", str(n_train), "--n-test", str(n_test),
                        "--train", train, "--test", test], check=True)
        X, y = load_svmlight_file(train, n_features=vocabulary)
        X_test, y_test = load_svmlight_file(test, n_features=vocabulary)
    return X, y, X_test, y_test


def report(name, search, C, X_test, y_test):
    print(f"{name:<44} {C:>8g} {100 * search.best_score_:>9.2f}% {100 * search.score(X_test, y_test):>13.2f}%",
          flush=True)


def evaluate(name, estimator, parameter, X, y, X_test, y_test):
    """C (parameter) by 5-fold cross-validated accuracy on the training set, then the test accuracy."""
    search = GridSearchCV(estimator, {parameter: GRID}, cv=5).fit(X, y)
    report(name, search, search.best_params_[parameter], X_test, y_test)


def evaluate_ppk(name, X, y, X_test, y_test, **grid):
    """PPKSVCCV over `grid` and the C values, 5-fold; the chosen kernel and rho follow the name when
    the grid lists several."""
    search = PPKSVCCV(family="multinomial", Cs=GRID, cv=5, **grid).fit(X, y)
    best = search.best_params_
    if len(grid["kernels"]) * len(grid["rhos"]) > 1:
        name = f"{name}: {best['kernel']}, rho={best['rho']:g}"
    report(name, search, best["C"], X_test, y_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vocabulary", type=int, default=3000)
    parser.add_argument("--n-train", type=int, default=400)
    parser.add_argument("--n-test", type=int, default=600)
    args = parser.parse_args()
    X, y, X_test, y_test = documents(args.vocabulary, args.n_train, args.n_test)

    print(f"\nDocuments: {X.shape[0]} training, {X_test.shape[0]} test, vocabulary {args.vocabulary}; "
          "C by 5-fold CV (Python)")
    print(f"{'estimator':<44} {'C':>8} {'CV acc':>10} {'test accuracy':>14}")
    evaluate_ppk("PPKSVCCV multinomial, ppk, rho=0.5", X, y, X_test, y_test, kernels=["ppk"], rhos=[0.5])
    evaluate_ppk("PPKSVCCV multinomial, ppk_norm, rho=1", X, y, X_test, y_test, kernels=["ppk_norm"], rhos=[1.0])
    evaluate_ppk("PPKSVCCV's choice", X, y, X_test, y_test, kernels=["ppk", "ppk_norm"],
                 rhos=[0.1, 0.25, 0.5, 0.75, 1.0])
    evaluate("SVC linear on counts", SVC(kernel="linear"), "C", X, y, X_test, y_test)
    evaluate("SVC RBF on counts (gamma='scale')", SVC(kernel="rbf"), "C", X, y, X_test, y_test)
    evaluate("SVC RBF after MinMaxScaler", make_pipeline(MinMaxScaler(), SVC(kernel="rbf")), "svc__C",
             X.toarray(), y, X_test.toarray(), y_test)


if __name__ == "__main__":
    main()
