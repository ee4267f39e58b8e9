"""ppk.sklearn.PPKFeatures: scikit-learn's estimator checks on counts and on vectors, the features of
ppk.FeatureMap (which test_map.py checks against `ppk map`), the choice of method="auto", pickling,
LinearSVC after it in GridSearchCV, and bad inputs."""

import pickle

import numpy as np
import pytest
import scipy.sparse
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import ppk
from conftest import write_rows
from ppk.sklearn import PPKFeatures


@parametrize_with_checks([PPKFeatures(family="multinomial"), PPKFeatures(family="gaussian", fit_options={"var": 1.0})])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def two_topics(rng, n, vocabulary=20):
    """Documents of two topics (label = topic), every document at least five words."""
    topics = rng.dirichlet(np.full(vocabulary, 0.3), size=2)
    y = np.arange(n) % 2
    X = np.array([rng.multinomial(rng.integers(5, 40), topics[label]) for label in y], dtype=float)
    return X, y


def dense(X):
    return X.toarray() if scipy.sparse.issparse(X) else X


def test_exact_features_are_those_of_the_feature_map_of_the_fitted_models(rng):
    X, _ = two_topics(rng, 30)
    X_test, _ = two_topics(rng, 7)
    features = PPKFeatures(fit_options={"alpha": 0}, rho=0.5).fit(X)
    assert features.method_ == "exact" and features.n_features_in_ == 20
    feature_map = ppk.FeatureMap(ppk.fit("multinomial", X, alpha=0), rho=0.5)
    assert features.feature_map_.to_text() == feature_map.to_text()
    np.testing.assert_array_equal(dense(features.transform(X_test)),
                                  dense(feature_map.transform(ppk.fit("multinomial", X_test, alpha=0))))


def test_nystrom_features_use_random_state_as_the_seed(rng):
    X, X_test = rng.normal(size=(40, 3)), rng.normal(size=(6, 3))
    features = PPKFeatures(family="gaussian", fit_options={"var": 0.5}, kernel="ppk_norm", landmarks=10,
                           landmark_choice="kmeans++", random_state=5).fit(X)
    assert features.method_ == "nystrom"
    train = ppk.fit("gaussian", X, var=0.5)
    feature_map = ppk.FeatureMap(train, kernel="ppk_norm", method="nystrom", landmarks=10,
                                 landmark_choice="kmeans++", seed=5)
    assert features.feature_map_.to_text() == feature_map.to_text()
    np.testing.assert_array_equal(features.transform(X_test),
                                  feature_map.transform(ppk.fit("gaussian", X_test, var=0.5)))


def test_random_state_none_draws_the_seed_from_numpys_global_random_state(rng):
    X = rng.normal(size=(40, 2))
    maps = []
    for random_state in (None, None, np.random.RandomState(3), np.random.RandomState(3)):
        np.random.seed(12)
        estimator = PPKFeatures(family="gaussian", fit_options={"var": 1.0}, landmarks=5, random_state=random_state)
        maps.append(estimator.fit(X).feature_map_.to_text())
    assert maps[0] == maps[1] and maps[2] == maps[3]
    np.random.seed(13)
    another = PPKFeatures(family="gaussian", fit_options={"var": 1.0}, landmarks=5).fit(X).feature_map_.to_text()
    assert another != maps[0]  # 5 of 40 rows: another seed draws other landmarks


