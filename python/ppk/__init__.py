"""Probability product kernels in Python: the C++ library and the ``ppk`` command line's own code.

    models = ppk.fit("multinomial", counts, y, alpha=0.5)   # one model per example
    K = ppk.gram(models, rho=0.5)                          # the kernel matrix, numpy

``fit`` takes ``ppk fit FAMILY``'s options as keywords (``alpha=0.5`` for ``--alpha 0.5``,
underscores for dashes, ``pooled=True`` for a switch) with its defaults and checks. Errors are
``ValueError`` (bad values, unknown options, invalid data) or ``TypeError`` (a wrong kind of
argument), with the message of the library or the command line. See docs/python.md.
"""

import logging
import numbers
import os
import tempfile
import warnings

import numpy as np

from . import _ppk

Models = _ppk.Models

# ppk fit's notes (what a fit chose on the data: "prior-count = 258, chosen by ..."), at level INFO;
# logging.basicConfig(level=logging.INFO) shows them. Its warnings are Python warnings.
_log = logging.getLogger("ppk")

__all__ = ["FeatureMap", "Models", "combine", "fit", "gram", "map"]


def _labels(y):
    if y is None:
        return None
    try:
        return np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"y must be an array of numbers (one label per example): {error}") from None


def _is_sparse(X):
    try:
        import scipy.sparse
    except ImportError:  # without scipy there are no sparse matrices
        return False
    return scipy.sparse.issparse(X)


def _sparse_examples(X, y):
    X = X.tocsr().copy()
    X.sum_duplicates()
    X.sort_indices()
    return _ppk.csr_examples(X.indptr, X.indices, X.data, X.shape[1], y)


def _sequence_examples(X, y):
    arrays = []
    for i, example in enumerate(X):
        try:
            array = np.asarray(example, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"X[{i}] must be an array of numbers: {error}") from None
        if array.ndim == 1:  # a sequence of numbers: one 1-D vector per element
            array = array.reshape(-1, 1)
        arrays.append(np.ascontiguousarray(array))
    return _ppk.grouped_examples(arrays, y)


def _examples(X, y):
    """X as the LIBSVM data rows ``ppk fit`` reads (``_ppk.Examples``)."""
    y = _labels(y)
    if _is_sparse(X):
        return _sparse_examples(X, y)
    if isinstance(X, (list, tuple)):
        return _sequence_examples(X, y)
    if isinstance(X, np.ndarray):
        if X.dtype == object:
            raise TypeError("X must be a numeric array, a scipy.sparse matrix or a list of arrays, "
                            "got an array of Python objects")
        return _ppk.dense_examples(np.ascontiguousarray(X, dtype=np.float64), y)
    raise TypeError("X must be a 2-D numpy array, a scipy.sparse matrix or a list of 2-D arrays "
                    f"(one per example), got {type(X).__name__}")


def _option_words(options):
    """``ppk fit``'s words for keyword options: ``alpha=0.5`` is ``--alpha 0.5``, ``pooled=True``
    is ``--pooled``; False and None leave an option out."""
    words = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            words.append(flag)
        elif isinstance(value, (str, numbers.Integral)):
            words += [flag, str(value)]
        elif isinstance(value, numbers.Real):
            words += [flag, repr(float(value))]  # the shortest text that reads back the same
        else:
            raise TypeError(f"{name} must be a number, a string or a bool, got {type(value).__name__}")
    return words


