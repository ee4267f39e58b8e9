"""scikit-learn estimators over probability product kernels (docs/python.md)."""

from ._features import PPKFeatures

__all__ = ["PPKFeatures"]
