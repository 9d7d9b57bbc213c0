"""The one module that imports scikit-learn's private API.

Everything skcalib needs from ``sklearn.utils._*`` goes through here, so a
scikit-learn release that moves a helper breaks one file, not the package.
"""

from sklearn.base import _fit_context
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    Options,
    StrOptions,
    validate_params,
)
from sklearn.utils._tags import ClassifierTags
from sklearn.utils.validation import _check_method_params, validate_data

__all__ = [
    "_check_method_params",
    "_fit_context",
    "_safe_indexing",
    "ClassifierTags",
    "HasMethods",
    "Hidden",
    "Interval",
    "Options",
    "StrOptions",
    "validate_data",
    "validate_params",
]
