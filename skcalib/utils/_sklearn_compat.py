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

try:  # the HTML display's block (scikit-learn >= 1.6: utils._repr_html)
    from sklearn.utils._repr_html.estimator import _VisualBlock
except ImportError:  # pragma: no cover - older layout
    from sklearn.utils._estimator_html_repr import _VisualBlock

__all__ = [
    "_check_method_params",
    "_fit_context",
    "_safe_indexing",
    "_VisualBlock",
    "ClassifierTags",
    "HasMethods",
    "Hidden",
    "Interval",
    "Options",
    "StrOptions",
    "validate_data",
    "validate_params",
]
