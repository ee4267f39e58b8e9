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
from ._inputs import fitted_models, input_tags


class PPKFeatures(TransformerMixin, BaseEstimator):
    """The features phi(p) of each example's model p, <phi(p), phi(p')> = k(p, p') (exactly, or
    approximately by route; docs/feature-maps.md).

    family, fit_options: ``ppk.fit(family, X, **fit_options)`` gives the models (X as in
    ppk._inputs: 2-D data, a list of arrays, or ``ppk.Models``). kernel, rho, T, landmarks,
    landmark_choice, eigen_floor, n_jobs: as ``ppk.FeatureMap``. method:

    * "auto" (default): the route ``ppk map`` takes without ``--map`` on the training models, by the
      same code, when it maps every one of them: "exact" (k itself, to rounding) for maximum-likelihood
      multinomials, bernoulli with D <= 20 and smoothed multinomials whose dense exact map is less than
      4 times the sparse map's features; "sparse" (k plus a bounded rank-one term) for smoothed
      multinomials from 4 times on (``ppk.fit``'s default smoothing over a large vocabulary) and over a
      pooled base; else "nystrom" (every family);
    * "exact", "sparse" or "nystrom": that route.

    random_state: the Nystrom map's seed (``ppk map --seed``): a whole number is the seed itself,
    None or a numpy RandomState draws one (None: numpy's global random state, as scikit-learn does).

    Attributes after fit: ``feature_map_`` (the ppk.FeatureMap), ``method_`` (the route used),
    ``fit_pool_`` (what the fit chose on the training examples, applied to the examples transform
    fits: ppk._inputs), ``n_features_in_`` (for 2-D data). transform gives a scipy.sparse CSR matrix for the exact and
    sparse routes and a dense numpy array for nystrom (FeatureMap.transform).
    """

    def __init__(self, family="multinomial", fit_options=None, kernel="ppk", rho=1.0, T=0, method="auto",
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
        """Fits one model per example of X and makes the map of those models; y is not used."""
        if not (isinstance(self.method, str) and (self.method == "auto" or self.method in MAP_METHODS)):
            raise ValueError(f"method must be 'auto', 'exact', 'sparse' or 'nystrom', got {self.method!r}")
        models = fitted_models(self, X, reset=True)
        _check_kernel_arguments(self.kernel, self.rho, self.T, self.n_jobs)
        method = self.method
        if method == "auto":
            method = _ppk.auto_route(models, self.kernel, float(self.rho), int(self.T), _jobs(self.n_jobs))
        self.feature_map_ = FeatureMap(models, kernel=self.kernel, rho=self.rho, T=self.T, method=method,
                                       landmarks=self.landmarks, landmark_choice=self.landmark_choice,
                                       seed=self._seed() if method == "nystrom" else 1,
                                       eigen_floor=self.eigen_floor, n_jobs=self.n_jobs)
        self.method_ = method
        return self

    def transform(self, X):
        """The features of X's examples through the fitted map, one row each."""
        check_is_fitted(self, "feature_map_")
        return self.feature_map_.transform(fitted_models(self, X, reset=False), n_jobs=self.n_jobs)

    def _more_tags(self):
        return input_tags(self)
