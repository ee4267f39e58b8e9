"""What the scikit-learn estimators of ppk.sklearn share: their X turned into one model per example,
through the public API of the installed scikit-learn (1.2 to the current one).

An estimator's ``family`` and ``fit_options`` are ``ppk.fit``'s arguments; X is

* ``ppk.Models``: models fitted already (``family`` and ``fit_options`` are not used);
* a list of numpy arrays: one example each (a set or sequence of vectors, one per row; a 1-D array is
  a sequence of numbers), as ``ppk.fit`` takes them;
* anything else is 2-D data as scikit-learn takes it (a numpy array, a scipy.sparse matrix, nested
  lists), one example per row, checked by ``sklearn.utils.validation.validate_data`` (scikit-learn
  >= 1.6) or ``check_array`` (finite, at least one example) and by the number of columns and their
  names seen in ``fit`` (``n_features_in_``, ``feature_names_in_``).

A ``gaussian`` estimator on 2-D data whose ``fit_options`` choose no covariance (no ``var``, ``cov``
or ``ridge``) fits each vector x as N(x, V I), the fixed-variance Gaussian of JMLR 2004 section 3.1,
with V = D Var(X) / 4 over the training data's D columns (1 if Var(X) = 0): the normalised kernel of
two such models is exp(-rho |x - x'|^2 / (4 V)) (eq. 2 integrated), at rho = 1 scikit-learn's RBF
kernel at ``gamma="scale"`` = 1 / (D Var(X)).
"""

import inspect
import warnings

import numpy as np
from sklearn.utils.validation import check_array

from . import Models, _fit, fit

try:  # scikit-learn >= 1.6: the public validation of an estimator's input
    from sklearn.utils.validation import validate_data
except ImportError:  # scikit-learn < 1.6: check_array, and the columns checked here
    validate_data = None

try:  # scikit-learn >= 1.6: tags are __sklearn_tags__'s dataclass
    from sklearn.utils import Tags as _Tags
except ImportError:  # scikit-learn < 1.6 reads the dict of _more_tags
    _Tags = None

# check_array's keyword that lets NaN and infinities through (renamed in scikit-learn 1.6).
ALLOW_NON_FINITE = ({"ensure_all_finite": False} if "ensure_all_finite" in inspect.signature(check_array).parameters
                    else {"force_all_finite": False})

# The families whose 2-D rows are counts or indicators: scikit-learn's checks give them X >= 0.
COUNT_FAMILIES = ("multinomial", "bernoulli", "poisson")

# The gaussian options that choose its covariance: without any, 2-D rows get the fixed variance.
_COVARIANCE_OPTIONS = ("var", "cov", "ridge")


def is_example_list(X):
    """True if X is a list (or tuple) of numpy arrays: variable-length examples, not 2-D data."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(x, np.ndarray) for x in X)


# Options that give the fit a pool of the user's (a pooled model to adapt or to score against):
# nothing is chosen on X then, and ppk fit refuses --save-pooled with them.
_POOL_READERS = ("adapt_from", "fisher_from")


def _column_names(X):
    """The column names of a pandas DataFrame whose names are all strings, else None."""
    columns = getattr(X, "columns", None)
    if columns is None or not all(isinstance(name, str) for name in columns):
        return None
    return np.asarray(columns, dtype=object)


def _check_columns(estimator, X, reset):
    """n_features_in_ and feature_names_in_ set (reset) or checked, with scikit-learn's messages."""
    name = type(estimator).__name__
    names = _column_names(X)
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
    else:
        fitted = getattr(estimator, "feature_names_in_", None)
        if names is not None and fitted is None:
            warnings.warn(f"X has feature names, but {name} was fitted without feature names")
        elif names is None and fitted is not None:
            warnings.warn(f"X does not have valid feature names, but {name} was fitted with feature names")
        elif names is not None and (len(names) != len(fitted) or np.any(names != fitted)):
            raise ValueError("The feature names should match those that were passed during fit.\n"
                             f"Fitted with: {list(fitted)}\nGiven: {list(names)}\n")
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    if reset:
        estimator.n_features_in_ = X.shape[1]
    elif hasattr(estimator, "n_features_in_") and X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {name} is expecting {estimator.n_features_in_} "
                         "features as input.")
    return X


def checked_2d(estimator, X, reset):
    """2-D X as a float64 array or CSR matrix, its columns set in fit (reset) or checked against fit's."""
    if validate_data is not None:
        return validate_data(estimator, X, reset=reset, accept_sparse="csr", dtype=np.float64)
    return _check_columns(estimator, X, reset)