def fit(family, X, y=None, **options):
    """One model per example of X, as ``ppk fit FAMILY`` fits it: a ``Models``.

    X: a 2-D numpy array or scipy.sparse matrix (one example per row, a LIBSVM row each), or a list
    of 2-D arrays (one example = a set or sequence of vectors, one per row; a 1-D array is a
    sequence of numbers). y: the labels (default 0). options: ``ppk fit FAMILY``'s options
    (``ppk fit FAMILY --help``) as keywords; ``dim`` defaults to X's number of columns. The rows
    are those ``ppk fit FAMILY --dim D`` writes for the same data, byte for byte.

    The family "mi" is ``ppk fit mi LIKELIHOOD``: ``likelihood="gaussian"`` ("multinomial",
    "mixture") and its options; ``unlabeled`` (the data the mediator is fitted to) is a path or
    data as X (a 2-D array or sparse matrix).
    """
    if not isinstance(family, str):
        raise TypeError(f"family must be a string such as 'multinomial', got {type(family).__name__}")
    for name in ("output", "o", "help", "h"):
        if name in options:
            raise ValueError(f"{name} is not an option of ppk.fit: the models are returned")
    words = [family]
    if family == "mi":  # ppk fit mi LIKELIHOOD: the likelihood is a word of its own
        likelihood = options.pop("likelihood", None)
        if not isinstance(likelihood, str):
            raise ValueError("ppk.fit('mi', X, likelihood=...) needs the likelihood: 'gaussian', 'multinomial' "
                             "or 'mixture'")
        words.append(likelihood)
    examples = _examples(X, y)
    if "dim" not in options and examples.columns > 0:
        options = {"dim": examples.columns, **options}
    unlabeled = options.get("unlabeled") if family == "mi" else None
    if isinstance(unlabeled, os.PathLike):
        options["unlabeled"] = os.fspath(unlabeled)
    elif unlabeled is not None and not isinstance(unlabeled, str):
        # the mediator's data as ppk fit mi --unlabeled reads it: a file of LIBSVM rows
        with tempfile.TemporaryDirectory(prefix="ppk-fit-") as directory:
            options["unlabeled"] = os.path.join(directory, "unlabeled")
            with open(options["unlabeled"], "wb") as file:
                file.write(_examples(unlabeled, None).text)
            return _fit_rows(words + _option_words(options), examples)
    return _fit_rows(words + _option_words(options), examples)


def _fit_rows(words, examples):
    """``ppk fit WORDS`` on the examples; its notes logged, its warnings warned."""
    models, notes = _ppk.fit(words, examples)
    for note in notes.splitlines():
        if "warning" in note:
            warnings.warn(note, stacklevel=3)
        elif note:
            _log.info(note)
    return models


def _check_kernel_arguments(kernel, rho, T, n_jobs):
    """TypeError unless kernel is a str, rho a number, T a whole number and n_jobs None or a whole
    number; their values are checked by the C++ code (ValueError)."""
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be 'ppk' or 'ppk_norm', got {type(kernel).__name__}")
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a number, got {type(rho).__name__}")
    if isinstance(T, bool) or not isinstance(T, numbers.Integral):
        raise TypeError(f"T must be a whole number, got {type(T).__name__}")
    _check_n_jobs(n_jobs)


def _check_n_jobs(n_jobs):
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral)):
        raise TypeError(f"n_jobs must be None or a whole number, got {type(n_jobs).__name__}")


def _jobs(n_jobs):
    return None if n_jobs is None else int(n_jobs)


def gram(A, B=None, kernel="ppk", rho=1.0, T=0, n_jobs=None):
    """The kernel matrix K[i, j] = k(A[i], B[j]) (B None: A against itself) as a numpy array:
    ``ppk gram -t KERNEL -g RHO -d T`` on the same rows, value for value, for any n_jobs.

    kernel: "ppk" (k_rho(p, p') = integral of p^rho p'^rho) or "ppk_norm" (normalised to
    k(p, p) = 1); T: time steps of sequence models (0: each model's own); n_jobs: threads (None
    or -1: OMP_NUM_THREADS, else every hardware thread). The GIL is released while it computes.
    """
    for name, models in (("A", A), ("B", B)):
        if models is not None and not isinstance(models, Models):
            raise TypeError(f"{name} must be ppk.Models, got {type(models).__name__}")
    _check_kernel_arguments(kernel, rho, T, n_jobs)
    return _ppk.gram(A, B, kernel, float(rho), int(T), _jobs(n_jobs))


def _check_weights(name, weights):
    """weights as a list of floats, or TypeError naming the parameter; their values are checked by the
    C++ code (ValueError)."""
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__iter__"):
        raise TypeError(f"{name} must be a list of numbers, got {type(weights).__name__}")
    weights = list(weights)
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, numbers.Real):
            raise TypeError(f"{name} must be a list of numbers, got an item of type {type(w).__name__}")
    return [float(w) for w in weights]


