"""Bad input is a ValueError or TypeError naming what is wrong, never a crash; and a hypothesis
property test: over random shapes, NaN, infinities, negative and huge values and ragged lists, every
call is a clean exception or a correct result."""

import math

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ppk

COUNTS = np.array([[1.0, 0, 3], [0, 2, 1]])


def gaussians():
    return ppk.fit("gaussian", COUNTS, var=1.0)


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda: ppk.fit("multinomial", np.array([[1.0, np.nan]])), ValueError, r"X\[0\], column 1 is nan"),
        (lambda: ppk.fit("gaussian", np.array([[1.0], [np.inf]])), ValueError, r"X\[1\], column 0 is infinite"),
        (lambda: ppk.fit("gaussian", [np.ones((2, 2)), np.array([[0.0, -np.inf]])]), ValueError,
         r"X\[1\] row 0, column 1 is infinite"),
        (lambda: ppk.fit("multinomial", np.array([[1.0, 2], [3, -1]])), ValueError,
         r"X\[1\] \(line 2 of its LIBSVM rows\): count -1 at index 2 is negative"),
        (lambda: ppk.fit("poisson", [np.ones((2, 2)), -np.ones((1, 2))]), ValueError, r"X\[1\] \(line 3"),
        (lambda: ppk.fit("multinomial", np.ones(3)), ValueError, "X must be 2-D"),
        (lambda: ppk.fit("gaussian", [np.ones((2, 2)), np.ones((0, 2))]), ValueError, r"X\[1\] is empty"),
        (lambda: ppk.fit("gaussian", [np.ones((2, 2)), np.ones((2, 3))]), ValueError, r"X\[1\] has 3 columns"),
        (lambda: ppk.fit("gaussian", [np.ones((2, 2, 2))]), ValueError, r"X\[0\] must be 2-D"),
        (lambda: ppk.fit("gaussian", [[1.0, [2.0, 3.0]]]), ValueError, r"X\[0\] must be an array of numbers"),
        (lambda: ppk.fit("multinomial", COUNTS, [1]), ValueError, "y must be a 1-D array of one label per example"),
        (lambda: ppk.fit("multinomial", COUNTS, [1, np.nan]), ValueError, r"y\[1\] is not a finite number"),
        (lambda: ppk.fit("multinomial", COUNTS, alpha=-1), ValueError, "--alpha"),
        (lambda: ppk.fit("multinomial", COUNTS, alpha="lots"), ValueError, "--alpha"),
        (lambda: ppk.fit("multinomial", COUNTS, no_such_option=1), ValueError, "--no-such-option"),
        (lambda: ppk.fit("multinomial", COUNTS, states=2), ValueError, "--states"),
        (lambda: ppk.fit("gaussian", COUNTS, pooled=True), ValueError, "--pooled is not offered"),
        (lambda: ppk.fit("multinomial", COUNTS, output="x"), ValueError, "output is not an option"),
        (lambda: ppk.fit("no_such_family", COUNTS), ValueError, "unknown family 'no_such_family'"),
        (lambda: ppk.fit("mi", COUNTS), ValueError, "needs the likelihood"),
        (lambda: ppk.fit("mi", COUNTS, likelihood="poisson"), ValueError, "unknown likelihood"),
        (lambda: ppk.fit(3, COUNTS), TypeError, "family must be a string"),
        (lambda: ppk.fit("gaussian", "1 1:2"), TypeError, "X must be"),
        (lambda: ppk.fit("gaussian", np.array([[object()]])), TypeError, "X must be a numeric array"),
        (lambda: ppk.fit("gaussian", COUNTS, var=[1, 2]), TypeError, "var must be"),
        (lambda: ppk.gram(COUNTS), TypeError, "A must be ppk.Models"),
        (lambda: ppk.gram(gaussians(), kernel="rbf"), ValueError, "kernel must be 'ppk' or 'ppk_norm'"),
        (lambda: ppk.gram(gaussians(), rho=0), ValueError, "rho must be a finite number > 0"),
        (lambda: ppk.gram(gaussians(), rho=math.nan), ValueError, "rho must be"),
        (lambda: ppk.gram(gaussians(), T=-1), ValueError, "T must be"),
        (lambda: ppk.gram(gaussians(), T=1.5), TypeError, "T must be a whole number"),
        (lambda: ppk.gram(gaussians(), n_jobs=0), ValueError, "n_jobs must be"),
        (lambda: ppk.gram(gaussians(), ppk.fit("multinomial", COUNTS)), ValueError,
         "A: row 1 and B: row 1"),
    ],
)
def test_bad_input_is_an_exception_naming_it(call, error, message):
    with pytest.raises(error, match=message):
        call()


FAMILIES = ["gaussian", "multinomial", "bernoulli", "poisson", "exponential"]

values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.0, 1.0, -1.0, 1e308, -1e308, 5e-324, 0.5]),
)


def arrays(min_rows=0):
    shapes = st.tuples(st.integers(min_rows, 4), st.integers(0, 4))
    return hnp.arrays(np.float64, shapes, elements=values)


