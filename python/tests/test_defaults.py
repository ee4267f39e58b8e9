"""Defaults on what a Python user holds, and the kernel's warnings as Python warnings.

PPKSVC(family="gaussian") on plain vectors fits each x as N(x, V I), V = D Var(X) / 4 on the training
data (JMLR 2004 section 3.1), with the normalised kernel exp(-rho |x - x'|^2 / (4 V)): on scikit-learn's
real data sets it predicts as scikit-learn's own SVC with the RBF kernel at gamma = rho / (D Var(X)),
a LIBSVM of its own (the oracle), with decision values within the solvers' tolerance; the one-vs-rest
layout equals SVC's; the search over rho and C chooses V on each training fold, as GridSearchCV does;
scikit-learn's checks pass on the defaults. A kernel matrix nearly the identity, which the plugin warns
about during training, is a Python warning, and nothing is written on the process's standard error."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from conftest import run_checks
from ppk.sklearn import PPKFeatures, PPKSVC, PPKSVCCV, one_vs_rest


def split(load, standardise=True):
    X, y = load(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    if standardise:
        scaler = StandardScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return X_train, X_test, y_train, y_test


@pytest.mark.parametrize("standardise", [True, False])
@pytest.mark.parametrize("rho", [0.5, 1.0, 2.0])
def test_the_gaussian_default_predicts_as_the_rbf_svm(standardise, rho):
    X_train, X_test, y_train, y_test = split(load_breast_cancer, standardise)
    svc = PPKSVC(family="gaussian", rho=rho).fit(X_train, y_train)
    D, variance = X_train.shape[1], np.mean((X_train - X_train.mean()) ** 2)   # over every entry
    assert svc.kernel_ == "ppk_norm" and svc.fit_defaults_ == {"var": pytest.approx(D * variance / 4, rel=1e-12)}
    oracle = SVC(kernel="rbf", gamma=rho / (D * variance), C=1.0).fit(X_train, y_train)
    assert np.mean(svc.predict(X_test) == oracle.predict(X_test)) >= 0.99
    assert np.max(np.abs(svc.decision_function(X_test) - oracle.decision_function(X_test))) < 0.05
    # The test examples get the training data's V: one example alone is predicted as within the batch.
    assert svc.decision_function(X_test[:1])[0] == svc.decision_function(X_test)[0]


def test_three_classes_one_vs_rest_as_the_rbf_svm():
    X_train, X_test, y_train, y_test = split(load_wine)
    svc = PPKSVC(family="gaussian").fit(X_train, y_train)
    oracle = SVC().fit(X_train, y_train)   # gamma="scale": 1 / (D Var(X))
    assert np.max(np.abs(svc.decision_function(X_test) - oracle.decision_function(X_test))) < 0.05
    ovo = svc.set_params(decision_function_shape="ovo").decision_function(X_test)
    assert np.max(np.abs(ovo - oracle.set_params(decision_function_shape="ovo").decision_function(X_test))) < 0.05
    assert np.mean(svc.predict(X_test) == y_test) >= 0.95


def test_one_vs_rest_by_hand():
    # pairs (0, 1), (0, 2), (1, 2) at 0.5, -2, 1: one vote each; confidences -1.5, 0.5, 1
    expected = [1 - 1.5 / (3 * 2.5), 1 + 0.5 / (3 * 1.5), 1 + 1 / (3 * 2)]
    assert np.allclose(one_vs_rest(np.array([[0.5, -2.0, 1.0]]), 3), [expected], rtol=1e-15)


def test_the_search_chooses_the_variance_on_each_training_fold():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::3]
    y = y[::3]
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    grid = {"kernel": ["ppk_norm"], "rho": [0.5, 2.0], "C": [1.0, 10.0]}
    search = PPKSVCCV(family="gaussian", kernels=grid["kernel"], rhos=grid["rho"], Cs=grid["C"], cv=folds).fit(X, y)
    reference = GridSearchCV(PPKSVC(family="gaussian"), grid, cv=folds).fit(X, y)
    for k in range(3):
        assert np.array_equal(search.cv_results_[f"split{k}_test_score"], reference.cv_results_[f"split{k}_test_score"])
    assert search.best_estimator_.fit_defaults_ == reference.best_estimator_.fit_defaults_
    with pytest.raises(ValueError, match="kernels"):
        PPKSVCCV(family="gaussian", kernels=["auto"], cv=folds).fit(X, y)


def test_an_explicit_variance_or_kernel_is_kept():
    X_train, _, y_train, _ = split(load_breast_cancer)
    svc = PPKSVC(family="gaussian", fit_options={"var": 1.0}).fit(X_train, y_train)
    assert svc.kernel_ == "ppk" and svc.fit_defaults_ == {}
    assert PPKSVC(family="gaussian", kernel="ppk").fit(X_train, y_train).kernel_ == "ppk"
    assert PPKSVC().fit(np.eye(4) + 1, [0, 1, 0, 1]).kernel_ == "ppk"   # counts: no variance chosen
    features = PPKFeatures(family="gaussian", landmarks=10, random_state=0).fit(X_train)
    assert features.feature_map_.kernel == "ppk_norm"
    assert features.fit_defaults_ == {"var": pytest.approx(X_train.shape[1] * X_train.var() / 4, rel=1e-12)}


@pytest.mark.parametrize("estimator", [PPKSVC(family="gaussian"), PPKFeatures(family="gaussian")])
def test_scikit_learns_checks_pass_on_the_defaults(estimator):
    assert run_checks(estimator) == {}


def test_a_degenerate_kernel_is_a_python_warning_not_standard_error(capfd):
    X = 10.0 * np.arange(40.0).reshape(20, 2)   # points far apart at a small variance: K nearly I
    y = np.arange(20) % 2
    with pytest.warns(UserWarning, match="ppk: the kernel matrix is nearly the identity"):
        PPKSVC(family="gaussian", fit_options={"var": 0.01}, kernel="ppk_norm").fit(X, y)
    assert capfd.readouterr().err == ""
