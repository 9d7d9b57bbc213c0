"""scikit-learn's common estimator checks over every skcalib estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from skcalib import PAVCalibrator, PAVLLRCalibrator

CALIBRATORS = [
    PAVCalibrator(),
    PAVLLRCalibrator(),
    PAVCalibrator(strict=True, interpolation="step"),
    PAVLLRCalibrator(extremes="bound", strict=True),
]

# Accepting a vector of scores is the natural interface (SPEC §3).
EXPECTED_FAILED = {
    "check_fit1d": "1-D X is accepted: a vector of scores is one column (SPEC §3)"
}

MIN_CHECKS_PER_ESTIMATOR = 40


def _expected_failed(estimator):
    return EXPECTED_FAILED


@parametrize_with_checks(CALIBRATORS, expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _n_checks(estimator):
    decorator = parametrize_with_checks(
        [estimator], expected_failed_checks=_expected_failed
    )
    return len(decorator.mark.args[1])


@pytest.mark.parametrize("estimator", CALIBRATORS, ids=repr)
def test_common_checks_are_not_vacuous(estimator):
    assert _n_checks(estimator) >= MIN_CHECKS_PER_ESTIMATOR