inputs = st.one_of(
    arrays(),
    arrays().map(scipy.sparse.csr_matrix),
    st.lists(arrays(), max_size=4),  # ragged: any number of rows and columns per example
    st.lists(st.lists(values, max_size=3), max_size=3),
    hnp.arrays(np.float64, st.tuples(st.integers(0, 3)), elements=values),  # 1-D
)


def check_models(models, count):
    assert isinstance(models, ppk.Models) and len(models) == count
    for model in models:  # every row decodes to a valid model
        assert model["family"]
    K = ppk.gram(models, kernel="ppk_norm", rho=0.5)
    assert K.shape == (count, count)
    assert np.all(np.isfinite(K))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), X=inputs)
def test_any_input_is_a_clean_exception_or_valid_models(family, X):
    try:
        models = ppk.fit(family, X)
    except (ValueError, TypeError) as error:
        assert str(error), "an exception without a message"
        return
    count = X.shape[0] if scipy.sparse.issparse(X) or (isinstance(X, np.ndarray) and X.ndim == 2) else len(X)
    try:
        check_models(models, count)
    except ValueError as error:  # a kernel that cannot be evaluated is named, not a crash
        assert "row" in str(error)


def example_count(X):
    return X.shape[0] if hasattr(X, "shape") and len(X.shape) == 2 else len(X)


counts = st.integers(0, 100).map(float)  # whole numbers >= 0: data of every family


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), data=st.data())
def test_ppksvc_on_any_input_is_a_clean_exception_or_a_prediction(family, data):
    """PPKSVC.fit and predict, on random inputs (anything `inputs` gives, with random labels) or on
    valid training data (finite values >= 0, both classes) and test data of its columns whose values
    may be anything: a ValueError or TypeError with a message, or one class of the training labels
    and a finite decision value per test example."""
    from ppk.sklearn import PPKSVC

    if data.draw(st.booleans(), label="valid training data"):
        columns = data.draw(st.integers(1, 4))
        X = data.draw(hnp.arrays(np.float64, (data.draw(st.integers(2, 6)), columns), elements=counts))
        labels = [i % 2 for i in range(X.shape[0])]
        test_values = data.draw(st.sampled_from([counts, values]))
        X_test = data.draw(hnp.arrays(np.float64, (data.draw(st.integers(1, 4)), columns), elements=test_values))
    else:
        X, X_test = data.draw(inputs), data.draw(inputs)
        size = data.draw(st.one_of(st.just(example_count(X)), st.integers(0, 5)))
        labels = data.draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
    options = {"var": 1.0} if family == "gaussian" else None
    try:
        svc = PPKSVC(family=family, fit_options=options, kernel="ppk_norm", rho=0.5).fit(X, labels)
        predicted = svc.predict(X_test)
        decision = svc.decision_function(X_test)
    except (ValueError, TypeError) as error:
        assert str(error), "an exception without a message"
        return
    assert len(predicted) == example_count(X_test) == len(decision)
    assert set(predicted) <= set(labels)
    assert np.all(np.isfinite(decision))


def grid_chain(order, label, stay):
    """A Bayesian network (JSON) over the 64 variables of an 8 x 8 grid, 10 states each: a chain
    through them in `order`, each variable staying at its parent's value with probability `stay`."""
    import json

    nodes = [{"states": 10, "variable": order[0], "cpt": [[0.1] * 10]}]
    for i in range(1, len(order)):
        nodes.append({"states": 10, "variable": order[i], "parents": [i - 1],
                      "cpt": [[stay if s == t else (1 - stay) / 9 for s in range(10)] for t in range(10)]})
    return json.dumps({"label": label, "family": "bayesnet", "nodes": nodes})


def test_rows_without_a_kernel_value_between_them_are_a_value_error():
    """Two networks that each pass their checks, chains through the grid in row and in column order,
    have no kernel value together (the grid is too wide for exact elimination): only LIBSVM's
    evaluation of the pair finds it, in fit and in predict, and it is a ValueError there, not the end
    of the process; the same PPKSVC then trains on rows that have one."""
    from ppk.sklearn import PPKSVC

    by_rows = [r * 8 + c for r in range(8) for c in range(8)]
    by_columns = [r * 8 + c for c in range(8) for r in range(8)]
    crossed = ppk.Models.from_json(grid_chain(by_rows, 1, 0.5) + "\n" + grid_chain(by_columns, -1, 0.5))
    aligned = ppk.Models.from_json(grid_chain(by_rows, 1, 0.5) + "\n" + grid_chain(by_rows, -1, 0.2))
    svc = PPKSVC()
    with pytest.raises(ValueError, match="the networks are too densely connected for exact inference"):
        svc.fit(crossed, [1, -1])
    svc.fit(aligned, [1, -1])
    assert set(svc.predict(aligned)) <= {1, -1} and np.all(np.isfinite(svc.decision_function(aligned)))
    with pytest.raises(ValueError, match="exact elimination needs a table of 1e.08 entries"):
        svc.predict(crossed)
