#!/usr/bin/env python3
"""PPKSVCCV against GridSearchCV(PPKSVC) in one run (docs/choosing-the-kernel.md, "What it costs").

On the documents demo's training set (examples/make_documents.py, seed 1, 400 documents over 3,000
words, counts as scipy.sparse), the grid rho in {0.25, 0.5, 1} x C in {0.1, 1, 10, 100} of the kernel
ppk, 5-fold (StratifiedKFold, shuffled, seed 0), each route timed on its own (wall seconds, median
of --repeat runs):

  GridSearchCV   GridSearchCV(PPKSVC(family="multinomial"), {"rho": ..., "C": ...}, cv=folds): every
                 cell and fold fits the models and computes every kernel value again
  PPKSVCCV       PPKSVCCV(family="multinomial", kernels=["ppk"], rhos=..., Cs=..., cv=folds): one kernel
                 matrix per rho (the fit depends on no other document), every C and fold on it

and whether the two give the same best parameters and the same cv_results_ scores.
Usage: PYTHONPATH=BUILD_DIR/python /usr/bin/python3 bench/python_svccv.py [--repeat R] [--n N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from ppk.sklearn import PPKSVC, PPKSVCCV

HERE = os.path.dirname(os.path.abspath(__file__))
RHOS = [0.25, 0.5, 1.0]
COSTS = [0.1, 1.0, 10.0, 100.0]


def documents(n):
    with tempfile.TemporaryDirectory() as directory:
        train = os.path.join(directory, "train.txt")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", "make_documents.py"), "--seed", "1",
                        "--vocabulary", "3000", "--n-train", str(n), "--n-test", "0", "--train", train,
                        "--test", os.devnull], check=True)
        return load_svmlight_file(train, n_features=3000)


def timed(make, X, y, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = make().fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n", type=int, default=400)
    args = parser.parse_args()
    X, y = documents(args.n)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    grid_time, grid = timed(lambda: GridSearchCV(PPKSVC(family="multinomial", random_state=0),
                                                 {"kernel": ["ppk"], "rho": RHOS, "T": [0], "C": COSTS}, cv=folds),
                            X, y, args.repeat)
    cv_time, cv = timed(lambda: PPKSVCCV(family="multinomial", kernels=["ppk"], rhos=RHOS, Cs=COSTS, cv=folds,
                                         random_state=0), X, y, args.repeat)
    same_scores = np.allclose(grid.cv_results_["mean_test_score"], cv.cv_results_["mean_test_score"], rtol=1e-12)
    print(f"{X.shape[0]} documents, rho {RHOS} x C {COSTS}, 5-fold, median of {args.repeat} runs")
    print(f"  GridSearchCV(PPKSVC)  {grid_time:8.2f} s   best {grid.best_params_}  {grid.best_score_:.4f}")
    print(f"  PPKSVCCV              {cv_time:8.2f} s   best {cv.best_params_}  {cv.best_score_:.4f}")
    print(f"  ratio {grid_time / cv_time:.1f}x; the same best parameters: {grid.best_params_ == cv.best_params_}; "
          f"the same mean scores: {same_scores}")


if __name__ == "__main__":
    main()
