"""ppk.sklearn.PPKSVCCV: its cv_results_ are GridSearchCV(PPKSVC)'s on the same splitter (the oracle:
scikit-learn's own search, which fits and trains every cell and fold separately), its best estimator
is PPKSVC with the best parameters, it pickles, and it passes scikit-learn's estimator checks."""

import pickle

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import ppk
from ppk.sklearn import PPKSVC, PPKSVCCV

from conftest import run_checks


def two_topics(rng, n, vocabulary=15):
    """Documents of two overlapping topics (label = topic), 3 to 25 words each."""
    topics = rng.dirichlet(np.full(vocabulary, 0.5), size=2)
    topics = 0.6 * topics + 0.4 * topics[::-1]
    y = np.arange(n) % 2
    X = np.array([rng.multinomial(rng.integers(3, 25), topics[label]) for label in y], dtype=float)
    return X, y


GRID = dict(kernels=["ppk", "ppk_norm"], rhos=[0.25, 1.0], Cs=[0.1, 1.0, 100.0])


def grid_search(estimator, X, y, cv):
    """GridSearchCV(PPKSVC) over GRID, as a user would write it."""
    grid = {"kernel": GRID["kernels"], "rho": GRID["rhos"], "C": GRID["Cs"], "T": [0]}
    return GridSearchCV(estimator, grid, cv=cv).fit(X, y)


def assert_same_results(ours, theirs):
    assert [dict(p) for p in ours.cv_results_["params"]] == [dict(p) for p in theirs.cv_results_["params"]]
    for key in ["mean_test_score", "std_test_score"] + [f"split{k}_test_score" for k in range(ours.n_splits_)]:
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-12, atol=1e-15, err_msg=key)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], theirs.cv_results_["rank_test_score"])
    for name in ("C", "T", "kernel", "rho"):
        assert list(ours.cv_results_[f"param_{name}"]) == list(theirs.cv_results_[f"param_{name}"])
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_score_ == pytest.approx(theirs.best_score_, rel=1e-12)


@pytest.mark.parametrize("fit_options", [None, {"alpha": "evidence"}])
def test_cv_results_are_those_of_grid_search_cv(fit_options):
    """Counts in, fitted per fold: a fit independent of the other examples (the default smoothing) and
    one chosen on the training fold (alpha by the evidence of the fold's documents)."""
    rng = np.random.default_rng(3)
    X, y = two_topics(rng, 60)
    cv = StratifiedKFold(4, shuffle=True, random_state=2)
    ours = PPKSVCCV(fit_options=fit_options, cv=cv, random_state=0, **GRID).fit(X, y)
    theirs = grid_search(PPKSVC(fit_options=fit_options, random_state=0), X, y, cv)
    assert_same_results(ours, theirs)
    scores = ours.cv_results_["mean_test_score"]
    assert scores.max() > scores.min()  # the grid tells its settings apart: the comparison can fail
    X_test, _ = two_topics(rng, 30)
    best = PPKSVC(fit_options=fit_options, random_state=0, **ours.best_params_).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), best.predict(X_test))
    np.testing.assert_array_equal(ours.decision_function(X_test), best.decision_function(X_test))


def test_models_in_and_sequences_with_a_grid_of_T(tmp_path, ppk_tool):
    """ppk.Models of HMMs (fitted once by ppk fit, nothing refitted), over a grid of T: every split's
    score is PPKSVC's, fitted on that fold's training models and scored on its test models."""
    rng = np.random.default_rng(5)
    lines = []
    for i in range(40):
        stay = 0.85 if i % 2 else 0.35
        s = [int(rng.integers(4))]
        for _ in range(11):
            s.append(s[-1] if rng.random() < stay else int(rng.integers(4)))
        lines.append(f"{i % 2} {''.join('ACGT'[v] for v in s)}\n")
    (tmp_path / "seqs.txt").write_text("".join(lines))
    ppk_tool("fit", "hmm", "--states", 2, tmp_path / "seqs.txt", "-o", tmp_path / "seqs.ppk")
    models = ppk.Models.from_rows(tmp_path / "seqs.ppk")
    y = models.labels.astype(int)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"kernel": ["ppk_norm"], "rho": [0.5, 1.0], "T": [3, 11], "C": [1.0, 10.0]}
    ours = PPKSVCCV(kernels=grid["kernel"], rhos=grid["rho"], Ts=grid["T"], Cs=grid["C"], cv=cv).fit(models, y)
    # GridSearchCV cannot index ppk.Models: the same search by hand, PPKSVC fitted per cell and fold
    folds = list(cv.split(np.zeros((len(y), 1)), y))
    for k, params in enumerate(ours.cv_results_["params"]):
        expected = [PPKSVC(**params).fit(models[train], y[train]).score(models[test], y[test]) for train, test in folds]
        for f, score in enumerate(expected):
            assert ours.cv_results_[f"split{f}_test_score"][k] == score, (params, f)
    assert len(set(ours.cv_results_["mean_test_score"])) > 1


