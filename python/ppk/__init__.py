"""Probability product kernels in Python: the C++ library and the ``ppk`` command line's own code.

One generative model per example (``fit``), compared by the probability product kernel
k(p, p') = integral of p^rho p'^rho (Jebara, Kondor and Howard, JMLR 2004, eq. 2): its matrix
(``gram``), its feature maps (``map``, ``FeatureMap``) and combined models (``combine``); the
scikit-learn estimators are in ``ppk.sklearn``, the Dask pipeline in ``ppk.dask``.

``fit`` takes ``ppk fit FAMILY``'s options as keywords (``alpha=0.5`` for ``--alpha 0.5``,
underscores for dashes, ``pooled=True`` for a switch) with its defaults and checks. Errors are
``ValueError`` (bad values, unknown options, invalid data) or ``TypeError`` (a wrong kind of
argument), with the message of the library or the command line. See docs/python.md.

Examples
--------
>>> import numpy as np
>>> import ppk
>>> counts = np.array([[3, 0, 1], [0, 2, 2]])
>>> models = ppk.fit("multinomial", counts, y=[1, -1], alpha=0.5)   # one model per example
>>> ppk.gram(models, kernel="ppk_norm", rho=0.5).round(3)            # the kernel matrix
array([[1.   , 0.57 ],
       [0.57 , 1.   ]])
"""

import logging
import numbers
import os
import warnings

import numpy as np

from . import _ppk

Models = _ppk.Models

# ppk fit's notes (what a fit chose on the data: "prior-count = 258, chosen by ..."), at level INFO;
# logging.basicConfig(level=logging.INFO) shows them. Its warnings are Python warnings.
_log = logging.getLogger("ppk")

# Not "map": `from ppk import *` keeps the builtin map (ppk.map is called by its full name).
__all__ = ["FeatureMap", "Models", "combine", "fit", "gram"]


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


def _option_keywords(options):
    """``ppk fit``'s options as (name, value) pairs: ``alpha=0.5`` is ``("alpha", "0.5")`` for
    ``--alpha 0.5``, ``pooled=True`` is ``("pooled", None)`` for the switch ``--pooled``; False and
    None leave an option out."""
    keywords = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        if value is True:
            keywords.append((name.replace("_", "-"), None))
        elif isinstance(value, (str, numbers.Integral)):
            keywords.append((name.replace("_", "-"), str(value)))
        elif isinstance(value, numbers.Real):
            keywords.append((name.replace("_", "-"), repr(float(value))))  # the shortest text that reads back the same
        else:
            raise TypeError(f"{name} must be a number, a string or a bool, got {type(value).__name__}")
    return keywords


def fit(family, X, y=None, **options):
    """One model per example of X, as ``ppk fit FAMILY`` fits it.

    Parameters
    ----------
    family : str
        ``ppk fit``'s FAMILY: "multinomial", "bernoulli", "gaussian", "hmm", ... The family "mi" is
        ``ppk fit mi LIKELIHOOD``: give ``likelihood="gaussian"`` ("multinomial", "mixture") and its
        options; ``unlabeled`` (the data the mediator is fitted to) is a path or data as X.
    X : numpy.ndarray, scipy.sparse matrix or list of numpy.ndarray
        2-D data, one example per row (a LIBSVM row each; zeros are left out), or a list of 2-D
        arrays, one example each (a set or a sequence of vectors, one per row; a 1-D array is a
        sequence of numbers).
    y : array-like, optional
        The labels, one per example (default 0).
    **options
        ``ppk fit FAMILY``'s options (``ppk fit FAMILY --help``) as keywords: ``alpha=0.5`` for
        ``--alpha 0.5``, underscores for dashes, ``pooled=True`` for a switch; ``dim`` defaults to
        X's number of columns.

    Returns
    -------
    Models
        The rows ``ppk fit FAMILY --dim D`` writes for the same data, byte for byte. Its notes are
        records of the logger "ppk" (level INFO), its warnings Python warnings.

    Raises
    ------
    ValueError
        A bad value, an unknown option or invalid data, named as the command line names it.
    TypeError
        A wrong kind of argument.

    Examples
    --------
    >>> import numpy as np
    >>> import ppk
    >>> documents = ppk.fit("multinomial", np.array([[3, 0, 1], [0, 2, 2]]), y=[1, -1], alpha=0.5)
    >>> len(documents), documents.labels
    (2, array([ 1., -1.]))
    >>> documents[0]["family"]
    'multinomial'
    """
    return _fit(family, X, y, options)[0]


def _note(note):
    """A note of ``ppk fit`` (what it chose on the data): a record of the logger "ppk", or a warning."""
    if "warning" in note:
        warnings.warn(note, stacklevel=3)
    elif note:
        _log.info(note)


