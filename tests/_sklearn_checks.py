"""scikit-learn's ``parametrize_with_checks`` for every version skcalib allows.

scikit-learn 1.7 to 1.9.0 hand ``pytest.mark.parametrize`` a generator of
checks; pytest 9 deprecates non-Collection argument values, and the suite
turns that warning into an error, so those versions fail to collect. This
wrapper gives pytest the same checks as a list.
"""

import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils.estimator_checks import (
    parametrize_with_checks as _sklearn_parametrize_with_checks,
)

__all__ = ["needs_sklearn_temperature", "parametrize_with_checks"]


def parametrize_with_checks(estimators, **kwargs):
    """``sklearn.utils.estimator_checks.parametrize_with_checks``, checks listed."""
    mark = _sklearn_parametrize_with_checks(estimators, **kwargs).mark
    argnames, argvalues, *rest = mark.args
    return pytest.mark.parametrize(argnames, list(argvalues), *rest, **mark.kwargs)


def _has_temperature_scaling():
    try:
        CalibratedClassifierCV(method="temperature")._validate_params()
    except ValueError:  # InvalidParameterError
        return False
    return True


#: Tests comparing with ``CalibratedClassifierCV(method='temperature')``,
#: which scikit-learn has since 1.8.
needs_sklearn_temperature = pytest.mark.skipif(
    not _has_temperature_scaling(),
    reason="CalibratedClassifierCV(method='temperature') needs scikit-learn >= 1.8",
)
