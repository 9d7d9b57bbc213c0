"""The one module that imports scikit-learn's private API.

Everything skcalib needs from ``sklearn.utils._*`` goes through here, so a
scikit-learn release that moves a helper breaks one file, not the package.
"""

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    Options,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from sklearn.utils._tags import ClassifierTags
from sklearn.utils.validation import _check_method_params
from sklearn.utils.validation import validate_data as _sklearn_validate_data

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
    "validate_parameter_constraints",
    "validate_params",
]


def validate_data(*args, **kwargs):
    """scikit-learn's ``validate_data``, without its warning on huge values.

    Its finiteness check first sums the array with only overflow silenced:
    scores of +1.7e308 and -1.7e308 in one array make that sum ``inf - inf``
    and leak "invalid value encountered in reduce" before the exact check
    (which then accepts them) runs.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _sklearn_validate_data(*args, **kwargs)
