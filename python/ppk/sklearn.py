"""scikit-learn estimators on probability product kernels (docs/python.md).

``PPKSVC``: fits one model per example (``ppk.fit``) and trains LIBSVM's C-SVC with the kernel ppk or
ppk_norm in process, as ``ppk fit`` then ``svm-train -t KERNEL -g RHO -d T -c C`` do; predictions
evaluate the kernel against the support vectors only, as ``svm-predict`` does, with the same decision
values. ``PPKFeatures``: the explicit feature map (exact or Nystrom), for a linear model on n examples
too many for a kernel SVM: ``make_pipeline(PPKFeatures(...), LinearSVC())``.

X is what ``ppk._inputs`` describes: 2-D data (one example per row: counts for ``multinomial``,
vectors for ``gaussian``, ...), a list of numpy arrays (one set or sequence per example) or
``ppk.Models`` fitted already.
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state, column_or_1d
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _ovr_decision_function, check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _ppk
from ._features import PPKFeatures
from ._inputs import fitted_models, input_tags

__all__ = ["PPKFeatures", "PPKSVC"]

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


class PPKSVC(ClassifierMixin, BaseEstimator):
    """A support vector classifier whose kernel compares one generative model per example.

    family, fit_options: ``ppk.fit(family, X, **fit_options)`` fits the models (``ppk fit FAMILY``'s
        options as keywords, e.g. ``{"alpha": 0.5}`` or ``{"states": 2}``); not used when X is
        ``ppk.Models``. The same options fit the test examples in predict.
    kernel: "ppk", k(p, p') = integral of p^rho p'^rho (JMLR 2004, eq. 2), or "ppk_norm", k divided by
        sqrt(k(p, p) k(p', p')). rho: > 0 (0.5 Bhattacharyya, 1 expected likelihood). T: time steps
        of sequence models (0: each model's own).
    C, class_weight ("balanced" or {class: weight}), tol, shrinking, cache_size (MB): LIBSVM's
        C-SVC, as svm-train's -c, -wi, -e, -h and -m.
    probability: Platt's probabilities (svm-train -b 1: an internal 5-fold cross-validation).
    decision_function_shape: "ovr" (n_samples, n_classes) or "ovo" (LIBSVM's pairs), as sklearn's SVC.
    n_jobs: threads for kernel evaluations (None or -1: OMP_NUM_THREADS, else every hardware thread);
        results do not depend on it.
    random_state: the seed of the C library's rand(), which -b 1's folds are drawn from (an int is
        used as the seed itself: 1 is svm-train's own sequence); None draws one from numpy.

    Attributes: classes_, n_features_in_ (2-D X), support_ (indices of the support vectors),
    n_support_ (per class of classes_), svm_ (the LIBSVM model: ``save`` writes svm-predict's file).
    """

    def __init__(self, family="multinomial", fit_options=None, kernel="ppk", rho=1.0, T=0, C=1.0,
                 class_weight=None, probability=False, tol=1e-3, shrinking=True, cache_size=200.0,
                 decision_function_shape="ovr", n_jobs=None, random_state=None):
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

    def _more_tags(self):
        return input_tags(self)

    def _n_jobs(self):
        if self.n_jobs is None:
            return None
        n_jobs = _check_number("n_jobs", self.n_jobs, integral=True)
        if n_jobs == 0 or n_jobs < -1:
            raise ValueError(f"n_jobs must be None, -1 or a whole number >= 1, got {n_jobs}")
        return None if n_jobs == -1 else n_jobs

    def _train_options(self, y):
        if self.kernel not in ("ppk", "ppk_norm"):
            raise ValueError(f"kernel must be 'ppk' or 'ppk_norm', got {self.kernel!r}")
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}")
        options = _ppk.SvmTrainOptions()
        options.kernel = self.kernel
        options.rho = _check_number("rho", self.rho, minimum=0)
        options.T = _check_number("T", self.T, integral=True, minimum=0, exclusive=False)
        options.C = _check_number("C", self.C, minimum=0)
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
        """Fits the models of X and trains the SVM on them with the labels y; returns self."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        models = fitted_models(self, X, reset=True)
        y = column_or_1d(y, warn=True)
        if len(y) != len(models):
            raise ValueError(f"X has {len(models)} examples but y has {len(y)} labels")
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {len(self.classes_)} class")
        self._libsvm_labels = _libsvm_labels(self.classes_)
        options = self._train_options(y)
        self.svm_ = _ppk.SvmClassifier(models, self._libsvm_labels[y_index], options, self._n_jobs())
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
        return fitted_models(self, X, reset=False)

    def _ovo(self, X):
        """The one-against-one decision values in sklearn's order: pair (i, j), i < j of classes_,
        > 0 for classes_[i]; LIBSVM's values, permuted and sign-flipped."""
        models = self._test_models(X)
        raw = self.svm_.decision_values(models, self._n_jobs())
        ovo = np.empty_like(raw)
        ovo[:, self._pair_index] = raw * self._pair_sign
        return ovo

    def decision_function(self, X):
        """LIBSVM's decision values (svm_predict_values), in scikit-learn's layout: for two classes,
        > 0 for classes_[1], shape (n_samples,); else by decision_function_shape."""
        ovo = self._ovo(X)
        if len(self.classes_) == 2:
            return -ovo[:, 0]
        if self.decision_function_shape == "ovr":
            return _ovr_decision_function(ovo < 0, -ovo, len(self.classes_))
        return ovo

    def predict(self, X):
        """The class of the most one-against-one votes (LIBSVM's svm_predict, as svm-predict)."""
        models = self._test_models(X)
        labels = self.svm_.predict(models, self._n_jobs())
        return self.classes_[np.searchsorted(self._libsvm_labels, labels)]

    def _probability_enabled(self):
        if not self.probability:
            raise AttributeError("predict_proba is available when probability=True")
        return True

    @available_if(_probability_enabled)
    def predict_proba(self, X):
        """Each class's probability (svm_predict_probability, as svm-predict -b 1), columns as classes_."""
        models = self._test_models(X)
        libsvm_order = self.svm_.probabilities(models, self._n_jobs())
        probabilities = np.empty_like(libsvm_order)
        probabilities[:, self._position] = libsvm_order
        return probabilities

    @available_if(_probability_enabled)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))
