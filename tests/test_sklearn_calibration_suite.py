"""scikit-learn's own calibration tests, run against CalibratedClassifier.

The upstream test functions of the installed scikit-learn
(``sklearn/tests/test_calibration.py``) are imported and run with
``CalibratedClassifierCV`` replaced by an adapter that builds the matching
:class:`~skcalib.CalibratedClassifier`: ``method='sigmoid'`` ->
:class:`~skcalib.PlattCalibrator`, ``'isotonic'`` ->
:class:`~skcalib.PAVCalibrator`, ``'temperature'`` ->
``MulticlassAffineCalibrator(kind='temperature')``. A test that the
installed scikit-learn does not have is skipped.
"""

import pytest
from _calibrators import sklearn_method
from sklearn.base import BaseEstimator
from sklearn.frozen import FrozenEstimator

from skcalib import (
    CalibratedClassifier,
    MulticlassAffineCalibrator,
)

upstream = pytest.importorskip("sklearn.tests.test_calibration")


class _CalibratorView(BaseEstimator):
    """One fitted calibrator as the upstream tests inspect it (``beta_``)."""

    def __init__(self, calibrator=None):
        self.calibrator = calibrator
        self.calibrator_ = calibrator
        if isinstance(calibrator, MulticlassAffineCalibrator):
            # scikit-learn scales the two-class logits (-x, x), skcalib (-x/2, x/2)
            scale = 0.5 if calibrator.classes_.shape[0] == 2 else 1.0
            self.beta_ = scale * float(calibrator.coef_[0, 0])

    def fit(self, X, y):  # pragma: no cover - check_is_fitted needs the method
        raise NotImplementedError


class _PairView:
    """A (classifier, calibration) pair as ``calibrated_classifiers_[i]``."""

    def __init__(self, pair, calibration):
        self.estimator = pair.estimator
        cals = calibration if isinstance(calibration, list) else [calibration]
        self.calibrators = [_CalibratorView(c) for c in cals]
        self.predict_proba = pair.predict_proba


class CalibratedClassifierCVAdapter:
    """``CalibratedClassifierCV``'s constructor over ``CalibratedClassifier``."""

    def __init__(
        self, estimator=None, *, method="sigmoid", cv=None, n_jobs=None, ensemble="auto"
    ):
        if ensemble == "auto":
            ensemble = not isinstance(estimator, FrozenEstimator)
        self.model_ = CalibratedClassifier(
            estimator,
            sklearn_method(method),
            cv=5 if cv is None else cv,
            ensemble=ensemble,
            n_jobs=n_jobs,
        )

    def fit(self, X, y, sample_weight=None, **fit_params):
        self.model_.fit(X, y, sample_weight=sample_weight, **fit_params)
        self.classes_ = self.model_.classes_
        self.calibrated_classifiers_ = [
            _PairView(pair, cal)
            for pair, cal in zip(
                self.model_.calibrated_classifiers_,
                self.model_.calibrators_,
                strict=True,
            )
        ]
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    def predict(self, X):
        return self.model_.predict(X)

    def score(self, X, y):
        return self.model_.score(X, y)


@pytest.fixture
def adapted(monkeypatch):
    """Run an upstream test with the adapter in place of CalibratedClassifierCV."""

    def run(name, **params):
        test = getattr(upstream, name, None)
        if test is None:
            pytest.skip(f"the installed scikit-learn has no {name}")
        monkeypatch.setattr(
            upstream, "CalibratedClassifierCV", CalibratedClassifierCVAdapter
        )
        test(**params)

    return run


# the upstream test's LinearSVC stops at its iteration limit (not ours to fix)
@pytest.mark.filterwarnings("ignore:Liblinear failed to converge")
# its random forest of 30 trees on 250 samples has many probabilities of 0/1
@pytest.mark.filterwarnings("ignore:.*predict_proba of exactly 0 or 1")
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("seed", [0])  # upstream runs 2 seeds; 1 keeps us fast
def test_calibration_multiclass(adapted, method, ensemble, seed):
    adapted("test_calibration_multiclass", method=method, ensemble=ensemble, seed=seed)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("ensemble", [True, False])
def test_temperature_scaling(adapted, n_classes, ensemble):
    adapted("test_temperature_scaling", n_classes=n_classes, ensemble=ensemble)


# A decision tree on 12 samples scores each 4-sample test fold with 0/1
# probabilities: Platt rightly warns that a fold's scores are all equal.
@pytest.mark.filterwarnings("ignore:PlattCalibrator. all training scores")
@pytest.mark.filterwarnings("ignore:.*predict_proba of exactly 0 or 1")
@pytest.mark.parametrize("ensemble", [True, False])
def test_calibration_less_classes(adapted, ensemble):
    adapted("test_calibration_less_classes", ensemble=ensemble)