def test_auto_is_the_route_of_ppk_map_without_map_where_it_maps_every_model_else_nystrom(rng):
    X, _ = two_topics(rng, 12)
    wide, _ = two_topics(rng, 12, vocabulary=2000)
    binary = (rng.random((12, 21)) < 0.5).astype(float)
    sequences = [rng.normal(size=(10, 2)) for _ in range(6)]
    cases = [
        (PPKFeatures(), X, "exact"),  # smoothed documents over 20 words: dense exact features, few
        (PPKFeatures(), wide, "sparse"),  # ... over 2000 words: 2000 features against at most 41
        (PPKFeatures(fit_options={"alpha": 0}), X, "exact"),
        (PPKFeatures(fit_options={"alpha": 0}), wide, "exact"),
        (PPKFeatures(family="bernoulli"), binary[:, :20], "exact"),
        (PPKFeatures(family="bernoulli"), binary, "nystrom"),  # 2^21 features: not written out
        (PPKFeatures(fit_options={"base": "pooled"}), X, "sparse"),  # no dense exact map
        (PPKFeatures(family="hmm", fit_options={"states": 2}, T=4, random_state=0), sequences, "nystrom"),
        (PPKFeatures(family="gaussian", fit_options={"var": 1.0}, random_state=0), X, "nystrom"),
    ]
    for estimator, data, method in cases:
        assert estimator.fit(data).method_ == method
        assert estimator.feature_map_.method == method
    assert PPKFeatures(method="sparse").fit(X).method_ == "sparse"


def test_auto_takes_the_route_and_the_features_of_ppk_map_without_map(rng, tmp_path, ppk_tool):
    # The same documents through the command: the route of its note, and the features it writes.
    for vocabulary, route in ((20, "exact"), (2000, "sparse")):
        X, y = two_topics(rng, 30, vocabulary=vocabulary)
        estimator = PPKFeatures(rho=0.5).fit(X)
        assert estimator.method_ == route
        write_rows(tmp_path / "docs.txt", X, y)
        ppk_tool("fit", "multinomial", "--dim", vocabulary, tmp_path / "docs.txt", "-o", tmp_path / "rows.ppk")
        run = ppk_tool("map", "-t", "ppk", "-g", 0.5, tmp_path / "rows.ppk", "-o", tmp_path / "features.txt")
        assert run.stderr.decode().startswith(f"ppk map: --map {route}, chosen by the rows: ")
        command = load_svmlight_file(str(tmp_path / "features.txt"), n_features=estimator.feature_map_.n_features,
                                     zero_based=False)[0]
        np.testing.assert_array_equal(dense(estimator.transform(X)), command.toarray())


def test_the_sparse_route_of_auto_is_within_its_bound_of_the_kernel(rng):
    # docs/feature-maps.md: 0 <= <psi, psi'> - k <= sqrt(f f') sqrt(k(p,p) k(p',p')), f = L / D the share
    # of the words a document lists; k from ppk.gram, the kernel itself.
    X, _ = two_topics(rng, 40, vocabulary=2000)
    estimator = PPKFeatures(rho=0.5).fit(X)
    assert estimator.method_ == "sparse"
    psi = dense(estimator.transform(X))
    gram = ppk.gram(ppk.fit("multinomial", X), rho=0.5)
    scale = np.sqrt(np.outer(np.diag(gram), np.diag(gram)))
    share = np.count_nonzero(X, axis=1) / X.shape[1]
    difference = (psi @ psi.T - gram) / scale
    assert np.all(difference >= -1e-12) and np.all(difference <= np.sqrt(np.outer(share, share)) + 1e-12)
    assert np.max(difference) > 1e-6  # the rank-one term is there: not the exact map


def test_lists_of_arrays_and_models_are_examples_too(rng):
    sequences = [rng.normal(size=(int(n), 2)) for n in rng.integers(8, 14, size=10)]
    estimator = PPKFeatures(family="hmm", fit_options={"states": 2}, T=5, landmarks=6, random_state=1)
    features = estimator.fit_transform(sequences)
    assert features.shape == (10, estimator.feature_map_.n_features) and not hasattr(estimator, "n_features_in_")
    models = ppk.fit("hmm", sequences, states=2)
    np.testing.assert_array_equal(estimator.transform(models), features)


