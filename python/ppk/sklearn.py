"""scikit-learn estimators on probability product kernels (docs/python.md).

``PPKSVC``: fits one model per example (``ppk.fit``) and trains LIBSVM's C-SVC with the kernel ppk or
ppk_norm in process, as ``ppk fit`` then ``svm-train -t KERNEL -g RHO -d T -c C`` do; predictions
evaluate the kernel against the support vectors only, as ``svm-predict`` does, with the same decision
values. ``PPKFeatures``: the explicit feature map (exact or Nystrom), for a linear model on n examples
too many for a kernel SVM: ``make_pipeline(PPKFeatures(...), LinearSVC())``. ``PPKSVCCV``: ``PPKSVC``
with its kernel, rho, T and C chosen by cross-validation, in the pattern of ``LogisticRegressionCV``:
one kernel matrix per (kernel, rho, T) and fold, every C solved on it (``ppk select``'s engine).

X is what ``ppk._inputs`` describes: 2-D data (one example per row: counts for ``multinomial``,
vectors for ``gaussian``, ...), a list of numpy arrays (one set or sequence per example) or
``ppk.Models`` fitted already.
"""

import json
import numbers
import time
import warnings

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils import check_random_state, column_or_1d
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from . import _ppk
from ._features import PPKFeatures
from . import Models, _check_weights
from ._inputs import ALLOW_NON_FINITE, KERNELS, InputTags, chose_variance, fitted_models, resolved_kernel

__all__ = ["PPKFeatures", "PPKSVC", "PPKSVCCV"]

_INT32_MAX = np.iinfo(np.int32).max


def _check_number(name, value, integral=False, minimum=None, exclusive=True):
    """value as a float (int if integral), or TypeError / ValueError naming the parameter."""
    kind = numbers.Integral if integral else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"{name} must be a {'whole ' if integral else ''}number, got {type(value).__name__}")
    value = int(value) if integral else float(value)
    if not np.isfinite(value) or (minimum is not None and (value <= minimum if exclusive else value < minimum)):
        raise ValueError(f"{name} must be a finite number {'>' if exclusive else '>='} {minimum}, got {value!r}")
    return value


def _libsvm_labels(classes):
    """LIBSVM's label of each class: the class itself when every class is a whole number that LIBSVM's
    int labels hold (so that the model equals svm-train's on the same rows), else its index."""
    if np.issubdtype(classes.dtype, np.number) and not np.issubdtype(classes.dtype, np.bool_):
        values = classes.astype(np.float64)
        if np.all(values == np.round(values)) and np.all(np.abs(values) <= _INT32_MAX):
            return values
    return np.arange(len(classes), dtype=np.float64)


def _libsvm(call, *args):
    """call(*args), a call into LIBSVM; the kernel's warnings during it (a kernel matrix nearly the
    identity or nearly constant, a family whose kernel is a bound or an estimate), which the command
    line's programs write on standard error, as Python warnings (UserWarning)."""
    try:
        return call(*args)
    finally:
        for message in _ppk.take_kernel_warnings():
            warnings.warn(f"ppk: {message}", stacklevel=3)


def one_vs_rest(ovo, n_classes):
    """One-vs-rest decision values (n_samples, n_classes) from one-vs-one values ovo (pairs (i, j), i < j,
    in order, > 0 for i): each class's votes plus its summed confidence c squashed to c / (3 (|c| + 1)),
    within (-1/3, 1/3), so that it orders classes of equal votes and never overturns a vote.

    >>> one_vs_rest(np.array([[0.5, -2.0, 1.0]]), 3).round(4)   # votes 1, 1, 1; confidences -1.5, 0.5, 1
    array([[0.8   , 1.1111, 1.1667]])
    """
    votes = np.zeros((len(ovo), n_classes))
    confidence = np.zeros((len(ovo), n_classes))
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    for k, (i, j) in enumerate(pairs):
        votes[:, i] += ovo[:, k] >= 0
        votes[:, j] += ovo[:, k] < 0
        confidence[:, i] += ovo[:, k]
        confidence[:, j] -= ovo[:, k]
    return votes + confidence / (3 * (np.abs(confidence) + 1))


