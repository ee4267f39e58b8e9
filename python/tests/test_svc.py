"""ppk.sklearn.PPKSVC against LIBSVM's own programs on the same rows: svm-train's model file byte for
byte, libsvm_decision_values's decision values (svm_predict_values of the shared libsvm.so.3 on
svm-train's model), svm-predict's labels and -b 1 probabilities; on the documents demo's data
(multinomial rows) and the sequences demo's (HMM rows). Then scikit-learn's conventions: its own
estimator checks, GridSearchCV, pickling, and bad inputs."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import ppk
from ppk.sklearn import PPKSVC

from conftest import run_checks


def program(name):
    path = os.environ.get(name)
    if not path:
        pytest.fail(f"{name} is not set: run the tests with ctest -R python.pytest")
    return path


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, args))}: {result.stderr}"
    return result.stdout


def example_script(name):
    return os.path.join(program("PPK_SOURCE_DIR"), "examples", name)


@pytest.fixture(scope="module")
def documents(tmp_path_factory, ppk_tool):
    """The documents demo's corpus (examples/documents-demo.sh), 200 + 200 documents, and its rows."""
    d = tmp_path_factory.mktemp("documents")
    run(sys.executable, example_script("make_documents.py"), "--seed", 1, "--vocabulary", 3000,
        "--n-train", 200, "--n-test", 200, "--train", d / "train.txt", "--test", d / "test.txt")
    for part in ("train", "test"):
        ppk_tool("fit", "multinomial", "--dim", 3000, d / f"{part}.txt", "-o", d / f"{part}.ppk")
    return d


@pytest.fixture(scope="module")
def sequences(tmp_path_factory, ppk_tool):
    """The sequences demo's data (examples/sequences-demo.sh), 80 + 80 sequences, and its HMM rows."""
    d = tmp_path_factory.mktemp("sequences")
    lines = run(sys.executable, example_script("make_sequences.py"), "--seed", 1, "--n", 160).splitlines(True)
    (d / "train.txt").write_text("".join(lines[:80]))
    (d / "test.txt").write_text("".join(lines[80:]))
    for part in ("train", "test"):
        ppk_tool("fit", "hmm", "--states", 2, "--alphabet", "ACGT", "--seed", 1, d / f"{part}.txt",
                 "-o", d / f"{part}.ppk")
    return d


def libsvm_route(d, *options):
    """svm-train OPTIONS train.ppk, then the model's labels, each test row's decision values (all
    digits) and svm-predict's labels."""
    run(program("PPK_SVM_TRAIN"), "-q", *options, d / "train.ppk", d / "model")
    model = (d / "model").read_bytes()
    labels = [int(v) for v in next(l for l in model.decode().splitlines() if l.startswith("label ")).split()[1:]]
    lines = run(program("PPK_DECISION_VALUES"), d / "model", d / "test.ppk").splitlines()
    decision = np.array([[float(v) for v in line.split()[1:]] for line in lines])
    run(program("PPK_SVM_PREDICT"), d / "test.ppk", d / "model", d / "predicted")
    predicted = np.loadtxt(d / "predicted")
    return model, labels, decision, predicted


CASES = [
    ("documents", dict(kernel="ppk", rho=0.5, C=10), ["-t", "ppk", "-g", 0.5, "-c", 10]),
    ("documents", dict(kernel="ppk_norm", rho=1.0, C=1), ["-t", "ppk_norm", "-g", 1, "-c", 1]),
    ("sequences", dict(kernel="ppk_norm", rho=1.0, T=9, C=1), ["-t", "ppk_norm", "-g", 1, "-d", 9, "-c", 1]),
]


