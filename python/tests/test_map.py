"""ppk.map and ppk.FeatureMap against `ppk map` on the same rows (train and test through one map,
the map files byte for byte), the exact maps' inner products against ppk.gram, and bad inputs."""

import pickle

import numpy as np
import pytest
import scipy.sparse
from sklearn.datasets import load_svmlight_file

import ppk


def documents(rng, n, vocabulary=12):
    """Counts of two topics over the vocabulary, every document at least one word."""
    topics = rng.dirichlet(np.ones(vocabulary), size=2)
    lengths = rng.integers(5, 30, size=n)
    return np.array([rng.multinomial(length, topics[i % 2]) for i, length in enumerate(lengths)], dtype=float)


def cases():
    rng = np.random.default_rng(26)
    sequences = lambda n: [rng.normal(size=(int(k), 2)) for k in rng.integers(8, 15, size=n)]
    return {
        # name: (family, train X, test X, fit options, ppk.FeatureMap's keywords = ppk map's options)
        "multinomial ml, exact": ("multinomial", documents(rng, 40), documents(rng, 9), {"alpha": 0},
                                  {"method": "exact"}),
        "multinomial smoothed, exact": ("multinomial", documents(rng, 40), documents(rng, 9), {},
                                        {"method": "exact"}),
        "multinomial smoothed, sparse": ("multinomial", documents(rng, 40), documents(rng, 9), {"alpha": 0.5},
                                         {"method": "sparse"}),
        "bernoulli, exact": ("bernoulli", (rng.random((40, 5)) < 0.4).astype(float),
                             (rng.random((9, 5)) < 0.4).astype(float), {}, {"method": "exact"}),
        "gaussian, nystrom uniform": ("gaussian", rng.normal(size=(40, 3)), rng.normal(size=(9, 3)), {"var": 0.5},
                                      {"method": "nystrom", "landmarks": 10, "seed": 7}),
        "multinomial, nystrom kmeans++": ("multinomial", documents(rng, 40), documents(rng, 9), {},
                                          {"method": "nystrom", "landmarks": 2, "landmark_choice": "kmeans++"}),
        "hmm, nystrom": ("hmm", sequences(30), sequences(6), {"states": 2},
                         {"method": "nystrom", "landmarks": 12, "seed": 3, "T": 5}),
    }


CASES = cases()


def tool_options(kernel, rho, method="exact", T=0, landmarks=None, landmark_choice=None, seed=None):
    options = ["-t", kernel, "-g", rho, "-d", T, "--map", method]
    for flag, value in (("--landmarks", landmarks), ("--landmark-choice", landmark_choice), ("--seed", seed)):
        if value is not None:
            options += [flag, value]
    return options


def read_features(path, n_features):
    """`ppk map`'s output ('LABEL i:v ...', 1-based indices, zeros left out) as labels and a dense
    matrix, read by scikit-learn's LIBSVM reader, independently of the bindings."""
    X, labels = load_svmlight_file(str(path), n_features=n_features, zero_based=False)
    return labels, X.toarray()


def dimension_of(map_text):
    """The 'dimension N' line of a map file."""
    return int(next(line.split(" ")[1] for line in map_text.decode().splitlines() if line.startswith("dimension ")))


def dense(X):
    return X.toarray() if scipy.sparse.issparse(X) else X


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("kernel,rho", [("ppk", 0.5), ("ppk_norm", 1.0)])
def test_map_equals_the_command_line_for_train_and_test_through_one_map(ppk_tool, tmp_path, case, kernel, rho):
    family, X_train, X_test, fit_options, map_options = CASES[case]
    train = ppk.fit(family, X_train, y=np.arange(len(X_train)) % 3, **fit_options)
    test = ppk.fit(family, X_test, y=np.arange(len(X_test)) % 2, **fit_options)
    (tmp_path / "train.ppk").write_bytes(train.to_rows())
    (tmp_path / "test.ppk").write_bytes(test.to_rows())
    ppk_tool("map", *tool_options(kernel, rho, **map_options), tmp_path / "train.ppk", "--save-map",
             tmp_path / "train.map", "-o", tmp_path / "train.features")
    ppk_tool("map", "--map-from", tmp_path / "train.map", tmp_path / "test.ppk", "-o", tmp_path / "test.features")
    map_text = (tmp_path / "train.map").read_bytes()
    n_features = dimension_of(map_text)

    feature_map = ppk.FeatureMap(train, kernel=kernel, rho=rho, **map_options)
    assert feature_map.to_text() == map_text  # the same map: landmarks, eigenvalues and W digit for digit
    assert feature_map.n_features == n_features
    for models, name in ((train, "train.features"), (test, "test.features")):
        labels, expected = read_features(tmp_path / name, n_features)
        np.testing.assert_array_equal(labels, models.labels)
        # The shortest decimal of a double reads back as that double: the same values, bit for bit.
        np.testing.assert_array_equal(dense(feature_map.transform(models)), expected)
    np.testing.assert_array_equal(dense(ppk.map(train, kernel=kernel, rho=rho, **map_options)),
                                  read_features(tmp_path / "train.features", n_features)[1])

    # A map saved by ppk map maps here as --map-from does, and a map saved here maps there.
    loaded = ppk.FeatureMap.load(tmp_path / "train.map")
    np.testing.assert_array_equal(dense(loaded.transform(test)), dense(feature_map.transform(test)))
    feature_map.save(tmp_path / "python.map")
    ppk_tool("map", "--map-from", tmp_path / "python.map", tmp_path / "test.ppk", "-o", tmp_path / "python.features")
    assert (tmp_path / "python.features").read_bytes() == (tmp_path / "test.features").read_bytes()


