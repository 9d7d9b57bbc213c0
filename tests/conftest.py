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
full_disk_for, command_bootstrap
    The command line's: figures that fail on a full disk, and the bootstrap
    of a report's metrics on the trials ``evaluate`` returned.

There is one ``conftest.py``: pytest's doctest collection imports each as a
module named ``conftest``, so a second one in a sub-folder would clash.
"""

import errno
import os

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


@pytest.fixture
def full_disk_for(monkeypatch):
    """``full_disk_for(suffix)``: figures whose path ends with ``suffix``
    fail at writing time with a full disk, the others are written."""
    from skcalib._cli import _output

    original = _output.save_figure

    def install(suffix):
        def save(fig, path):
            if path.endswith(suffix):
                with _output.atomic_output(path, "wb"):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            original(fig, path)

        monkeypatch.setattr(_output, "save_figure", save)

    return install


@pytest.fixture
def command_bootstrap():
    """``command_bootstrap(result, report, n_resamples)``: the intervals of
    ``report``'s bootstrapped metrics on ``result.trials`` (what ``skcalib
    evaluate --ci`` returned in ``result``, random_state 0) and the trials
    every metric was computed on (the data's and each resample's)."""
    from skcalib._cli._output import report_metrics
    from skcalib.metrics import bootstrap_ci

    def run(result, report, n_resamples):
        seen = []

        def watched(method):
            def statistic(t):
                seen.append(t)
                return method(t, result.app)

            return statistic

        metrics = [m for m in report_metrics(report) if m.bootstrap]
        res = bootstrap_ci(
            [watched(m.method) for m in metrics],
            result.trials,
            n_resamples=n_resamples,
            random_state=0,
        )
        intervals = {
            m.key: tuple(float(v) for v in r.confidence_interval)
            for m, r in zip(metrics, res, strict=True)
        }
        return intervals, seen

    return run