def _fit(family, X, y, options, pool=None, keep_pool=False):
    """``fit``'s models, and with keep_pool what the fit decided on X (the JSON of ``--save-pooled``;
    for mi, of ``--save-mediator``); ``pool`` (such JSON, kept by a fit of training data) fits X as
    that fit decided (``--pooled-from``, ``--mediator-from``)."""
    if not isinstance(family, str):
        raise TypeError(f"family must be a string such as 'multinomial', got {type(family).__name__}")
    for name in ("output", "o", "help", "h"):
        if name in options:
            raise ValueError(f"{name} is not an option of ppk.fit: the models are returned")
    options = dict(options)
    likelihood = options.pop("likelihood", None) if family == "mi" else None
    if family == "mi" and not isinstance(likelihood, str):
        raise ValueError("ppk.fit('mi', X, likelihood=...) needs the likelihood: 'gaussian', 'multinomial' "
                         "or 'mixture'")
    examples = _examples(X, y)
    if "dim" not in options and examples.columns > 0 and not (family == "mi" and pool is not None):
        options = {"dim": examples.columns, **options}
    if family != "mi":
        return _ppk.fit(family, _option_keywords(options), examples, pool, "the training fit's pool", keep_pool, _note)
    unlabeled = options.pop("unlabeled", None)
    if isinstance(unlabeled, (str, os.PathLike)):
        options["unlabeled"], unlabeled = os.fspath(unlabeled), None
    elif unlabeled is not None:
        unlabeled = _examples(unlabeled, None)  # the mediator's data, as ppk fit mi --unlabeled reads them
    return _ppk.fit_mi(likelihood, _option_keywords(options), examples, unlabeled, pool, keep_pool)


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
    """The kernel matrix K[i, j] = k(A[i], B[j]): ``ppk gram -t KERNEL -g RHO -d T`` on the same rows.

    Parameters
    ----------
    A : Models
        The models of the rows.
    B : Models, optional
        The models of the columns (None: A against itself).
    kernel : {"ppk", "ppk_norm"}, default "ppk"
        k_rho(p, p') = integral of p^rho p'^rho (JMLR 2004, eq. 2), or normalised to k(p, p) = 1.
    rho : float, default 1.0
        The exponent, > 0: 0.5 is the Bhattacharyya kernel, 1 the expected likelihood.
    T : int, default 0
        Time steps of sequence models (0: each model's own).
    n_jobs : int, optional
        Threads (None or -1: OMP_NUM_THREADS, else every hardware thread). The matrix is the same
        bit for bit for any n_jobs; the GIL is released while it computes.

    Returns
    -------
    numpy.ndarray
        The len(A) x len(B) matrix, float64, every entry checked.

    Examples
    --------
    >>> import numpy as np
    >>> import ppk
    >>> models = ppk.Models.from_json('{"label": 1, "family": "gaussian", "mean": [0], "var": 0.5}\\n'
    ...                               '{"label": 1, "family": "gaussian", "mean": [1], "var": 0.5}\\n')
    >>> K = ppk.gram(models, kernel="ppk_norm")
    >>> float(K[0, 1]) == float(np.exp(-1 / (4 * 0.5)))   # exp(-rho |m - m'|^2 / (4 var))
    True
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
    """Combined rows from models of the same examples, one ``Models`` per kind of model.

    Model j holds ``models[i][j]`` as its part i, weighted by ``weights[i]``, with the label of
    ``models[0][j]`` (docs/families.md, combined). Its kernel is the weighted sum of the parts'
    normalised kernels, K = sum_i w_i k_i(a_i, b_i) / sqrt(k_i(a_i, a_i) k_i(b_i, b_i)); ppk_norm is
    K / sum_i w_i. It is ``ppk combine`` on the same rows, row for row.

    Parameters
    ----------
    models : list of Models
        As many models in each, with the same labels (a ValueError names models[i], the row and
        both labels otherwise): an HMM of each sequence, a multinomial of its k-mers, ...
    weights : list of float, optional
        The parts' weights: finite, >= 0 and summing to more than 0 (None: 1 each). Combine training
        and test models with the same weights.

    Returns
    -------
    Models
        The combined rows.

    Examples
    --------
    >>> import numpy as np
    >>> import ppk
    >>> counts = np.array([[3, 0, 1], [0, 2, 2]])
    >>> documents, smoothed = ppk.fit("multinomial", counts, alpha=0), ppk.fit("multinomial", counts, alpha=1)
    >>> both = ppk.combine([documents, smoothed], weights=[0.5, 0.5])
    >>> K = ppk.gram(both)
    >>> bool(np.allclose(K, 0.5 * ppk.gram(documents, kernel="ppk_norm") + 0.5 * ppk.gram(smoothed, kernel="ppk_norm")))
    True
    """
    if isinstance(models, Models) or not isinstance(models, (list, tuple)):
        raise TypeError(f"models must be a list of ppk.Models, got {type(models).__name__}")
    for i, part in enumerate(models):
        if not isinstance(part, Models):
            raise TypeError(f"models[{i}] must be ppk.Models, got {type(part).__name__}")
    return _ppk.combine(list(models), None if weights is None else _check_weights("weights", weights))


MAP_METHODS = ("exact", "sparse", "nystrom")


class FeatureMap:
    """A feature map phi of ``ppk map``, made once on training models, applied to any of their kind.

    Train and test go through one map, as ``ppk map --save-map`` / ``--map-from`` do for files
    (docs/feature-maps.md). <phi(p), phi(p')> = k(p, p'): exactly for method "exact" (multinomial of
    one event, bernoulli with D <= 20: phi_x(p) = p(x)^rho), k plus a rank-one term for "sparse"
    (smoothed multinomials), k_m(p)' K_mm^+ k_m(p') for "nystrom" (any family; m landmarks drawn from
    ``models`` as ``ppk map --map nystrom`` draws them from a file of the same rows). The map pickles
    as the text ``--save-map`` writes, which ``ppk map --map-from`` reads.

    Parameters
    ----------
    models : Models
        The training models the map is made on.
    kernel : {"ppk", "ppk_norm"}, default "ppk"
        The kernel, as ``gram``'s.
    rho : float, default 1.0
        The exponent, > 0.
    T : int, default 0
        Time steps of sequence models (0: each model's own).
    method : {"exact", "sparse", "nystrom"}, default "exact"
        The route (docs/feature-maps.md).
    landmarks : int, default 256
        nystrom: the number of landmarks m.
    landmark_choice : {"uniform", "kmeans++"}, default "uniform"
        nystrom: how they are drawn (k-means++ in the kernel's feature space, among 16 m).
    seed : int, default 1
        nystrom: the seed of the draw, in [0, 2^64).
    eigen_floor : float, default 1e-10
        nystrom: eigenvalues of K_mm below this fraction of the largest are dropped.
    n_jobs : int, optional
        Threads, as ``gram``'s; the map does not depend on it.

    Attributes
    ----------
    method, kernel, rho, T, family : the map's route, kernel, exponent, time steps and models' family
    n_features : int
        The number of features (for nystrom, the effective rank r <= landmarks).
    n_landmarks : int or None
        nystrom: m.
    eigenvalues : numpy.ndarray or None
        nystrom: the eigenvalues of K_mm, decreasing.

    Examples
    --------
    >>> import numpy as np
    >>> import ppk
    >>> train = ppk.fit("multinomial", np.array([[3, 0, 1], [0, 2, 2]]), alpha=0)
    >>> feature_map = ppk.FeatureMap(train, rho=0.5)
    >>> X = feature_map.transform(train)                           # scipy.sparse CSR
    >>> bool(np.allclose((X @ X.T).toarray(), ppk.gram(train, rho=0.5)))
    True
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
        """The map whose text ``ppk map --save-map`` or ``to_text`` wrote.

        Parameters
        ----------
        text : bytes or str
            The map's text.

        Returns
        -------
        FeatureMap
            The map, which gives the same features as the one that wrote the text.

        Examples
        --------
        >>> import numpy as np
        >>> import ppk
        >>> feature_map = ppk.FeatureMap(ppk.fit("multinomial", np.array([[1, 2], [2, 0]]), alpha=0))
        >>> ppk.FeatureMap.from_text(feature_map.to_text()).n_features
        2
        """
        if isinstance(text, str):
            text = text.encode()
        if not isinstance(text, bytes):
            raise TypeError(f"text must be bytes or str, got {type(text).__name__}")
        feature_map = cls.__new__(cls)
        feature_map._map = _ppk.FeatureMap.from_text(text)
        return feature_map

    @classmethod
    def load(cls, path):
        """The map in the file that ``ppk map --save-map MAP`` or ``save`` wrote.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        FeatureMap
            The map.

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> import ppk
        >>> feature_map = ppk.FeatureMap(ppk.fit("multinomial", np.array([[1, 2], [2, 0]]), alpha=0))
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     feature_map.save(os.path.join(directory, "train.map"))
        ...     ppk.FeatureMap.load(os.path.join(directory, "train.map")).method
        'exact'
        """
        with open(path, "rb") as file:
            return cls.from_text(file.read())

    def to_text(self):
        """The map as ``ppk map --save-map`` writes it.

        Returns
        -------
        bytes
            The text, every number in the fewest digits that read back as the same double, so that a
            map read back gives the same features.

        Examples
        --------
        >>> import numpy as np
        >>> import ppk
        >>> feature_map = ppk.FeatureMap(ppk.fit("multinomial", np.array([[1, 2], [2, 0]]), alpha=0))
        >>> ppk.FeatureMap.from_text(feature_map.to_text()).to_text() == feature_map.to_text()
        True
        """
        return self._map.to_text()

    def save(self, path):
        """Writes ``to_text()`` to a file, for ``ppk map --map-from``.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> import ppk
        >>> feature_map = ppk.FeatureMap(ppk.fit("multinomial", np.array([[1, 2], [2, 0]]), alpha=0))
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     feature_map.save(os.path.join(directory, "train.map"))
        ...     open(os.path.join(directory, "train.map"), "rb").read() == feature_map.to_text()
        True
        """
        with open(path, "wb") as file:
            file.write(self.to_text())

    def __getstate__(self):
        return {"text": self.to_text()}

    def __setstate__(self, state):
        self._map = _ppk.FeatureMap.from_text(state["text"])

    method = property(lambda self: self._map.route, doc="'exact', 'sparse' or 'nystrom'")
    kernel = property(lambda self: self._map.kernel, doc="'ppk' or 'ppk_norm'")
    rho = property(lambda self: self._map.rho, doc="the exponent rho")
    T = property(lambda self: self._map.T, doc="time steps of sequence models (0: each model's own)")
    family = property(lambda self: self._map.family, doc="the family of the models it maps")
    n_features = property(lambda self: self._map.dimension,
                          doc="the number of features (for nystrom, the effective rank r <= landmarks)")
    n_landmarks = property(lambda self: self._map.landmark_count, doc="nystrom: m (else None)")
    eigenvalues = property(lambda self: None if self._map.eigenvalues is None else np.array(self._map.eigenvalues),
                           doc="nystrom: the eigenvalues of K_mm, decreasing (else None)")

    def transform(self, models, sparse_output=None, n_jobs=None):
        """phi of every model, one row each, as ``ppk map --map-from`` writes them.

        Parameters
        ----------
        models : Models
            Models of the map's family and sample space (others are a ValueError naming the row).
        sparse_output : bool, optional
            A scipy.sparse CSR matrix (True) or a dense array (False); None: CSR for the exact and
            sparse methods (a maximum-likelihood document has features on its own words only), dense
            for nystrom (every feature is nonzero).
        n_jobs : int, optional
            Threads; the features do not depend on it. The GIL is released while it maps.

        Returns
        -------
        scipy.sparse.csr_matrix or numpy.ndarray
            len(models) x n_features, float64; the labels are ``models.labels``.

        Examples
        --------
        >>> import numpy as np
        >>> import ppk
        >>> train = ppk.fit("multinomial", np.array([[1, 3], [2, 2]]), alpha=0)
        >>> ppk.FeatureMap(train, rho=0.5).transform(train, sparse_output=False) ** 2   # p(x)^(2 rho)
        array([[0.25, 0.75],
               [0.5 , 0.5 ]])
        """
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
    """The feature vectors of models: ``ppk map -t KERNEL -g RHO -d T --map METHOD`` on the same rows.

    It is ``FeatureMap(models, ...).transform(models)``; to map other models (test data) through the
    same map, keep the ``FeatureMap``. Not in ``__all__``: ``from ppk import *`` keeps the builtin map.

    Parameters
    ----------
    models : Models
        The models to map (and to make the map on).
    kernel, rho, T, method, landmarks, landmark_choice, seed, eigen_floor, n_jobs
        As ``FeatureMap``'s.
    sparse_output : bool, optional
        As ``FeatureMap.transform``'s.

    Returns
    -------
    scipy.sparse.csr_matrix or numpy.ndarray
        One row of features per model, value for value those of ``ppk map``, for any n_jobs.

    Examples
    --------
    >>> import numpy as np
    >>> import ppk
    >>> models = ppk.fit("multinomial", np.array([[1, 3], [2, 2]]), alpha=0)
    >>> ppk.map(models, rho=1.0, sparse_output=False)   # p(x)^rho
    array([[0.25, 0.75],
           [0.5 , 0.5 ]])
    """
    feature_map = FeatureMap(models, kernel=kernel, rho=rho, T=T, method=method, landmarks=landmarks,
                             landmark_choice=landmark_choice, seed=seed, eigen_floor=eigen_floor, n_jobs=n_jobs)
    return feature_map.transform(models, sparse_output=sparse_output, n_jobs=n_jobs)