def test_test_examples_are_fitted_with_what_the_fit_chose_on_the_training_ones(rng, tmp_path):
    # alpha="evidence" is chosen on the training documents (ppk fit --save-pooled) and applied to the
    # test documents (--pooled-from), not chosen again on them.
    X, _ = two_topics(rng, 40)
    X_test, _ = two_topics(rng, 6)
    features = PPKFeatures(fit_options={"alpha": "evidence"}, rho=0.5).fit(X)
    (tmp_path / "pool.json").write_bytes(features.fit_pool_)
    test = ppk.fit("multinomial", X_test, alpha="evidence", pooled_from=str(tmp_path / "pool.json"))
    np.testing.assert_array_equal(dense(features.transform(X_test)), dense(features.feature_map_.transform(test)))
    chosen_again = ppk.fit("multinomial", X_test, alpha="evidence")
    assert not np.array_equal(dense(features.transform(X_test)), dense(features.feature_map_.transform(chosen_again)))


@pytest.mark.parametrize("estimator", [PPKFeatures(fit_options={"alpha": 0}),
                                       PPKFeatures(family="gaussian", fit_options={"var": 1.0}, landmarks=7,
                                                   random_state=2)])
def test_a_fitted_transformer_pickles_and_transforms_identically(rng, estimator):
    X, _ = two_topics(rng, 25)
    X_test, _ = two_topics(rng, 5)
    estimator.fit(X)
    copy = pickle.loads(pickle.dumps(estimator))
    assert copy.get_params() == estimator.get_params() and copy.method_ == estimator.method_
    np.testing.assert_array_equal(dense(copy.transform(X_test)), dense(estimator.transform(X_test)))


def test_a_pipeline_with_linear_svc_in_grid_search_over_rho(rng):
    X, y = two_topics(rng, 180)
    X, y, X_test, y_test = X[:120], y[:120], X[120:], y[120:]  # one draw: the same two topics
    pipeline = make_pipeline(PPKFeatures(fit_options={"alpha": 0}), LinearSVC(C=1.0, max_iter=10000))
    search = GridSearchCV(pipeline, {"ppkfeatures__rho": [0.25, 0.5, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["ppkfeatures__rho"] in (0.25, 0.5, 1.0)
    assert search.best_estimator_[0].rho == search.best_params_["ppkfeatures__rho"]
    assert search.score(X_test, y_test) > 0.9  # two well-separated topics


def test_bad_inputs_are_clean_exceptions(rng):
    X, _ = two_topics(rng, 6)
    with pytest.raises(NotFittedError):
        PPKFeatures().transform(X)
    with pytest.raises(ValueError, match="method must be 'auto', 'exact', 'sparse' or 'nystrom'"):
        PPKFeatures(method="fast").fit(X)
    with pytest.raises(ValueError, match="X has 19 features, but PPKFeatures is expecting 20"):
        PPKFeatures().fit(X).transform(X[:, 1:])
    with pytest.raises(TypeError, match="family must be a string"):
        PPKFeatures(family=3).fit(X)
    with pytest.raises(ValueError, match=r"X\[0\] .*count -\d+ at index \d+ is negative"):
        PPKFeatures().fit(-X)
    with pytest.raises(ValueError, match="rho must be a finite number > 0"):
        PPKFeatures(rho=-1).fit(X)
    with pytest.raises(TypeError, match="kernel must be"):
        PPKFeatures(kernel=5).fit(X)
    with pytest.raises(ValueError, match="--alpha"):
        PPKFeatures(fit_options={"alpha": -1}).fit(X)
    with pytest.raises(ValueError, match="no exact or sparse map"):
        PPKFeatures(family="gaussian", fit_options={"var": 1.0}, method="exact").fit(X)
    with pytest.raises(ValueError, match="--landmarks must be"):
        PPKFeatures(family="gaussian", fit_options={"var": 1.0}, landmarks=0).fit(X)
    with pytest.raises(ValueError, match="seed must be"):
        PPKFeatures(family="gaussian", fit_options={"var": 1.0}, random_state=-3).fit(X)
    with pytest.raises(ValueError, match="models: row 1: a gaussian row"):
        PPKFeatures().fit(X).transform(ppk.fit("gaussian", X, var=1.0))