@pytest.mark.parametrize("data, parameters, options", CASES)
def test_decision_values_equal_svm_predicts(request, tmp_path, data, parameters, options):
    d = request.getfixturevalue(data)
    model, labels, decision, predicted = libsvm_route(d, *options)
    train = ppk.Models.from_rows(d / "train.ppk")
    test = ppk.Models.from_rows(d / "test.ppk")
    svc = PPKSVC(**parameters).fit(train, train.labels)
    svc.svm_.save(str(tmp_path / "model"))
    assert (tmp_path / "model").read_bytes() == model  # the same training, to the last digit
    # scikit-learn's sign: > 0 for classes_[1]; LIBSVM's: > 0 for its first label
    sign = 1.0 if labels[0] == svc.classes_[1] else -1.0
    expected = sign * decision[:, 0]
    assert np.max(np.abs(svc.decision_function(test) - expected) / np.abs(expected)) <= 1e-12
    assert np.array_equal(svc.predict(test), predicted)
    assert len(svc.support_) == sum(svc.n_support_) == int(model.split(b"total_sv ")[1].split()[0])


def test_counts_in_equal_the_command_line_route(documents):
    """PPKSVC on the count matrix (ppk.fit inside) against ppk fit + svm-train + svm-predict."""
    _, labels, decision, predicted = libsvm_route(documents, "-t", "ppk", "-g", 0.5, "-c", 10)
    X, y = load_svmlight_file(str(documents / "train.txt"), n_features=3000)
    X_test, _ = load_svmlight_file(str(documents / "test.txt"), n_features=3000)
    svc = PPKSVC(family="multinomial", rho=0.5, C=10).fit(X, y)
    assert svc.n_features_in_ == 3000
    sign = 1.0 if labels[0] == svc.classes_[1] else -1.0
    assert np.allclose(svc.decision_function(X_test), sign * decision[:, 0], rtol=1e-12, atol=0)
    assert np.array_equal(svc.predict(X_test), predicted)
    assert np.array_equal(svc.decision_function(X_test), svc.set_params(n_jobs=1).decision_function(X_test))


def test_probabilities_equal_svm_predict_b1(documents, tmp_path):
    run(program("PPK_SVM_TRAIN"), "-q", "-b", 1, "-t", "ppk", "-g", 0.5, "-c", 10,
        documents / "train.ppk", tmp_path / "model")
    run(program("PPK_SVM_PREDICT"), "-b", 1, documents / "test.ppk", tmp_path / "model", tmp_path / "predicted")
    lines = (tmp_path / "predicted").read_text().splitlines()
    order = [float(v) for v in lines[0].split()[1:]]  # "labels 1 -1"
    printed = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    train = ppk.Models.from_rows(documents / "train.ppk")
    test = ppk.Models.from_rows(documents / "test.ppk")
    # random_state=1: srand(1), the state svm-train's rand() starts from for -b 1's folds
    svc = PPKSVC(rho=0.5, C=10, probability=True, random_state=1).fit(train, train.labels)
    svc.svm_.save(str(tmp_path / "ours"))
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "model").read_bytes()
    probabilities = svc.predict_proba(test)
    columns = [list(svc.classes_).index(label) for label in order]
    assert np.allclose(probabilities[:, columns], printed[:, 1:], rtol=1e-5, atol=1e-6)  # printed with %g
    assert np.allclose(probabilities.sum(axis=1), 1)
    # svm-predict -b 1 labels by the largest probability; predict, as svm-predict without -b and
    # scikit-learn's SVC, by the votes of the pairs' decision values
    assert np.array_equal(svc.classes_[np.argmax(probabilities, axis=1)], printed[:, 0])