def combine(models, weights=None):
    """Combined rows (docs/families.md, combined) from models of the same examples, one ppk.Models per
    kind of model (an HMM of each sequence, a multinomial of its k-mers, ...): model j holds models[i][j]
    as its part i with weight weights[i] (None: 1 each) and the label of models[0][j]. Their kernel is
    the weighted sum of the parts' normalized kernels, K = sum_i w_i k_i / sqrt(k_i(a_i, a_i) k_i(b_i, b_i));
    ppk_norm is K / sum_i w_i. ``ppk combine`` on the same rows, row for row: as many models in each,
    the same labels (ValueError naming models[i], the row and both labels otherwise), weights finite,
    >= 0 and summing to more than 0. Combine training and test models with the same weights."""
    if isinstance(models, Models) or not isinstance(models, (list, tuple)):
        raise TypeError(f"models must be a list of ppk.Models, got {type(models).__name__}")
    for i, part in enumerate(models):
        if not isinstance(part, Models):
            raise TypeError(f"models[{i}] must be ppk.Models, got {type(part).__name__}")
    return _ppk.combine(list(models), None if weights is None else _check_weights("weights", weights))


MAP_METHODS = ("exact", "sparse", "nystrom")


class FeatureMap:
    """A feature map phi of ``ppk map`` (docs/feature-maps.md), made once on training models and
    applied to any models of their family and sample space, so that train and test go through one
    map (``ppk map --save-map`` / ``--map-from``):

        feature_map = ppk.FeatureMap(train, kernel="ppk", rho=0.5)   # method="exact"
        X_train, X_test = feature_map.transform(train), feature_map.transform(test)

    <phi(p), phi(p')> = k(p, p'): exactly for method "exact" (multinomial of one event, bernoulli
    with D <= 20: phi_x(p) = p(x)^rho), k plus a rank-one term for "sparse" (smoothed multinomials),
    k_m(p)' K_mm^+ k_m(p') for "nystrom" (any family; m = landmarks rows of `models` drawn as
    ``ppk map --map nystrom --landmarks M --landmark-choice C --seed S --eigen-floor F`` draws them
    from a file of the same rows). landmarks, landmark_choice, seed and eigen_floor are used by
    "nystrom" only. The map pickles as the text ``--save-map`` writes (to_text, from_text; save,
    load), which ``ppk map --map-from`` reads, and reads what ``--save-map`` wrote.
    """

    def __init__(self, models, kernel="ppk", rho=1.0, T=0, method="exact", landmarks=256,
                 landmark_choice="uniform", seed=1, eigen_floor=1e-10, n_jobs=None):
        if not isinstance(models, Models):
            raise TypeError(f"models must be ppk.Models, got {type(models).__name__}")
        _check_kernel_arguments(kernel, rho, T, n_jobs)
        if not isinstance(method, str) or method not in MAP_METHODS:
            raise ValueError(f"method must be 'exact', 'sparse' or 'nystrom', got {method!r}")
        if isinstance(landmarks, bool) or not isinstance(landmarks, numbers.Integral):
            raise TypeError(f"landmarks must be a whole number, got {type(landmarks).__name__}")
        if not isinstance(landmark_choice, str):
            raise TypeError(f"landmark_choice must be 'uniform' or 'kmeans++', got {type(landmark_choice).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"seed must be a whole number, got {type(seed).__name__}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be a whole number in [0, 2^64), got {seed}")
        if isinstance(eigen_floor, bool) or not isinstance(eigen_floor, numbers.Real):
            raise TypeError(f"eigen_floor must be a number, got {type(eigen_floor).__name__}")
        if not -2**63 <= landmarks < 2**63:  # else checked by the C++ code, as --landmarks
            raise ValueError(f"landmarks must be a whole number in [1, 100000], got {landmarks}")
        self._map = _ppk.fit_map(models, kernel, float(rho), int(T), method, int(landmarks), landmark_choice,
                                 int(seed), float(eigen_floor), _jobs(n_jobs))

    @classmethod
    def from_text(cls, text):
        """The map whose text (bytes or str) ``ppk map --save-map`` or ``to_text`` wrote."""
        if isinstance(text, str):
            text = text.encode()
        if not isinstance(text, bytes):
            raise TypeError(f"text must be bytes or str, got {type(text).__name__}")
        feature_map = cls.__new__(cls)
        feature_map._map = _ppk.FeatureMap.from_text(text)
        return feature_map

    @classmethod
    def load(cls, path):
        """The map in the file ``ppk map --save-map MAP`` or ``save`` wrote."""
        with open(path, "rb") as file:
            return cls.from_text(file.read())

    def to_text(self):
        """The map as ``ppk map --save-map`` writes it (bytes): every number in the fewest digits
        that read back as the same double, so a map read back gives the same features."""
        return self._map.to_text()

    def save(self, path):
        """Writes to_text() to path, for ``ppk map --map-from path``."""
        with open(path, "wb") as file:
            file.write(self.to_text())

    def __getstate__(self):
        return {"text": self.to_text()}

    def __setstate__(self, state):
        self._map = _ppk.FeatureMap.from_text(state["text"])

    method = property(lambda self: self._map.route, doc="'exact', 'sparse' or 'nystrom'")
    kernel = property(lambda self: self._map.kernel, doc="'ppk' or 'ppk_norm'")
    rho = property(lambda self: self._map.rho)
    T = property(lambda self: self._map.T)
    family = property(lambda self: self._map.family, doc="the family of the models it maps")
    n_features = property(lambda self: self._map.dimension,
                          doc="the number of features (for nystrom, the effective rank r <= landmarks)")
    n_landmarks = property(lambda self: self._map.landmark_count, doc="nystrom: m (else None)")
    eigenvalues = property(lambda self: None if self._map.eigenvalues is None else np.array(self._map.eigenvalues),
                           doc="nystrom: the eigenvalues of K_mm, decreasing (else None)")

    def transform(self, models, sparse_output=None, n_jobs=None):
        """phi of every model, one row each, as ``ppk map --map-from`` writes them (the labels are
        models.labels): a scipy.sparse CSR matrix or a dense numpy array (float64, n_features
        columns). sparse_output None: CSR for the exact and sparse methods (a maximum-likelihood
        document has features on its own words only), dense for nystrom (every feature nonzero).
        The same values for any n_jobs; the GIL is released while it maps."""
        if not isinstance(models, Models):
            raise TypeError(f"models must be ppk.Models, got {type(models).__name__}")
        if sparse_output is not None and not isinstance(sparse_output, bool):
            raise TypeError(f"sparse_output must be None, True or False, got {type(sparse_output).__name__}")
        _check_n_jobs(n_jobs)
        indptr, indices, data = self._map.features(models, _jobs(n_jobs))
        shape = (len(models), self.n_features)
        if sparse_output is None:
            sparse_output = self.method != "nystrom"
        if sparse_output:
            import scipy.sparse
            return scipy.sparse.csr_matrix((data, indices, indptr), shape=shape)
        dense = np.zeros(shape)
        dense[np.repeat(np.arange(shape[0]), np.diff(indptr)), indices] = data
        return dense

    def __repr__(self):
        return f"<ppk.FeatureMap: {self.method}, {self.n_features} features, {self._map.description}>"


def map(models, kernel="ppk", rho=1.0, T=0, method="exact", landmarks=256, landmark_choice="uniform", seed=1,
        eigen_floor=1e-10, n_jobs=None, sparse_output=None):
    """The feature vectors of models, ``ppk map -t KERNEL -g RHO -d T --map METHOD`` on the same
    rows (value for value, for any n_jobs): ``FeatureMap(models, ...).transform(models)``. To map
    other models (test data) through the same map, keep the FeatureMap."""
    feature_map = FeatureMap(models, kernel=kernel, rho=rho, T=T, method=method, landmarks=landmarks,
                             landmark_choice=landmark_choice, seed=seed, eigen_floor=eigen_floor, n_jobs=n_jobs)
    return feature_map.transform(models, sparse_output=sparse_output, n_jobs=n_jobs)