def fixed_variance(X):
    """V = D Var(X) / 4 over the entries of 2-D X (1 when they are all equal): the variance of each
    vector's Gaussian N(x, V I) whose normalised kernel is RBF at gamma = rho / (D Var(X))."""
    if hasattr(X, "toarray"):  # sparse: Var = E[x^2] - E[x]^2 over all entries
        mean = X.mean()
        variance = X.multiply(X).mean() - mean * mean
    else:
        variance = X.var()
    return X.shape[1] * (float(variance) if variance > 0 else 1.0) / 4.0


def default_fit_options(estimator, X):
    """The options the fit of 2-D X adds to fit_options: ``{"var": V}`` for a gaussian that chooses
    no covariance (module docstring), else none."""
    options = estimator.fit_options or {}
    if estimator.family == "gaussian" and not any(name in options for name in _COVARIANCE_OPTIONS):
        return {"var": fixed_variance(X)}
    return {}


def fitted_models(estimator, X, reset):
    """X as ``ppk.Models`` for ``estimator`` (with ``family`` and ``fit_options``): reset=True in
    ``fit`` (sets ``n_features_in_`` for 2-D data), False in ``predict`` / ``transform`` (checks it).

    What a fit decides on the training examples (values chosen by the data, such as ``alpha="auto"``
    or hmm's prior count, and statistics pooled over them) is kept in ``estimator.fit_pool_`` (the
    JSON of ``ppk fit --save-pooled``; for mi, its mediator, ``--save-mediator``) and applied
    unchanged to test examples (``--pooled-from``, ``--mediator-from``), handed to the fit in memory
    (no file is written or read for them), and the options added to
    fit_options on the training data (``default_fit_options``) in ``estimator.fit_defaults_``: nothing
    is re-estimated on test data, as on the command line."""
    if reset:  # what a fit on other data set
        for name in ("n_features_in_", "feature_names_in_", "fit_pool_", "fit_defaults_"):
            if hasattr(estimator, name):
                delattr(estimator, name)
    if isinstance(X, Models):
        if len(X) == 0:
            raise ValueError("X has no models: at least one example is needed")
        if reset:
            estimator.fit_pool_ = None
            estimator.fit_defaults_ = {}
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
        if reset:
            estimator.fit_defaults_ = {}
    else:
        X = checked_2d(estimator, X, reset)
        if reset:
            estimator.fit_defaults_ = default_fit_options(estimator, X)
    options.update(getattr(estimator, "fit_defaults_", {}))
    if any(name in options for name in _POOL_READERS):
        if reset:
            estimator.fit_pool_ = None
        return fit(estimator.family, X, **options)
    if reset:
        models, estimator.fit_pool_ = _fit(estimator.family, X, None, options, keep_pool=True)
        return models
    if estimator.family == "mi" and estimator.fit_pool_ is not None:
        # the mediator holds every option but the likelihood's name
        options = {"likelihood": options.get("likelihood")}
    return _fit(estimator.family, X, None, options, pool=estimator.fit_pool_)[0]


def chose_variance(estimator):
    """Whether the fit gave the examples a variance chosen on the training data (fit_defaults_)."""
    return bool(getattr(estimator, "fit_defaults_", None))


# The kernels of PPKSVC and PPKFeatures; "auto" is resolved by resolved_kernel.
KERNELS = ("auto", "ppk", "ppk_norm")


def resolved_kernel(estimator):
    """The kernel of estimator.kernel: "auto" is "ppk_norm" when the fit chose the examples' variance on
    the training data (a gaussian on 2-D data: ppk._inputs), whose unnormalised kernel carries the
    arbitrary factor (2 rho)^(-D/2) (2 pi V)^((1 - 2 rho) D / 2) (JMLR 2004 section 3.1), else "ppk"."""
    if estimator.kernel != "auto":
        return estimator.kernel
    return "ppk_norm" if chose_variance(estimator) else "ppk"


class InputTags:
    """scikit-learn's tags for an estimator's inputs, through the installed version's API: counts are
    >= 0, and scikit-learn's synthetic classification data (Gaussian blobs shifted to X >= 0) is not
    counts: a multinomial sees only each row's proportions x / sum(x), where the blobs overlap
    (docs/python.md, "scikit-learn's checks"). Put before BaseEstimator in the bases."""

    if _Tags is not None:
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            counts = self.family in COUNT_FAMILIES
            tags.input_tags.positive_only = counts
            tags.input_tags.sparse = True
            if tags.classifier_tags is not None:
                tags.classifier_tags.poor_score = counts
            return tags
    else:
        def _more_tags(self):
            counts = self.family in COUNT_FAMILIES
            return {"requires_positive_X": counts, "poor_score": counts}
