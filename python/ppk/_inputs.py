"""What the scikit-learn estimators of ppk.sklearn share: their X turned into one model per example.

An estimator's ``family`` and ``fit_options`` are ``ppk.fit``'s arguments; X is

* ``ppk.Models``: models fitted already (``family`` and ``fit_options`` are not used);
* a list of numpy arrays: one example each (a set or sequence of vectors, one per row; a 1-D array is
  a sequence of numbers), as ``ppk.fit`` takes them;
* anything else is 2-D data as scikit-learn takes it (a numpy array, a scipy.sparse matrix, nested
  lists), one example per row, checked by ``sklearn.utils.check_array`` (finite, at least one
  example) and by the number of columns seen in ``fit`` (``n_features_in_``).
"""

import numpy as np
from sklearn.utils.validation import check_array

from . import Models, fit

# The families whose 2-D rows are counts or indicators: scikit-learn's checks give them X >= 0.
COUNT_FAMILIES = ("multinomial", "bernoulli", "poisson")


def is_example_list(X):
    """True if X is a list (or tuple) of numpy arrays: variable-length examples, not 2-D data."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(x, np.ndarray) for x in X)


def fitted_models(estimator, X, reset):
    """X as ``ppk.Models`` for ``estimator`` (with ``family`` and ``fit_options``): reset=True in
    ``fit`` (sets ``n_features_in_`` for 2-D data), False in ``predict`` / ``transform`` (checks it)."""
    if isinstance(X, Models):
        if len(X) == 0:
            raise ValueError("X has no models: at least one example is needed")
        return X
    options = dict(estimator.fit_options or {})
    if not isinstance(estimator.family, str):
        raise TypeError(f"family must be a string such as 'multinomial', got {type(estimator.family).__name__}")
    if is_example_list(X):
        return fit(estimator.family, list(X), **options)
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    estimator._check_n_features(X, reset=reset)
    return fit(estimator.family, X, **options)


def input_tags(estimator):
    """scikit-learn's tags for estimator's inputs: counts are >= 0."""
    return {"requires_positive_X": estimator.family in COUNT_FAMILIES}