def test_three_classes_in_scikit_learns_layout(tmp_path, rng):
    """Labels 5, 2, 9 first seen in that order: LIBSVM's pairs (5,2), (5,9), (2,9) become
    scikit-learn's (2,5), (2,9), (5,9), with signs flipped where the order is."""
    centres = {5: (0, 0), 2: (3, 0), 9: (0, 3)}
    y = np.array([5, 2, 9] * 20)
    X = np.array([centres[label] for label in y]) + rng.normal(size=(len(y), 2))
    models = ppk.fit("gaussian", X, y, var=1.0)
    (tmp_path / "train.ppk").write_bytes(models.to_rows())
    (tmp_path / "test.ppk").write_bytes(models.to_rows())
    _, labels, decision, predicted = libsvm_route(tmp_path, "-t", "ppk", "-g", 1, "-c", 1)
    assert labels == [5, 2, 9]
    libsvm_pairs = [(5, 2), (5, 9), (2, 9)]
    svc = PPKSVC(family="gaussian", fit_options={"var": 1.0}, decision_function_shape="ovo").fit(X, y)
    assert list(svc.classes_) == [2, 5, 9] and list(svc.n_support_) == [
        svc.svm_.support_counts[labels.index(c)] for c in (2, 5, 9)]
    ovo = svc.decision_function(X)
    for q, (i, j) in enumerate([(2, 5), (2, 9), (5, 9)]):
        p = libsvm_pairs.index((i, j)) if (i, j) in libsvm_pairs else libsvm_pairs.index((j, i))
        sign = 1.0 if libsvm_pairs[p] == (i, j) else -1.0
        assert np.allclose(ovo[:, q], sign * decision[:, p], rtol=1e-12, atol=0)
    assert np.array_equal(svc.predict(X), predicted)
    ovr = svc.set_params(decision_function_shape="ovr").decision_function(X)
    assert ovr.shape == (len(y), 3)
    assert np.array_equal(svc.classes_[np.argmax(ovr, axis=1)], svc.predict(X))


def test_pickling_round_trip_predicts_identically(documents):
    train = ppk.Models.from_rows(documents / "train.ppk")
    test = ppk.Models.from_rows(documents / "test.ppk")
    svc = PPKSVC(rho=0.5, C=10, probability=True, random_state=3).fit(train, train.labels)
    copy = pickle.loads(pickle.dumps(svc))
    assert np.array_equal(copy.decision_function(test), svc.decision_function(test))
    assert np.array_equal(copy.predict_proba(test), svc.predict_proba(test))
    assert np.array_equal(copy.predict(test), svc.predict(test))
    assert copy.svm_.text() == svc.svm_.text()
    refit = clone(svc).fit(train, train.labels)  # the same random_state: the same model
    assert refit.svm_.text() == svc.svm_.text()