class _Probabilities:
    """predict_proba's availability (probability=True) and predict_log_proba, for PPKSVC and PPKSVCCV."""

    def _probability_enabled(self):
        if not self.probability:
            raise AttributeError("predict_proba is available when probability=True")
        return True

    @available_if(_probability_enabled)
    def predict_log_proba(self, X):
        """The logarithm of predict_proba's probabilities; needs probability=True.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            (n_samples, n_classes), columns as classes_.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_iris
        >>> from ppk.sklearn import PPKSVC
        >>> X, y = load_iris(return_X_y=True)
        >>> svc = PPKSVC(family="gaussian", probability=True, random_state=1).fit(X, y)
        >>> bool(np.allclose(np.exp(svc.predict_log_proba(X[:3])), svc.predict_proba(X[:3])))
        True
        """
        return np.log(self.predict_proba(X))


class PPKSVC(InputTags, _Probabilities, ClassifierMixin, BaseEstimator):
    """A support vector classifier whose kernel compares one generative model per example.

    ``fit`` fits one model per example (``ppk.fit(family, X, **fit_options)``) and trains LIBSVM's
    C-SVC with the kernel ppk or ppk_norm in process, as ``ppk fit`` then ``svm-train -t KERNEL -g RHO
    -d T -c C`` would on the same rows; predictions evaluate the kernel against the support vectors
    only, as ``svm-predict`` does, with the same decision values. X is 2-D data (one example per row:
    counts for "multinomial", vectors for "gaussian"; numpy or scipy.sparse), a list of numpy arrays
    (one set or sequence per example) or ``ppk.Models`` fitted already. The kernel's warnings during
    training and prediction (a kernel matrix nearly the identity or nearly constant) are Python
    warnings.

    Parameters
    ----------
    family : str, default "multinomial"
        ``ppk fit``'s family of the models.
    fit_options : dict, optional
        ``ppk fit FAMILY``'s options as keywords, e.g. ``{"alpha": 0.5}`` or ``{"states": 2}``; the same
        options fit the test examples. Not used when X is ``ppk.Models``. A "gaussian" on 2-D data
        without ``var``, ``cov`` or ``ridge`` fits each vector x as N(x, V I), V = D Var(X) / 4 on the
        training data (JMLR 2004 section 3.1): its normalised kernel at rho = 1 is scikit-learn's RBF
        kernel at gamma="scale".
    kernel : {"auto", "ppk", "ppk_norm"}, default "auto"
        "ppk", k(p, p') = integral of p^rho p'^rho (JMLR 2004, eq. 2), or "ppk_norm", k divided by
        sqrt(k(p, p) k(p', p')); "auto" is "ppk_norm" when the fit chose the examples' variance (the
        Gaussian default above), else "ppk".
    rho : float, default 1.0
        > 0: 0.5 Bhattacharyya, 1 expected likelihood.
    T : int, default 0
        Time steps of sequence models (0: each model's own).
    C : float, default 1.0
        LIBSVM's cost (svm-train -c).
    class_weight : dict or "balanced", optional
        Weights of the classes' costs (svm-train -wi).
    probability : bool, default False
        Platt's probabilities (svm-train -b 1: an internal 5-fold cross-validation).
    tol : float, default 1e-3
        The stopping tolerance (-e).
    shrinking : bool, default True
        LIBSVM's shrinking heuristic (-h).
    cache_size : float, default 200.0
        The kernel cache in MB (-m).
    decision_function_shape : {"ovr", "ovo"}, default "ovr"
        One-vs-rest (n_samples, n_classes) or LIBSVM's one-vs-one pairs, as scikit-learn's SVC.
    n_jobs : int, optional
        Threads for kernel evaluations (None or -1: OMP_NUM_THREADS, else every hardware thread);
        results do not depend on it.
    random_state : int or numpy.random.RandomState, optional
        The seed of the C library's rand(), which -b 1's folds are drawn from (an int is the seed
        itself: 1 is svm-train's own sequence); None draws one from numpy.
    weights : list of float, optional
        For X of combined rows (``ppk.combine``), the parts' weights that training and test rows are
        given (None: the rows' own).

    Attributes
    ----------
    classes_ : numpy.ndarray
        The classes, sorted.
    n_features_in_ : int
        The number of columns of 2-D X.
    feature_names_in_ : numpy.ndarray
        The column names of a DataFrame X.
    support_ : numpy.ndarray
        Indices of the support vectors among the training examples.
    n_support_ : numpy.ndarray
        Support vectors per class of classes_.
    svm_ : object
        The LIBSVM model: ``svm_.save(path)`` writes svm-predict's model file.
    kernel_ : str
        The kernel used ("auto" resolved).
    fit_pool_ : bytes or None
        What the fit chose on the training examples (``ppk fit --save-pooled``), applied to the
        test examples.
    fit_defaults_ : dict
        The options the fit added on the training data (the Gaussian's variance), applied to the
        test examples.

    See Also
    --------
    PPKSVCCV : the kernel, rho, T and C chosen by cross-validation.
    PPKFeatures : the feature maps, for a linear model at scale.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.model_selection import train_test_split
    >>> from ppk.sklearn import PPKSVC
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_wine(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> svc = PPKSVC(family="gaussian").fit(StandardScaler().fit_transform(X_train), y_train)
    >>> svc.kernel_, svc.fit_defaults_                          # each vector x as N(x, V I)
    ('ppk_norm', {'var': 3.25})
    >>> model = make_pipeline(StandardScaler(), PPKSVC(family="gaussian")).fit(X_train, y_train)
    >>> model.score(X_test, y_test)
    1.0
    """

    def __init__(self, family="multinomial", fit_options=None, kernel="auto", rho=1.0, T=0, C=1.0,
                 class_weight=None, probability=False, tol=1e-3, shrinking=True, cache_size=200.0,
                 decision_function_shape="ovr", n_jobs=None, random_state=None, weights=None):
        self.family = family
        self.fit_options = fit_options
        self.kernel = kernel
        self.rho = rho
        self.T = T
        self.C = C
        self.class_weight = class_weight
        self.probability = probability
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.decision_function_shape = decision_function_shape
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.weights = weights

    def _weighted(self, models):
        """models at the weights of this estimator (combined rows; as they are when weights is None)."""
        return models if self.weights is None else _ppk.reweighted(models, _check_weights("weights", self.weights))

    def _n_jobs(self):
        if self.n_jobs is None:
            return None
        n_jobs = _check_number("n_jobs", self.n_jobs, integral=True)
        if n_jobs == 0 or n_jobs < -1:
            raise ValueError(f"n_jobs must be None, -1 or a whole number >= 1, got {n_jobs}")
        return None if n_jobs == -1 else n_jobs

    def _check_setting(self):
        """Checks kernel, rho, T and C as _train_options does (ValueError / TypeError naming them)."""
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be 'auto', 'ppk' or 'ppk_norm', got {self.kernel!r}")
        _check_number("rho", self.rho, minimum=0)
        _check_number("T", self.T, integral=True, minimum=0, exclusive=False)
        _check_number("C", self.C, minimum=0)
        if self.weights is not None:
            _check_weights("weights", self.weights)

    def _train_options(self, y):
        self._check_setting()
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}")
        options = _ppk.SvmTrainOptions()
        options.kernel = resolved_kernel(self)
        options.rho = float(self.rho)
        options.T = int(self.T)
        options.C = float(self.C)
        options.tol = _check_number("tol", self.tol, minimum=0)
        options.cache_size = _check_number("cache_size", self.cache_size, minimum=0)
        options.shrinking = bool(self.shrinking)
        options.probability = bool(self.probability)
        if self.class_weight is not None:
            options.weight_labels = [int(label) for label in self._libsvm_labels]
            options.weights = [float(w) for w in compute_class_weight(self.class_weight, classes=self.classes_, y=y)]
        if isinstance(self.random_state, numbers.Integral) and not isinstance(self.random_state, bool):
            if not 0 <= self.random_state <= 2**32 - 1:
                raise ValueError(f"random_state must be in [0, 2**32 - 1], got {self.random_state}")
            options.seed = int(self.random_state)
        else:
            options.seed = int(check_random_state(self.random_state).randint(_INT32_MAX))
        return options

    def fit(self, X, y):
        """Fits the models of X and trains the SVM on them with the labels y.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The training examples.
        y : array-like
            Their classes, at least two.

        Returns
        -------
        PPKSVC
            self.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVC
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [0, 1, 5], [1, 0, 4]])
        >>> PPKSVC(rho=0.5, C=10).fit(counts, [0, 0, 1, 1]).n_support_
        array([1, 1], dtype=int32)
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        models = self._weighted(fitted_models(self, X, reset=True))
        y = column_or_1d(y, warn=True)
        if len(y) != len(models):
            raise ValueError(f"X has {len(models)} examples but y has {len(y)} labels")
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {len(self.classes_)} class")
        self._libsvm_labels = _libsvm_labels(self.classes_)
        self.kernel_ = resolved_kernel(self)
        options = self._train_options(y)
        self.svm_ = _libsvm(_ppk.SvmClassifier, models, self._libsvm_labels[y_index], options, self._n_jobs())
        self._set_class_order()
        self.support_ = np.asarray(self.svm_.support, dtype=np.int32)
        return self

    def _set_class_order(self):
        """How LIBSVM's classes (in order of first appearance) map to classes_: _position[a] is the
        index in classes_ of LIBSVM's class a; LIBSVM's pair (a, b), a < b, is pair
        _pair_index of sklearn's order (i < j of classes_), with _pair_sign -1 when swapped."""
        self._position = np.searchsorted(self._libsvm_labels, np.asarray(self.svm_.labels, dtype=np.float64))
        k = len(self.classes_)
        sklearn_pairs = {pair: q for q, pair in enumerate((i, j) for i in range(k) for j in range(i + 1, k))}
        index, sign = [], []
        for a in range(k):
            for b in range(a + 1, k):
                i, j = self._position[a], self._position[b]
                index.append(sklearn_pairs[(min(i, j), max(i, j))])
                sign.append(1.0 if i < j else -1.0)
        self._pair_index = np.asarray(index, dtype=np.intp)
        self._pair_sign = np.asarray(sign)
        self.n_support_ = np.zeros(k, dtype=np.int32)
        self.n_support_[self._position] = self.svm_.support_counts

    def _test_models(self, X):
        check_is_fitted(self)
        return self._weighted(fitted_models(self, X, reset=False))

    def _ovo(self, X):
        """The one-against-one decision values in sklearn's order: pair (i, j), i < j of classes_,
        > 0 for classes_[i]; LIBSVM's values, permuted and sign-flipped."""
        models = self._test_models(X)
        raw = _libsvm(self.svm_.decision_values, models, self._n_jobs())
        ovo = np.empty_like(raw)
        ovo[:, self._pair_index] = raw * self._pair_sign
        return ovo

    def decision_function(self, X):
        """LIBSVM's decision values (svm_predict_values) in scikit-learn's layout.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples, fitted with what the fit chose on the training examples.

        Returns
        -------
        numpy.ndarray
            Two classes: shape (n_samples,), > 0 for classes_[1]. More: by decision_function_shape,
            "ovo" the pairs (i, j), i < j of classes_, > 0 for i; "ovr" (n_samples, n_classes), each
            class's one-vs-one votes plus its summed confidence squashed into (-1/3, 1/3).

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVC
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [0, 1, 5], [1, 0, 4]])
        >>> svc = PPKSVC(rho=0.5, C=10).fit(counts, [0, 0, 1, 1])
        >>> bool(svc.decision_function([[0, 0, 3]])[0] > 0)          # classes_[1]
        True
        """
        ovo = self._ovo(X)
        if len(self.classes_) == 2:
            return -ovo[:, 0]
        if self.decision_function_shape == "ovr":
            return one_vs_rest(ovo, len(self.classes_))
        return ovo

    def predict(self, X):
        """The class of the most one-against-one votes (LIBSVM's svm_predict, as svm-predict).

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            One class of classes_ per example.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVC
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [0, 1, 5], [1, 0, 4]])
        >>> PPKSVC(rho=0.5, C=10).fit(counts, ["a", "a", "b", "b"]).predict([[3, 0, 0], [0, 0, 3]])
        array(['a', 'b'], dtype='<U1')
        """
        models = self._test_models(X)
        labels = _libsvm(self.svm_.predict, models, self._n_jobs())
        return self.classes_[np.searchsorted(self._libsvm_labels, labels)]

    @available_if(_Probabilities._probability_enabled)
    def predict_proba(self, X):
        """Each class's probability (svm_predict_probability, as svm-predict -b 1); needs probability=True.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            (n_samples, n_classes), columns as classes_; its largest is svm-predict -b 1's label, which
            can differ from predict's vote.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from ppk.sklearn import PPKSVC
        >>> X, y = load_iris(return_X_y=True)
        >>> svc = PPKSVC(family="gaussian", probability=True, random_state=1).fit(X, y)
        >>> svc.predict_proba(X[:1]).round(2)
        array([[0.98, 0.02, 0.01]])
        """
        models = self._test_models(X)
        libsvm_order = _libsvm(self.svm_.probabilities, models, self._n_jobs())
        probabilities = np.empty_like(libsvm_order)
        probabilities[:, self._position] = libsvm_order
        return probabilities