@pytest.mark.parametrize("family, fit_options, X_kind, decides_on_data", [
    ("multinomial", None, "counts", False), ("multinomial", {"alpha": "evidence"}, "counts", True),
    ("multinomial", {"alpha": 0.1}, "counts", False), ("bernoulli", None, "counts", False),
    ("gaussian", {"var": 1.0}, "vectors", False), ("gaussian", None, "sets", False),
    ("gaussian", {"estimator": "map", "prior": "pooled"}, "sets", True), ("hmm", {"states": 2}, "sequences", True)])
def test_fitted_once_exactly_when_no_fold_changes_the_rows(family, fit_options, X_kind, decides_on_data):
    """Whether PPKSVCCV fits once (what the pool says the fit decided on the data), against the oracle:
    every fold's rows, fitted as PPKSVC would on the fold, compared with the rows fitted on all of X.
    A fit made once must give every fold its rows; one said to decide on the data changes them here."""
    from ppk.sklearn import _fit_depends_on_other_examples
    rng = np.random.default_rng(11)
    if X_kind == "counts":
        X, y = two_topics(rng, 24)
    elif X_kind == "vectors":
        X, y = rng.normal(size=(24, 3)), np.arange(24) % 2
    else:
        X = [rng.normal(size=(int(rng.integers(4, 9)), 2)) * (1 + i % 3) for i in range(24)]
        if X_kind == "sequences":
            X = [np.cumsum(x, axis=0) for x in X]
        y = np.arange(24) % 2
    search = PPKSVCCV(family=family, fit_options=fit_options, cv=3)
    everything = search._classifier()
    all_models = ppk.sklearn.fitted_models(everything, X, reset=True)
    folds = list(StratifiedKFold(3).split(np.zeros((24, 1)), y))
    unchanged = all(search._fold_models(X, train, test).to_rows() == all_models[np.concatenate([train, test])].to_rows()
                    for train, test in folds)
    assert _fit_depends_on_other_examples(everything.fit_pool_, fit_options) == decides_on_data
    assert unchanged != decides_on_data, f"{family} {fit_options}: the folds' rows {'' if unchanged else 'do not '}equal"


def test_pickled_estimator_predicts_the_same():
    rng = np.random.default_rng(7)
    X, y = two_topics(rng, 40)
    search = PPKSVCCV(rhos=[0.5], Cs=[1.0, 10.0], cv=3).fit(X, y)
    copy = pickle.loads(pickle.dumps(search))
    np.testing.assert_array_equal(copy.decision_function(X), search.decision_function(X))
    assert copy.best_params_ == search.best_params_


def test_bad_grids_are_value_errors():
    X, y = two_topics(np.random.default_rng(1), 20)
    for parameters, match in [(dict(kernels=["rbf"]), "kernel"), (dict(rhos=[]), "rhos"), (dict(Cs=[1, -1]), "C"),
                              (dict(Ts=[-1]), "T"), (dict(rhos=[0.5, float("nan")]), "rho")]:
        with pytest.raises(ValueError, match=match):
            PPKSVCCV(**parameters).fit(X, y)
    with pytest.raises(ValueError, match="classes has to be greater than one"):
        PPKSVCCV().fit(X, np.zeros(len(y)))


def test_scikit_learns_checks_pass():
    estimator = PPKSVCCV(family="gaussian", fit_options={"var": 1.0}, rhos=(0.5, 1.0), Cs=(1.0, 10.0), cv=3)
    assert run_checks(estimator) == {}