def test_a_damaged_model_text_is_a_value_error(documents, capfd):
    """The module's own LIBSVM loads models with the checked loader (06-model-loader.patch): a damaged
    pickle or model text is a ValueError naming the text's line and what is wrong (the loader's
    svm_load_model_error), never a crash."""
    from ppk import _ppk

    train = ppk.Models.from_rows(documents / "train.ppk")
    text = PPKSVC(rho=0.5, C=10).fit(train, train.labels).svm_.text()
    header = text.split(b"\nSV\n")[0].decode().splitlines()
    line = {line.split()[0]: i + 1 for i, line in enumerate(header)}
    total = int(text.split(b"total_sv ")[1].split()[0])
    cases = [
        (text.replace(b"nr_class 2", b"nr_class 2000000000"), f"line {line['nr_class']}: nr_class '2000000000' is not"),
        (text.replace(b"nr_sv ", b"nr_sv 1 "), f"line {line['nr_sv']}: nr_sv has 3 values; expected 2"),
        (text[: len(text) // 2], r"line \d+: (total_sv is \d+, but the file has|.* is not index:value)"),
        (text.replace(b"kernel_type ppk", b"kernel_type ppk_none"), f"line {line['kernel_type']}: unknown kernel_type 'ppk_none'"),
        (text.replace(f"total_sv {total}".encode(), f"total_sv {total + 5}".encode()),
         f"line {len(header) + 1}: nr_sv sums to {total}, but total_sv is {total + 5}"),
    ]
    for damaged, reason in cases:
        with pytest.raises(ValueError, match="^not a LIBSVM model: " + reason):
            _ppk.SvmClassifier.from_text(damaged)
        assert "ERROR: /proc/self/fd/" in capfd.readouterr().err


def test_grid_search_and_cross_validation_on_counts(documents):
    X, y = load_svmlight_file(str(documents / "train.txt"), n_features=3000)
    grid = GridSearchCV(PPKSVC(family="multinomial"),
                        {"rho": [0.5, 1.0], "C": [1, 10], "fit_options": [None, {"alpha": 0.01}]}, cv=3)
    grid.fit(X[:120], y[:120])
    assert grid.best_params_["rho"] in (0.5, 1.0) and len(grid.cv_results_["params"]) == 8
    assert grid.best_score_ > 0.75  # chance is 0.5 (C = 1 on ppk's small values is close to it)
    assert np.array_equal(grid.predict(X[120:]), grid.best_estimator_.predict(X[120:]))
    scores = cross_val_score(PPKSVC(rho=0.5, C=10), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.6)
    # in a Pipeline, after a step that keeps counts counts (the first 1,000 words of the vocabulary)
    pipeline = make_pipeline(FunctionTransformer(lambda counts: counts[:, :1000], accept_sparse=True), PPKSVC())
    search = GridSearchCV(pipeline, {"ppksvc__rho": [0.5, 1.0], "ppksvc__C": [1, 10]}, cv=3).fit(X[:120], y[:120])
    assert search.best_estimator_[-1].n_features_in_ == 1000 and search.best_score_ > 0.6


def test_scikit_learns_checks_pass_on_vectors():
    assert run_checks(PPKSVC(family="gaussian", fit_options={"var": 1.0})) == {}


def test_scikit_learns_checks_pass_on_counts_but_one_listed_in_the_docs():
    failures = run_checks(PPKSVC(family="multinomial"))
    # check_class_weight_classifiers gives negative values whatever requires_positive_X says:
    # negative counts are refused, as they must be
    assert set(failures) == {"check_class_weight_classifiers"}, failures
    assert "negative" in str(failures["check_class_weight_classifiers"])
    docs = open(os.path.join(program("PPK_SOURCE_DIR"), "docs", "python.md")).read()
    assert "check_class_weight_classifiers" in docs and "poor_score" in docs


def test_bad_parameters_and_inputs_are_python_exceptions(documents):
    train = ppk.Models.from_rows(documents / "train.ppk")
    y = train.labels
    for parameters, error, match in [
        (dict(kernel="rbf"), ValueError, "kernel"),
        (dict(rho=0), ValueError, "rho"),
        (dict(rho=float("nan")), ValueError, "rho"),
        (dict(rho="1"), TypeError, "rho"),
        (dict(C=-1), ValueError, "C"),
        (dict(T=-1), ValueError, "T"),
        (dict(T=1.5), TypeError, "T"),
        (dict(n_jobs=0), ValueError, "n_jobs"),
        (dict(decision_function_shape="both"), ValueError, "decision_function_shape"),
        (dict(random_state=-1), ValueError, "random_state"),
        (dict(family=3, fit_options={"alpha": 1}), TypeError, "family"),
    ]:
        with pytest.raises(error, match=match):
            X = train if "family" not in parameters else np.ones((4, 3))
            PPKSVC(**parameters).fit(X, y if X is train else [0, 1, 0, 1])
    with pytest.raises(ValueError, match="classes has to be greater than one"):
        PPKSVC().fit(train, np.ones(len(train)))
    with pytest.raises(ValueError, match="labels"):
        PPKSVC().fit(train, y[:-1])
    with pytest.raises(ValueError, match="requires y"):
        PPKSVC().fit(train, None)
    with pytest.raises(NotFittedError):
        PPKSVC().predict(train)
    with pytest.raises(ValueError, match="alphabet|option"):
        PPKSVC(fit_options={"alphabet": "ACGT"}).fit(np.ones((4, 3)), [0, 1, 0, 1])
    svc = PPKSVC().fit(train, y)
    with pytest.raises(AttributeError, match="probability=True"):
        svc.predict_proba(train)
    gaussians = ppk.fit("gaussian", np.arange(6.0).reshape(3, 2), var=1.0)
    with pytest.raises(ValueError, match=r"X\[0\]"):  # another family than the support vectors'
        svc.predict(gaussians)
    with pytest.raises(ValueError, match=r"X\[0\] and X\[3\]: .*no kernel between different sample spaces"):
        PPKSVC().fit(train[:3] + gaussians, np.arange(6) % 2)
    counts = PPKSVC().fit(np.eye(4) + 1, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="features"):
        counts.predict(np.ones((2, 5)))
    with pytest.raises(ValueError, match="NaN"):
        counts.predict(np.array([[1, np.nan, 1, 1]]))
    with pytest.raises(ValueError, match="negative"):
        counts.predict(np.array([[1, -1, 1, 1]]))


def test_what_the_fit_chose_on_training_sequences_is_applied_to_test_ones(tmp_path, ppk_tool, rng):
    """hmm's prior count is chosen on the training sequences; PPKSVC keeps it (fit_pool_) and fits the
    test sequences with it, as ppk fit --save-pooled / --pooled-from do: the decision values equal
    the command line's, and one test sequence alone is predicted as within the batch."""
    from conftest import write_rows

    def walks(n, drift):
        return [np.cumsum(rng.normal(drift, 1.0, size=(int(m), 2)), axis=0) for m in rng.integers(20, 40, n)]

    X = walks(15, 0.0) + walks(15, 0.4)
    y = np.repeat([1, 2], 15)
    X_test = walks(6, 0.0) + walks(6, 0.4)
    parameters = dict(family="hmm", fit_options={"states": 2, "seed": 3}, kernel="ppk_norm", rho=0.5, T=10, C=10)
    svc = PPKSVC(**parameters).fit(X, y)
    assert b"prior-count" in svc.fit_pool_
    write_rows(tmp_path / "train.txt", X, y)
    write_rows(tmp_path / "test.txt", X_test, np.ones(len(X_test)))
    fit = ["fit", "hmm", "--states", 2, "--seed", 3, "--dim", 2]
    ppk_tool(*fit, tmp_path / "train.txt", "--save-pooled", tmp_path / "pool.json", "-o", tmp_path / "train.ppk")
    ppk_tool(*fit, tmp_path / "test.txt", "--pooled-from", tmp_path / "pool.json", "-o", tmp_path / "test.ppk")
    _, labels, decision, predicted = libsvm_route(tmp_path, "-t", "ppk_norm", "-g", 0.5, "-d", 10, "-c", 10)
    sign = 1.0 if labels[0] == svc.classes_[1] else -1.0
    values = svc.decision_function(X_test)
    assert np.allclose(values, sign * decision[:, 0], rtol=1e-12, atol=0)
    assert np.array_equal(svc.predict(X_test), predicted)
    assert svc.decision_function(X_test[3:4])[0] == values[3]


def test_the_training_fits_pool_stays_in_memory(tmp_path, ppk_tool, rng, monkeypatch):
    """fit_pool_ is the pool ppk fit --save-pooled writes (but its "source", the training data's name)
    and predict applies it: no file is written or read for it."""
    import json
    import tempfile

    from conftest import write_rows

    def no_files(*args, **kwargs):
        raise AssertionError("a temporary file for the pool")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_files)
    monkeypatch.setattr(tempfile, "mkdtemp", no_files)
    y = np.repeat([1, 2], 15)
    topics = rng.dirichlet(np.full(8, 0.3), size=2)  # two topics: counts more dispersed than the pooled base's
    X = np.array([rng.multinomial(40, topics[label - 1]) for label in y], dtype=float)
    svc = PPKSVC(family="multinomial", fit_options={"alpha": "evidence"}, rho=0.5, C=10).fit(X, y)
    monkeypatch.undo()
    write_rows(tmp_path / "train.txt", X, y)
    ppk_tool("fit", "multinomial", "--alpha", "evidence", "--dim", 8, tmp_path / "train.txt", "--save-pooled",
             tmp_path / "pool.json")
    ours, cli = json.loads(svc.fit_pool_), json.loads((tmp_path / "pool.json").read_text())
    assert ours.pop("source") == "X" and cli.pop("source") == str(tmp_path / "train.txt")
    assert ours == cli
    X_test = np.array([rng.multinomial(40, topics[c]) for c in (0, 1, 0, 1, 1)], dtype=float)
    write_rows(tmp_path / "test.txt", X_test, np.zeros(5))
    test_rows = ppk_tool("fit", "multinomial", "--alpha", "evidence", "--pooled-from", tmp_path / "pool.json",
                         "--dim", 8, tmp_path / "test.txt").stdout
    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_files)
    assert ppk._fit("multinomial", X_test, np.zeros(5), {"alpha": "evidence"}, pool=svc.fit_pool_)[0].to_rows() == test_rows
    svc.predict(X_test)
    # mi: the mediator fitted to unlabeled data in memory, kept, and applied to the test data.
    U = rng.normal(size=(40, 2)) + np.repeat([[0, 0], [3, 3]], 20, axis=0)
    points = np.array([[0.0, 0.2], [0.3, -0.1], [3.1, 2.8], [2.7, 3.2]])
    options = {"likelihood": "gaussian", "var": 1.0, "unlabeled": U, "lambda": 10.0}
    mi = PPKSVC(family="mi", fit_options=options, kernel="ppk_norm", rho=1.0, C=10).fit(points, [1, 1, 2, 2])
    assert json.loads(mi.fit_pool_)["mediator"] == "gaussian"
    assert np.array_equal(mi.predict(points + 0.1), [1, 1, 2, 2])