def _as_indexable(X):
    """X as something _take can index: Models and lists as they are, a pandas DataFrame as it is (its
    column names are checked by PPKSVC), other 2-D data as check_array gives it (sparse: CSR)."""
    if isinstance(X, (Models, list, tuple)) or hasattr(X, "iloc"):
        return X
    return check_array(X, accept_sparse="csr", dtype=None, **ALLOW_NON_FINITE)


def _take(X, indices):
    """The examples of _as_indexable's X at indices, in that order."""
    if isinstance(X, (list, tuple)):
        return [X[i] for i in indices]
    if hasattr(X, "iloc"):  # a pandas DataFrame
        return X.iloc[indices]
    return X[indices]


def _fit_depends_on_other_examples(pool, fit_options):
    """Whether a row fitted with fit_options depends on examples other than its own, by what the fit
    on the training examples recorded in its pool (the JSON of ppk fit --save-pooled; None: nothing
    was decided on them, as with ppk.Models or a pool of the user's): a value chosen on the data (its
    chosen_by other than the command line), a matrix computed on them (a prior's centre), a pooled base
    measure, a smoothing chosen by the data, statistics pooled into every row (shrink), or a pooled
    model; a pool of another kind (mi's mediator) counts as depending."""
    if pool is None:
        return False
    options = dict(fit_options or {})
    if options.get("shrink") or options.get("pooled"):
        return True
    try:
        record = json.loads(pool)
    except ValueError:
        return True
    if not isinstance(record, dict) or "chosen" not in record:
        return True
    command_line = "the command line"
    return (any(value.get("chosen_by") != command_line for value in record["chosen"].values())
            or "matrices" in record or "base" in record or "model" in record
            or record.get("smoothing", {}).get("chosen_by", command_line) != command_line)


