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

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils import check_random_state, column_or_1d
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _ovr_decision_function, check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from . import _ppk
from ._features import PPKFeatures
from . import Models, _check_weights
from ._inputs import fitted_models, input_tags

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


class _Probabilities:
    """predict_proba's availability (probability=True) and predict_log_proba, for PPKSVC and PPKSVCCV."""

    def _probability_enabled(self):
        if not self.probability:
            raise AttributeError("predict_proba is available when probability=True")
        return True

    @available_if(_probability_enabled)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class PPKSVC(_Probabilities, ClassifierMixin, BaseEstimator):
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
    weights: for X of combined rows (``ppk.combine``), the parts' weights that training and test rows
        are given (``ppk.combine``'s rows at these weights; None: the rows' own).

    Attributes: classes_, n_features_in_ (2-D X), support_ (indices of the support vectors),
    n_support_ (per class of classes_), svm_ (the LIBSVM model: ``save`` writes svm-predict's file).
    """

    def __init__(self, family="multinomial", fit_options=None, kernel="ppk", rho=1.0, T=0, C=1.0,
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

    def _more_tags(self):
        return input_tags(self)

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
        if self.kernel not in ("ppk", "ppk_norm"):
            raise ValueError(f"kernel must be 'ppk' or 'ppk_norm', got {self.kernel!r}")
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
        options.kernel = self.kernel
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
        """Fits the models of X and trains the SVM on them with the labels y; returns self."""
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
        return self._weighted(fitted_models(self, X, reset=False))

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

    @available_if(_Probabilities._probability_enabled)
    def predict_proba(self, X):
        """Each class's probability (svm_predict_probability, as svm-predict -b 1), columns as classes_."""
        models = self._test_models(X)
        libsvm_order = self.svm_.probabilities(models, self._n_jobs())
        probabilities = np.empty_like(libsvm_order)
        probabilities[:, self._position] = libsvm_order
        return probabilities


def _as_indexable(X):
    """X as something _take can index: Models and lists as they are, a pandas DataFrame as it is (its
    column names are checked by PPKSVC), other 2-D data as check_array gives it (sparse: CSR)."""
    if isinstance(X, (Models, list, tuple)) or hasattr(X, "iloc"):
        return X
    return check_array(X, accept_sparse="csr", dtype=None, force_all_finite=False)


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


class PPKSVCCV(_Probabilities, ClassifierMixin, BaseEstimator):
    """PPKSVC with its kernel, rho, T and C chosen by cross-validated accuracy on the training data.

    In the pattern of scikit-learn's ``LogisticRegressionCV``: where ``GridSearchCV(PPKSVC(), grid)``
    fits the models and computes every kernel value again for every cell and fold, this estimator
    fits the models once per training fold and computes one kernel matrix per (kernel, rho, T) and
    fold, and LIBSVM's solver runs every C on it (``ppk select``'s engine, docs/choosing-the-kernel.md).
    Its ``cv_results_`` are those of ``GridSearchCV(PPKSVC(...), {"kernel": kernels, "rho": rhos, "T":
    Ts, "C": Cs}, cv=cv)`` on the same splitter; then the best setting is fitted on all of X.

    Parameters
    ----------
    family, fit_options : as PPKSVC: ``ppk.fit(family, X, **fit_options)`` fits the models (not used
        when X is ``ppk.Models``). A fit that decides nothing on the training examples (nothing in
        its pool chosen by the data) is made once, on all of X, and one kernel matrix per (kernel,
        rho, T) serves every fold; otherwise each training fold is fitted, and its test examples
        with what that fit chose, as GridSearchCV(PPKSVC) would.
    kernels : list of "ppk", "ppk_norm"
    rhos : list of float > 0
    Ts : list of int >= 0, time steps of sequence models (0: each model's own)
    weightings : None, or for X of combined rows (``ppk.combine``) a list of the parts' weights (each a
        list of numbers), the grid of PPKSVC's ``weights``: each part's normalized kernel matrix is
        computed once per (rho, T) and every weighting is their weighted sum, no kernel computed for it.
        None: the rows' own weights (no ``weights`` in the grid).
    Cs : list of float > 0
    cv : int, cross-validation generator or iterable, as GridSearchCV's (default 5: stratified 5-fold).
    class_weight, probability, tol, shrinking, cache_size, decision_function_shape, n_jobs,
    random_state : as PPKSVC, for every fold and for the best setting's fit.

    Attributes
    ----------
    cv_results_ : dict, GridSearchCV's layout (params, param_*, split*_test_score, mean_test_score,
        std_test_score, rank_test_score, mean_fit_time, std_fit_time, mean_score_time, std_score_time)
    best_index_, best_params_, best_score_ : the first of the best mean accuracies
    best_estimator_ : the PPKSVC of best_params_ fitted on all of X; predict, decision_function,
        predict_proba and score are its own, and classes_, support_, n_support_ and svm_ are its.
    n_splits_ : the number of folds
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

    def _more_tags(self):
        return input_tags(self)

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
        """Cross-validates every setting of the grid on X, y, then fits the best on all of X; returns self."""
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
        if not isinstance(X, Models) and _fit_depends_on_other_examples(everything.fit_pool_, self.fit_options):
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
        for name in ("fit_pool_", "n_features_in_", "feature_names_in_"):
            if hasattr(everything, name):
                setattr(self.best_estimator_, name, getattr(everything, name))
            elif hasattr(self.best_estimator_, name):
                delattr(self.best_estimator_, name)
        for name in ("classes_", "support_", "n_support_", "svm_", "fit_pool_", "n_features_in_",
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
        held_out = _ppk.cross_validated_predictions(matrix, labels, [(train_at, test_at)], fold._train_options(y[train]),
                                                    costs, fold._n_jobs())
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
        """The best estimator's decision values (PPKSVC.decision_function)."""
        return self._best().decision_function(X)

    def predict(self, X):
        """The best estimator's predictions (PPKSVC.predict)."""
        return self._best().predict(X)

    @available_if(_Probabilities._probability_enabled)
    def predict_proba(self, X):
        """The best estimator's class probabilities (PPKSVC.predict_proba)."""
        return self._best().predict_proba(X)