def test_mi_kernel_svm_fits_the_mediator_once(tmp_path, ppk_tool, rng):
    """PPKSVC(family="mi"): the mediator fitted in fit (to the unlabeled data) is kept and applied to
    the test data, as ppk fit mi --save-mediator / --mediator-from; decision values as svm-predict's."""
    from conftest import write_rows

    U = rng.normal(size=(60, 2)) + np.repeat([[0, 0], [3, 3]], 30, axis=0)
    X = np.array([[0.0, 0.2], [0.3, -0.1], [3.1, 2.8], [2.7, 3.2]])
    y = np.array([1, 1, 2, 2])
    X_test = rng.normal(size=(10, 2)) + np.repeat([[0, 0], [3, 3]], 5, axis=0)
    options = {"likelihood": "gaussian", "var": 1.0, "unlabeled": U, "lambda": 10.0}
    svc = PPKSVC(family="mi", fit_options=options, kernel="ppk_norm", rho=1.0, C=10).fit(X, y)
    assert b'"mediator"' in svc.fit_pool_
    write_rows(tmp_path / "train.txt", X, y)
    write_rows(tmp_path / "U.txt", U, np.zeros(len(U)))
    write_rows(tmp_path / "test.txt", X_test, np.ones(len(X_test)))
    ppk_tool("fit", "mi", "gaussian", "--var", 1.0, "--lambda", 10.0, "--dim", 2, "--unlabeled", tmp_path / "U.txt",
             "--save-mediator", tmp_path / "mediator.json", tmp_path / "train.txt", "-o", tmp_path / "train.ppk")
    ppk_tool("fit", "mi", "gaussian", "--mediator-from", tmp_path / "mediator.json", tmp_path / "test.txt",
             "-o", tmp_path / "test.ppk")
    _, labels, decision, predicted = libsvm_route(tmp_path, "-t", "ppk_norm", "-g", 1, "-c", 10)
    sign = 1.0 if labels[0] == svc.classes_[1] else -1.0
    assert np.allclose(svc.decision_function(X_test), sign * decision[:, 0], rtol=1e-12, atol=0)
    assert np.array_equal(svc.predict(X_test), predicted)
    assert np.mean(svc.predict(X_test) == np.repeat([1, 2], 5)) >= 0.9


def test_class_weights_are_svm_trains_w(documents, tmp_path):
    train = ppk.Models.from_rows(documents / "train.ppk")
    first, second = np.unique(train.labels)
    run(program("PPK_SVM_TRAIN"), "-q", "-t", "ppk", "-g", 0.5, "-c", 1, f"-w{int(first)}", 4, f"-w{int(second)}", 0.5,
        documents / "train.ppk", tmp_path / "model")
    svc = PPKSVC(rho=0.5, C=1, class_weight={first: 4.0, second: 0.5}).fit(train, train.labels)
    svc.svm_.save(str(tmp_path / "ours"))
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "model").read_bytes()
    unweighted = PPKSVC(rho=0.5, C=1).fit(train, train.labels)  # C = 1: bounded support vectors
    assert unweighted.svm_.text() != svc.svm_.text()
