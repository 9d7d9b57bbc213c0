"""Shared fixtures of the test suite.

The suite mirrors the package: ``tests/kernel`` the math of
``skcalib/_kernel``, ``tests/metrics`` (and ``tests/metrics/plot``) the
metrics and displays, ``tests/cli``, ``tests/datasets``, ``tests/dask`` and
``tests/utils`` their packages, and the files at this level the estimators
of the package root and the project-wide checks (docs, examples, imports,
scikit-learn's common checks). This folder is on ``sys.path`` (pytest puts a
root ``conftest.py``'s folder there), so every test file can import the
shared helpers of ``_sklearn_checks.py``, ``_scores.py`` and
``_calibrators.py``.

Fixtures
--------
make_scores
    The one factory of random trials, :func:`_scores.make_scores` (session
    scoped, so that hypothesis tests may take it too).
calibrator
    An unfitted copy of each calibrator of the one list,
    :data:`_calibrators.CALIBRATORS` (parametrized over the list).
"""

import pytest
from _calibrators import CALIBRATORS
from _scores import make_scores as _make_scores
from sklearn.base import clone


@pytest.fixture(scope="session")
def make_scores():
    """The suite's factory of random trials (see ``tests/_scores.py``)."""
    return _make_scores


@pytest.fixture(params=CALIBRATORS, ids=repr)
def calibrator(request):
    """An unfitted copy of each calibrator of ``tests/_calibrators.py``."""
    return clone(request.param.estimator)