# PPKSVC's parameters that PPKSVCCV's grid sets.
_GRID_PARAMETERS = ("kernel", "rho", "T", "C", "weights")


def _grid_values(name, values):
    """values as a non-empty list (a single value is a list of one), or ValueError naming the parameter."""
    values = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values]
    if not values:
        raise ValueError(f"{name} must list at least one value")
    return values


class PPKSVCCV(InputTags, _Probabilities, ClassifierMixin, BaseEstimator):
    """PPKSVC with its kernel, rho, T and C chosen by cross-validated accuracy on the training data.

    In the pattern of scikit-learn's ``LogisticRegressionCV``: where ``GridSearchCV(PPKSVC(), grid)``
    fits the models and computes every kernel value again for every cell and fold, this estimator
    fits the models once per training fold and computes one kernel matrix per (kernel, rho, T) and
    fold, and LIBSVM's solver runs every C on it (``ppk select``'s engine, docs/choosing-the-kernel.md).
    Its ``cv_results_`` are those of ``GridSearchCV(PPKSVC(...), {"kernel": kernels, "rho": rhos, "T":
    Ts, "C": Cs}, cv=cv)`` on the same splitter; then the best setting is fitted on all of X.

    Parameters
    ----------
    family, fit_options
        As PPKSVC's: ``ppk.fit(family, X, **fit_options)`` fits the models (not used when X is
        ``ppk.Models``). A fit that decides nothing on the training examples (nothing in its pool
        chosen by the data) is made once, on all of X, and one kernel matrix per (kernel, rho, T)
        serves every fold; otherwise (a value chosen on the data, the Gaussian's variance) each
        training fold is fitted, and its test examples with what that fit chose, as
        GridSearchCV(PPKSVC) would.
    kernels : list of {"ppk", "ppk_norm"}
        The kernels of the grid.
    rhos : list of float
        The exponents of the grid, > 0.
    Ts : list of int
        Time steps of sequence models, >= 0 (0: each model's own).
    Cs : list of float
        The costs of the grid, > 0.
    cv : int, cross-validation generator or iterable, default 5
        As GridSearchCV's (an int: stratified k-fold).
    class_weight, probability, tol, shrinking, cache_size, decision_function_shape, n_jobs, random_state
        As PPKSVC's, for every fold and for the best setting's fit.
    weightings : list of list of float, optional
        For X of combined rows (``ppk.combine``), the grid of PPKSVC's ``weights``: each part's
        normalised kernel matrix is computed once per (rho, T) and every weighting is their weighted
        sum. None: the rows' own weights.

    Attributes
    ----------
    cv_results_ : dict
        GridSearchCV's layout (params, param_*, split*_test_score, mean_test_score, std_test_score,
        rank_test_score, mean_fit_time, std_fit_time, mean_score_time, std_score_time).
    best_index_ : int
        The first of the best mean accuracies.
    best_params_ : dict
        Its setting.
    best_score_ : float
        Its mean accuracy.
    best_estimator_ : PPKSVC
        The PPKSVC of best_params_ fitted on all of X; predict, decision_function, predict_proba
        and score are its own, and classes_, support_, n_support_ and svm_ are its.
    n_splits_ : int
        The number of folds.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from ppk.sklearn import PPKSVCCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> search = PPKSVCCV(family="gaussian", kernels=["ppk_norm"], rhos=[0.5, 1], Cs=[1, 10], cv=3).fit(X, y)
    >>> search.best_params_, round(search.best_score_, 3)
    ({'C': 10, 'T': 0, 'kernel': 'ppk_norm', 'rho': 0.5}, 0.975)
    """

    def __init__(self, family="multinomial", fit_options=None, kernels=("ppk", "ppk_norm"),
                 rhos=(0.1, 0.25, 0.5, 0.75, 1.0), Ts=(0,), Cs=(0.1, 1.0, 10.0, 100.0, 1000.0), cv=5,
                 class_weight=None, probability=False, tol=1e-3, shrinking=True, cache_size=200.0,
                 decision_function_shape="ovr", n_jobs=None, random_state=None, weightings=None):
        self.family = family
        self.fit_options = fit_options
        self.kernels = kernels
        self.rhos = rhos
        self.Ts = Ts
        self.Cs = Cs
        self.cv = cv
        self.class_weight = class_weight
        self.probability = probability
        self.tol = tol
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.decision_function_shape = decision_function_shape
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.weightings = weightings

    def _classifier(self, **setting):
        """The PPKSVC of this estimator's shared parameters (every PPKSVC parameter but the grid's) and
        one grid setting."""
        shared = {name: getattr(self, name) for name in PPKSVC().get_params() if name not in _GRID_PARAMETERS}
        return PPKSVC(**shared, **setting)

    def _fold_models(self, X, train, test):
        """The models of one fold, training examples first: as PPKSVC fits them on X[train] and then
        predicts X[test] (the test examples fitted with what the fit chose on X[train])."""
        fold = self._classifier()
        return fitted_models(fold, _take(X, train), reset=True) + fitted_models(fold, _take(X, test), reset=False)

    def fit(self, X, y, groups=None):
        """Cross-validates every setting of the grid on X, y, then fits the best on all of X.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The training examples.
        y : array-like
            Their classes.
        groups : array-like, optional
            Passed to the splitter (cv).

        Returns
        -------
        PPKSVCCV
            self.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVCCV
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [6, 1, 1], [0, 1, 5], [1, 0, 4], [0, 2, 6]])
        >>> PPKSVCCV(rhos=[0.5], Cs=[1, 10], cv=3).fit(counts, [0, 0, 0, 1, 1, 1]).best_score_
        1.0
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if len(np.unique(y)) < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {len(np.unique(y))} class")
        lists = {"kernel": _grid_values("kernels", self.kernels), "rho": _grid_values("rhos", self.rhos),
                 "T": _grid_values("Ts", self.Ts), "C": _grid_values("Cs", self.Cs)}
        if self.weightings is not None:
            lists["weights"] = [tuple(_check_weights("weightings[]", w)) for w in _grid_values("weightings", self.weightings)]
        grid = list(ParameterGrid(lists))
        for setting in grid:  # every value checked as PPKSVC checks it, before anything is fitted
            if setting["kernel"] == "auto":
                raise ValueError("kernels must list 'ppk' or 'ppk_norm' ('auto' is PPKSVC's choice of one)")
            self._classifier(**setting)._check_setting()
        examples = _as_indexable(X)
        everything = self._classifier()  # the fit on all examples: its models, fit_pool_ and n_features_in_
        all_models = fitted_models(everything, examples, reset=True)
        if len(y) != len(all_models):
            raise ValueError(f"X has {len(all_models)} examples but y has {len(y)} labels")
        folds = list(check_cv(self.cv, y, classifier=True).split(np.zeros((len(y), 1)), y, groups))
        self.n_splits_ = len(folds)
        # Each fold's models when the fit depends on other examples than each row's own; otherwise those
        # of all examples, fitted once, and one kernel matrix per (kernel, rho, T) serves every fold.
        fold_models = None
        if not isinstance(X, Models) and (chose_variance(everything) or
                                          _fit_depends_on_other_examples(everything.fit_pool_, self.fit_options)):
            fold_models = [self._fold_models(examples, train, test) for train, test in folds]
        matrices = list(dict.fromkeys((s["kernel"], s["rho"], s["T"], s.get("weights")) for s in grid))
        costs = list(dict.fromkeys(s["C"] for s in grid))
        scores, times = {}, {}
        # Combined rows over a grid of weightings: each part's ppk_norm matrix once per (rho, T) (fitted
        # once: combined rows are ppk.Models), every (kernel, weights) their weighted sum.
        parts = _ppk.combined_parts(all_models)[0] if self.weightings is not None else None
        part_matrices, part_time = {}, {}
        for kernel, rho, T, weights in matrices:
            shared = None
            if parts is not None:
                start = time.perf_counter()
                if (rho, T) not in part_matrices:
                    part_matrices[(rho, T)] = [_ppk.KernelMatrix(part, "ppk_norm", rho, T, self._classifier()._n_jobs())
                                               for part in parts]
                    part_time[(rho, T)] = time.perf_counter() - start
                    start = time.perf_counter()
                shared = _ppk.KernelMatrix.weighted_sum(part_matrices[(rho, T)], list(weights), kernel)
                shared_time = (time.perf_counter() - start + part_time[(rho, T)] / len(matrices)) / len(folds)
            elif fold_models is None:
                start = time.perf_counter()
                shared = _ppk.KernelMatrix(all_models, kernel, rho, T, self._classifier()._n_jobs())
                shared_time = (time.perf_counter() - start) / len(folds)
            for f, (train, test) in enumerate(folds):
                start = time.perf_counter()
                if shared is None:
                    matrix = _ppk.KernelMatrix(fold_models[f], kernel, rho, T, self._classifier()._n_jobs())
                    train_at, test_at = np.arange(len(train)), np.arange(len(train), len(train) + len(test))
                else:
                    matrix, train_at, test_at = shared, train, test
                held_out = self._fold_predictions(matrix, y, train, train_at, test_at, kernel, rho, T, costs)
                elapsed = (time.perf_counter() - start + (shared_time if shared is not None else 0)) / len(costs)
                for c, cost in enumerate(costs):
                    scores.setdefault((kernel, rho, T, weights, cost), []).append(float(np.mean(held_out[c] == y[test])))
                    times.setdefault((kernel, rho, T, weights, cost), []).append(elapsed)
        self.cv_results_ = self._results(grid, scores, times)
        self.best_index_ = int(self.cv_results_["rank_test_score"].argmin())
        self.best_params_ = dict(self.cv_results_["params"][self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        # The best setting trained on the models already fitted to all of X: what PPKSVC.fit(X, y)
        # does, with the same fit_pool_ and input checks for predict.
        self.best_estimator_ = self._classifier(**self.best_params_).fit(all_models, y)
        for name in ("fit_pool_", "fit_defaults_", "n_features_in_", "feature_names_in_"):
            if hasattr(everything, name):
                setattr(self.best_estimator_, name, getattr(everything, name))
            elif hasattr(self.best_estimator_, name):
                delattr(self.best_estimator_, name)
        for name in ("classes_", "support_", "n_support_", "svm_", "fit_pool_", "fit_defaults_", "n_features_in_",
                     "feature_names_in_"):
            if hasattr(self.best_estimator_, name):
                setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _fold_predictions(self, matrix, y, train, train_at, test_at, kernel, rho, T, costs):
        """The classes predicted for the fold's test examples (at test_at in matrix), one row per C, by
        the PPKSVC of that setting trained on y[train] (at train_at): its labels, class weights and seed."""
        fold = self._classifier(kernel=kernel, rho=rho, T=T)
        fold.classes_, y_index = np.unique(y[train], return_inverse=True)
        fold._libsvm_labels = _libsvm_labels(fold.classes_)
        labels = np.zeros(len(matrix))
        labels[train_at] = fold._libsvm_labels[y_index]
        held_out = _libsvm(_ppk.cross_validated_predictions, matrix, labels, [(train_at, test_at)],
                           fold._train_options(y[train]), costs, fold._n_jobs())
        return fold.classes_[np.searchsorted(fold._libsvm_labels, held_out[:, test_at])]

    def _results(self, grid, scores, times):
        """cv_results_ in GridSearchCV's layout, the candidates in ParameterGrid's order."""
        results = {"params": grid}
        for name in ("C", "T", "kernel", "rho") + (("weights",) if "weights" in grid[0] else ()):
            column = np.ma.MaskedArray(np.empty(len(grid), dtype=object), mask=False)
            for i, setting in enumerate(grid):  # one object per candidate (a weighting is one tuple)
                column[i] = setting[name]
            results[f"param_{name}"] = column
        keys = [(s["kernel"], s["rho"], s["T"], s.get("weights"), s["C"]) for s in grid]
        split = np.array([scores[key] for key in keys])
        fit_times = np.array([times[key] for key in keys])
        for k in range(split.shape[1]):
            results[f"split{k}_test_score"] = split[:, k]
        results["mean_test_score"] = split.mean(axis=1)
        results["std_test_score"] = split.std(axis=1)
        results["rank_test_score"] = rankdata(-results["mean_test_score"], method="min").astype(np.int32)
        results["mean_fit_time"] = fit_times.mean(axis=1)
        results["std_fit_time"] = fit_times.std(axis=1)
        results["mean_score_time"] = np.zeros(len(grid))
        results["std_score_time"] = np.zeros(len(grid))
        return results

    def _best(self):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    def decision_function(self, X):
        """The best estimator's decision values (PPKSVC.decision_function).

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            As PPKSVC.decision_function's.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVCCV
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [6, 1, 1], [0, 1, 5], [1, 0, 4], [0, 2, 6]])
        >>> search = PPKSVCCV(rhos=[0.5], Cs=[1, 10], cv=3).fit(counts, [0, 0, 0, 1, 1, 1])
        >>> bool(search.decision_function([[0, 0, 3]])[0] > 0)
        True
        """
        return self._best().decision_function(X)

    def predict(self, X):
        """The best estimator's predictions (PPKSVC.predict).

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            One class of classes_ per example.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKSVCCV
        >>> counts = np.array([[5, 1, 0], [4, 0, 1], [6, 1, 1], [0, 1, 5], [1, 0, 4], [0, 2, 6]])
        >>> PPKSVCCV(rhos=[0.5], Cs=[1, 10], cv=3).fit(counts, [0, 0, 0, 1, 1, 1]).predict([[3, 0, 0]])
        array([0])
        """
        return self._best().predict(X)

    @available_if(_Probabilities._probability_enabled)
    def predict_proba(self, X):
        """The best estimator's class probabilities (PPKSVC.predict_proba); needs probability=True.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The test examples.

        Returns
        -------
        numpy.ndarray
            (n_samples, n_classes), columns as classes_.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from ppk.sklearn import PPKSVCCV
        >>> X, y = load_iris(return_X_y=True)
        >>> search = PPKSVCCV(family="gaussian", kernels=["ppk_norm"], rhos=[1], Cs=[1], probability=True,
        ...                   random_state=1).fit(X, y)
        >>> search.predict_proba(X[:1]).shape
        (1, 3)
        """
        return self._best().predict_proba(X)
