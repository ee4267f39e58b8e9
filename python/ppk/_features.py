"""ppk.sklearn.PPKFeatures: the feature maps of ``ppk map`` as a scikit-learn transformer, so that a
linear model on the features stands in for the kernel SVM when there are too many examples for one:

    make_pipeline(PPKFeatures(fit_options={"alpha": 0}, rho=0.5), LinearSVC())

fit makes one map on the training examples (``ppk map --save-map``), transform sends any examples
through it (``--map-from``). See docs/python.md, "Feature maps".
"""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from . import MAP_METHODS, FeatureMap, _check_kernel_arguments, _jobs, _ppk
from ._inputs import InputTags, fitted_models, resolved_kernel


class PPKFeatures(InputTags, TransformerMixin, BaseEstimator):
    """The features phi(p) of each example's model p, <phi(p), phi(p')> = k(p, p'), as a transformer.

    Exactly or approximately by route (docs/feature-maps.md): a linear model on the features stands in
    for the kernel SVM when there are too many examples for one. ``fit`` makes one map on the training
    examples (``ppk map --save-map``), ``transform`` sends any examples through it (``--map-from``),
    fitted with what the fit chose on the training examples.

    Parameters
    ----------
    family : str, default "multinomial"
        ``ppk fit``'s family of the models.
    fit_options : dict, optional
        ``ppk fit FAMILY``'s options, as PPKSVC's (the same Gaussian default on 2-D data).
    kernel : {"auto", "ppk", "ppk_norm"}, default "auto"
        As PPKSVC's ("auto": "ppk_norm" when the fit chose the examples' variance, else "ppk").
    rho : float, default 1.0
        The exponent, > 0.
    T : int, default 0
        Time steps of sequence models (0: each model's own).
    method : {"auto", "exact", "sparse", "nystrom"}, default "auto"
        "auto" is the route ``ppk map`` takes without ``--map`` on the training models, when it maps
        every one of them: "exact" (k itself, to rounding) for maximum-likelihood multinomials,
        bernoulli with D <= 20 and smoothed multinomials whose dense exact map has less than 4 times
        the sparse map's features; "sparse" (k plus a bounded rank-one term) for smoothed
        multinomials from 4 times on and over a pooled base; else "nystrom" (every family).
    landmarks, landmark_choice, eigen_floor, n_jobs
        As ``ppk.FeatureMap``'s.
    random_state : int or numpy.random.RandomState, optional
        The Nystrom map's seed (``ppk map --seed``): a whole number is the seed itself, None or a
        RandomState draws one (None: numpy's global random state, as scikit-learn does).

    Attributes
    ----------
    feature_map_ : ppk.FeatureMap
        The map.
    method_ : str
        The route used.
    fit_pool_ : bytes or None
        What the fit chose on the training examples, applied to the examples transform fits.
    fit_defaults_ : dict
        The options the fit added on the training data (the Gaussian's variance).
    n_features_in_ : int
        The number of columns of 2-D X.

    Examples
    --------
    >>> import numpy as np
    >>> from ppk.sklearn import PPKFeatures
    >>> counts = np.array([[3, 0, 1], [0, 2, 2], [1, 1, 0]])
    >>> features = PPKFeatures(fit_options={"alpha": 0}, rho=0.5).fit(counts)
    >>> features.method_, features.transform(counts).shape
    ('exact', (3, 3))
    """

    def __init__(self, family="multinomial", fit_options=None, kernel="auto", rho=1.0, T=0, method="auto",
                 landmarks=256, landmark_choice="uniform", random_state=None, eigen_floor=1e-10, n_jobs=None):
        self.family = family
        self.fit_options = fit_options
        self.kernel = kernel
        self.rho = rho
        self.T = T
        self.method = method
        self.landmarks = landmarks
        self.landmark_choice = landmark_choice
        self.random_state = random_state
        self.eigen_floor = eigen_floor
        self.n_jobs = n_jobs

    def _seed(self):
        """The Nystrom seed of random_state: a whole number as it is, else drawn from it."""
        if isinstance(self.random_state, numbers.Integral) and not isinstance(self.random_state, bool):
            return int(self.random_state)
        return int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))

    def fit(self, X, y=None):
        """Fits one model per example of X and makes the map of those models.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The training examples.
        y : None
            Not used.

        Returns
        -------
        PPKFeatures
            self.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKFeatures
        >>> PPKFeatures(fit_options={"alpha": 0}).fit(np.array([[3, 0, 1], [0, 2, 2]])).feature_map_.n_features
        3
        """
        if not (isinstance(self.method, str) and (self.method == "auto" or self.method in MAP_METHODS)):
            raise ValueError(f"method must be 'auto', 'exact', 'sparse' or 'nystrom', got {self.method!r}")
        models = fitted_models(self, X, reset=True)
        _check_kernel_arguments(self.kernel, self.rho, self.T, self.n_jobs)
        kernel = resolved_kernel(self)
        method = self.method
        if method == "auto":
            method = _ppk.auto_route(models, kernel, float(self.rho), int(self.T), _jobs(self.n_jobs))
        self.feature_map_ = FeatureMap(models, kernel=kernel, rho=self.rho, T=self.T, method=method,
                                       landmarks=self.landmarks, landmark_choice=self.landmark_choice,
                                       seed=self._seed() if method == "nystrom" else 1,
                                       eigen_floor=self.eigen_floor, n_jobs=self.n_jobs)
        self.method_ = method
        return self

    def transform(self, X):
        """The features of X's examples through the fitted map, one row each.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, list of numpy.ndarray or ppk.Models
            The examples, fitted with what the fit chose on the training examples.

        Returns
        -------
        scipy.sparse.csr_matrix or numpy.ndarray
            CSR for the exact and sparse routes, dense for nystrom.

        Examples
        --------
        >>> import numpy as np
        >>> from ppk.sklearn import PPKFeatures
        >>> features = PPKFeatures(fit_options={"alpha": 0}).fit(np.array([[3, 0, 1], [0, 2, 2]]))
        >>> features.transform(np.array([[1, 0, 1]])).toarray()      # p(x)^rho at rho = 1
        array([[0.5, 0. , 0.5]])
        """
        check_is_fitted(self, "feature_map_")
        return self.feature_map_.transform(fitted_models(self, X, reset=False), n_jobs=self.n_jobs)