@pytest.mark.parametrize("case", ["multinomial ml, exact", "gaussian, nystrom uniform", "hmm, nystrom"])
def test_the_map_and_the_features_are_the_same_for_any_number_of_threads(case):
    family, X_train, _, fit_options, map_options = CASES[case]
    train = ppk.fit(family, X_train, **fit_options)
    maps = [ppk.FeatureMap(train, rho=0.5, n_jobs=n_jobs, **map_options) for n_jobs in (1, 2, 7)]
    assert maps[0].to_text() == maps[1].to_text() == maps[2].to_text()
    one = dense(maps[0].transform(train, n_jobs=1))
    for n_jobs in (2, 7, None):
        np.testing.assert_array_equal(dense(maps[0].transform(train, n_jobs=n_jobs)), one)


def test_more_rows_than_a_chunk_map_as_one_by_one(rng):
    # 4096 rows are mapped at a time: rows past the first chunk keep their order and their features.
    models = ppk.fit("multinomial", documents(rng, 4100, vocabulary=6), alpha=0)
    features = ppk.map(models, rho=0.5)
    assert features.shape == (4100, 6)
    for i in (0, 4095, 4096, 4099):
        np.testing.assert_array_equal(features[i].toarray(), ppk.map(models[i:i + 1], rho=0.5).toarray())


@pytest.mark.parametrize("case", ["multinomial ml, exact", "multinomial smoothed, exact", "bernoulli, exact"])
@pytest.mark.parametrize("kernel,rho", [("ppk", 0.5), ("ppk", 1.0), ("ppk_norm", 0.5), ("ppk", 2.0)])
def test_inner_products_of_exact_features_are_the_kernel(case, kernel, rho):
    # <phi(p), phi(p')> = sum_x p(x)^rho p'(x)^rho = k(p, p') (JMLR 2004 eq. 2); ppk.gram evaluates k
    # by the families' closed forms, not through the map.
    family, X_train, X_test, fit_options, _ = CASES[case]
    train, test = ppk.fit(family, X_train, **fit_options), ppk.fit(family, X_test, **fit_options)
    feature_map = ppk.FeatureMap(train, kernel=kernel, rho=rho)
    phi_train, phi_test = feature_map.transform(train), feature_map.transform(test)
    np.testing.assert_allclose(dense(phi_train @ phi_train.T), ppk.gram(train, kernel=kernel, rho=rho),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(dense(phi_test @ phi_train.T), ppk.gram(test, train, kernel=kernel, rho=rho),
                               rtol=1e-12, atol=0)


def test_nystrom_with_every_row_a_landmark_gives_back_the_gram_matrix(rng):
    # k_m(p)' K_mm^+ k_m(p') = k(p, p') when p or p' is a landmark (Williams and Seeger, NIPS 2000).
    models = ppk.fit("gaussian", rng.normal(size=(25, 2)), var=1.0)
    phi = ppk.map(models, rho=0.5, method="nystrom", landmarks=25, eigen_floor=0)
    np.testing.assert_allclose(phi @ phi.T, ppk.gram(models, rho=0.5), rtol=0, atol=1e-8)


def test_output_type_follows_the_method_unless_asked(rng):
    counts = documents(rng, 10)
    models = ppk.fit("multinomial", counts, alpha=0)
    exact = ppk.map(models)
    assert scipy.sparse.isspmatrix_csr(exact) and exact.dtype == np.float64 and exact.shape == (10, 12)
    assert exact.nnz == np.count_nonzero(counts)  # a maximum-likelihood document: features on its own words
    nystrom = ppk.map(models, method="nystrom", landmarks=4)
    assert isinstance(nystrom, np.ndarray) and nystrom.dtype == np.float64 and nystrom.shape[0] == 10
    np.testing.assert_array_equal(ppk.map(models, sparse_output=False), exact.toarray())
    assert scipy.sparse.isspmatrix_csr(ppk.map(models, method="nystrom", landmarks=4, sparse_output=True))


def test_a_map_pickles_as_its_text_and_maps_identically(rng):
    train = ppk.fit("gaussian", rng.normal(size=(30, 2)), var=0.5)
    test = ppk.fit("gaussian", rng.normal(size=(5, 2)), var=0.5)
    feature_map = ppk.FeatureMap(train, kernel="ppk_norm", method="nystrom", landmarks=8, seed=11)
    copy = pickle.loads(pickle.dumps(feature_map))
    assert copy.to_text() == feature_map.to_text()
    np.testing.assert_array_equal(copy.transform(test), feature_map.transform(test))
    assert (copy.method, copy.kernel, copy.rho, copy.T, copy.family) == ("nystrom", "ppk_norm", 1.0, 0, "gaussian")
    assert copy.n_landmarks == 8 and copy.n_features <= 8
    assert np.all(np.diff(copy.eigenvalues) <= 0) and len(copy.eigenvalues) == 8
    exact = ppk.FeatureMap(ppk.fit("multinomial", documents(rng, 5)))
    assert exact.n_landmarks is None and exact.eigenvalues is None


def multinomials():
    return ppk.fit("multinomial", np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]))


