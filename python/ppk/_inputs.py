"""What the scikit-learn estimators of ppk.sklearn share: their X turned into one model per example.

An estimator's ``family`` and ``fit_options`` are ``ppk.fit``'s arguments; X is

* ``ppk.Models``: models fitted already (``family`` and ``fit_options`` are not used);
* a list of numpy arrays: one example each (a set or sequence of vectors, one per row; a 1-D array is
  a sequence of numbers), as ``ppk.fit`` takes them;
* anything else is 2-D data as scikit-learn takes it (a numpy array, a scipy.sparse matrix, nested
  lists), one example per row, checked by ``sklearn.utils.check_array`` (finite, at least one
  example) and by the number of columns and their names seen in ``fit`` (``n_features_in_``,
  ``feature_names_in_``).
"""

import os
import tempfile

import numpy as np
from sklearn.utils.validation import check_array

from . import Models, fit

# The families whose 2-D rows are counts or indicators: scikit-learn's checks give them X >= 0.
COUNT_FAMILIES = ("multinomial", "bernoulli", "poisson")


def is_example_list(X):
    """True if X is a list (or tuple) of numpy arrays: variable-length examples, not 2-D data."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(x, np.ndarray) for x in X)


# Options that give the fit a pool of the user's (a pooled model to adapt or to score against):
# nothing is chosen on X then, and ppk fit refuses --save-pooled with them.
_POOL_READERS = ("adapt_from", "fisher_from")


def fitted_models(estimator, X, reset):
    """X as ``ppk.Models`` for ``estimator`` (with ``family`` and ``fit_options``): reset=True in
    ``fit`` (sets ``n_features_in_`` for 2-D data), False in ``predict`` / ``transform`` (checks it).

    What a fit decides on the training examples (values chosen by the data, such as ``alpha="auto"``
    or hmm's prior count, and statistics pooled over them) is kept in ``estimator.fit_pool_`` (the
    JSON of ``ppk fit --save-pooled``; for mi, its mediator, ``--save-mediator``) and applied
    unchanged to test examples (``--pooled-from``, ``--mediator-from``): nothing is re-estimated on
    test data, as on the command line."""
    if reset:  # what a fit on other data set
        for name in ("n_features_in_", "feature_names_in_", "fit_pool_"):
            if hasattr(estimator, name):
                delattr(estimator, name)
    if isinstance(X, Models):
        if len(X) == 0:
            raise ValueError("X has no models: at least one example is needed")
        if reset:
            estimator.fit_pool_ = None
        return X
    options = dict(estimator.fit_options or {})
    save, apply = ("save_mediator", "mediator_from") if estimator.family == "mi" else ("save_pooled", "pooled_from")
    for name in (save, apply, "output"):
        if name in options:
            raise ValueError(f"fit_options: {name} is not an option of an estimator: fit keeps what it chose on "
                             "the training examples in fit_pool_, and predict and transform apply it")
    if not isinstance(estimator.family, str):
        raise TypeError(f"family must be a string such as 'multinomial', got {type(estimator.family).__name__}")
    if is_example_list(X):
        X = list(X)
    else:
        estimator._check_feature_names(X, reset=reset)
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
        estimator._check_n_features(X, reset=reset)
    if any(name in options for name in _POOL_READERS):
        if reset:
            estimator.fit_pool_ = None
        return fit(estimator.family, X, **options)
    with tempfile.TemporaryDirectory(prefix="ppk-pool-") as directory:
        pool = os.path.join(directory, "pool.json")
        if reset:
            models = fit(estimator.family, X, **options, **{save: pool})
            with open(pool, "rb") as file:
                estimator.fit_pool_ = file.read()
            return models
        if estimator.fit_pool_ is None:
            return fit(estimator.family, X, **options)
        with open(pool, "wb") as file:
            file.write(estimator.fit_pool_)
        if estimator.family == "mi":  # the mediator holds every option but the likelihood's name
            options = {"likelihood": options.get("likelihood")}
        return fit(estimator.family, X, **options, **{apply: pool})


def input_tags(estimator):
    """scikit-learn's tags for estimator's inputs: counts are >= 0, and scikit-learn's synthetic
    classification data (Gaussian blobs shifted to X >= 0) is not counts: a multinomial sees only each
    row's proportions x / sum(x), where the blobs overlap (docs/python.md, "scikit-learn's checks")."""
    counts = estimator.family in COUNT_FAMILIES
    return {"requires_positive_X": counts, "poor_score": counts}
