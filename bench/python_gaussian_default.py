#!/usr/bin/env python3
"""PPKSVC(family="gaussian")'s default on plain vectors against scikit-learn's SVC(kernel="rbf"), on
scikit-learn's own real data sets (docs/python.md, "Vectors: the fixed-variance Gaussian").

For breast cancer (569 x 30), wine (178 x 13) and digits (1797 x 64), as they come (raw) and
standardised (StandardScaler in the pipeline), stratified 5-fold cross-validated accuracy (one
splitter, seed 0, for every row) of

  default  PPKSVC(family="gaussian") (each vector x as N(x, V I), V = D Var(X) / 4, kernel ppk_norm,
           rho = 1, C = 1) against SVC() (gamma="scale", C = 1)
  grid     the same budget for both, 5 x 5 cells: PPKSVCCV(rhos=R, Cs=C) against
           GridSearchCV(SVC(), {"gamma": R / (D Var(X)), "C": C}) (gamma = rho / (D Var(X)) is the
           same kernel), R = 0.25 ... 4, C = 0.1 ... 1000; the best cell's mean accuracy (the
           inner score, not a nested estimate), both searched on the same folds.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_gaussian_default.py
"""

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ppk.sklearn import PPKSVC, PPKSVCCV

RHOS = [0.25, 0.5, 1.0, 2.0, 4.0]
COSTS = [0.1, 1.0, 10.0, 100.0, 1000.0]


def main():
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    print("| data | X | PPKSVC(family=\"gaussian\") | SVC() | PPKSVCCV, 25 cells | GridSearchCV(SVC), 25 cells |")
    print("|---|---|---|---|---|---|")
    for name, load in (("breast cancer", load_breast_cancer), ("wine", load_wine), ("digits", load_digits)):
        X, y = load(return_X_y=True)
        for preprocessing in ("raw", "standardised"):
            data = StandardScaler().fit_transform(X) if preprocessing == "standardised" else X
            scaled = (lambda estimator: make_pipeline(StandardScaler(), estimator)) if preprocessing == "standardised" \
                else (lambda estimator: estimator)
            ppk_default = cross_val_score(scaled(PPKSVC(family="gaussian")), X, y, cv=folds).mean()
            rbf_default = cross_val_score(scaled(SVC()), X, y, cv=folds).mean()
            # The grids: rho = gamma x D Var(X) on the data the search sees (standardised: on all of X,
            # which the per-fold scaler approximates; the PPK search's V is the training fold's own).
            search = PPKSVCCV(family="gaussian", kernels=["ppk_norm"], rhos=RHOS, Cs=COSTS, cv=folds).fit(data, y)
            gammas = [rho / (data.shape[1] * data.var()) for rho in RHOS]
            rbf = GridSearchCV(SVC(), {"gamma": gammas, "C": COSTS}, cv=folds).fit(data, y)
            print(f"| {name} | {preprocessing} | {ppk_default:.4f} | {rbf_default:.4f} | {search.best_score_:.4f} "
                  f"(rho {search.best_params_['rho']}, C {search.best_params_['C']}) | {rbf.best_score_:.4f} "
                  f"(gamma x D Var(X) {rbf.best_params_['gamma'] * data.shape[1] * data.var():.2f}, "
                  f"C {rbf.best_params_['C']}) |")


if __name__ == "__main__":
    main()