def gaussians():
    return ppk.fit("gaussian", np.array([[0.0, 1.0], [1.0, 2.0]]), var=1.0)


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda: ppk.map(np.ones((2, 2))), TypeError, "models must be ppk.Models"),
        (lambda: ppk.map(multinomials(), kernel="rbf"), ValueError, "kernel must be 'ppk' or 'ppk_norm'"),
        (lambda: ppk.map(multinomials(), kernel=5), TypeError, "kernel must be"),
        (lambda: ppk.map(multinomials(), rho=0), ValueError, "rho must be a finite number > 0"),
        (lambda: ppk.map(multinomials(), rho="1"), TypeError, "rho must be a number"),
        (lambda: ppk.map(multinomials(), T=-1), ValueError, "T must be"),
        (lambda: ppk.map(multinomials(), method="fast"), ValueError, "method must be 'exact', 'sparse' or 'nystrom'"),
        (lambda: ppk.map(multinomials(), method="nystrom", landmarks=0), ValueError, "--landmarks must be"),
        (lambda: ppk.map(multinomials(), method="nystrom", landmarks=2**70), ValueError, "landmarks must be"),
        (lambda: ppk.map(multinomials(), method="nystrom", landmarks=2.5), TypeError, "landmarks must be a whole"),
        (lambda: ppk.map(multinomials(), method="nystrom", landmark_choice="best"), ValueError,
         "--landmark-choice must be uniform or kmeans\\+\\+"),
        (lambda: ppk.map(multinomials(), method="nystrom", seed=-1), ValueError, "seed must be"),
        (lambda: ppk.map(multinomials(), method="nystrom", eigen_floor=1), ValueError, "--eigen-floor must be"),
        (lambda: ppk.map(multinomials(), method="nystrom", eigen_floor="0"), TypeError, "eigen_floor must be"),
        (lambda: ppk.map(multinomials(), n_jobs=0), ValueError, "n_jobs must be"),
        (lambda: ppk.map(multinomials(), n_jobs=1.5), TypeError, "n_jobs must be"),
        (lambda: ppk.map(multinomials(), sparse_output="yes"), TypeError, "sparse_output must be"),
        (lambda: ppk.map(gaussians()), ValueError, "no exact or sparse map; use the Nystrom map"),
        (lambda: ppk.map(ppk.Models()), ValueError, "models: no rows to map"),
        (lambda: ppk.map(ppk.Models(), method="nystrom"), ValueError, "models: no rows to choose landmarks from"),
        (lambda: ppk.map(multinomials() + ppk.fit("multinomial", np.ones((1, 4)))), ValueError,
         "models: row 3: .*but the map is of"),
        (lambda: ppk.map(gaussians() + multinomials(), method="nystrom"), ValueError, "models: row 3"),
        (lambda: ppk.FeatureMap(multinomials()).transform(gaussians()), ValueError,
         "models: row 1: a gaussian row .*but the map is of .*multinomial"),
        (lambda: ppk.FeatureMap(multinomials()).transform([1, 2]), TypeError, "models must be ppk.Models"),
        (lambda: ppk.FeatureMap.from_text(b"ppk feature map 1\nroute curved\n"), ValueError, "map:2"),
        (lambda: ppk.FeatureMap.from_text(3), TypeError, "text must be bytes or str"),
    ],
)
def test_bad_input_is_an_exception_naming_it(call, error, message):
    with pytest.raises(error, match=message):
        call()
