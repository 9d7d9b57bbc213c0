"""The suite's one list of calibrators.

Each public calibrator of skcalib, in every configuration some test runs,
once, with the tags that say which tests run it. A test file takes its
calibrators from here (``calibrators("pav")``) or through the ``calibrator``
fixture of ``conftest.py`` (every entry), never from a list of its own: a new
calibrator, or a new configuration, is added in one place.

Tags
----
common
    scikit-learn's common checks of a one-column calibrator
    (tests/test_common.py).
columns
    scikit-learn's common checks of an affine model of several score columns
    (tests/test_common.py, its own expected failures).
pav
    the PAV calibrators' shared contract (tests/test_pav_calibrators.py).
one_vs_rest
    the binary calibrators that CalibratedClassifier and ScoreTransformer
    tests run over (one per class in the multiclass tests).
unit_free
    posteriors that do not depend on the units of the scores
    (tests/test_units.py).
multiclass
    natively multiclass (one score column per class).
"""

from dataclasses import dataclass

from sklearn.base import clone

from skcalib import (
    AutoCalibrator,
    BetaCalibrator,
    BoundedCalibrator,
    MulticlassAffineCalibrator,
    PAVCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ProperScoringAffineCalibrator,
    ProperScoringFusion,
    QuadraticCalibrator,
    VennAbersCalibrator,
)

__all__ = ["CALIBRATORS", "calibrator_classes", "calibrators", "sklearn_method"]


@dataclass(frozen=True)
class Entry:
    """One calibrator configuration and the tests that run it."""

    estimator: object
    tags: frozenset = frozenset()
    #: ``CalibratedClassifierCV``'s ``method`` that this calibrator stands in
    #: for (tests/test_sklearn_calibration_suite.py)
    sklearn_method: str | None = None

    def __repr__(self):
        return repr(self.estimator)


def _entry(estimator, *tags, sklearn_method=None):
    return Entry(estimator, frozenset(tags), sklearn_method)


CALIBRATORS = [
    _entry(
        PAVCalibrator(),
        "common",
        "pav",
        "one_vs_rest",
        "unit_free",
        sklearn_method="isotonic",
    ),
    _entry(PAVLLRCalibrator(), "common", "pav", "one_vs_rest", "unit_free"),
    _entry(PAVCalibrator(strict=True, interpolation="step"), "common"),
    _entry(PAVLLRCalibrator(extremes="bound", strict=True), "common"),
    _entry(PAVLLRCalibrator(extremes="elub"), "common"),
    _entry(PAVCalibrator(extremes="invariance"), "common"),
    _entry(BoundedCalibrator(), "common"),
    _entry(BoundedCalibrator(PAVLLRCalibrator(), bounds="invariance"), "common"),
    _entry(VennAbersCalibrator(), "common", "unit_free"),
    _entry(BetaCalibrator(), "common"),
    _entry(
        BetaCalibrator(alpha=2, beta=2, p_target=0.2, input_scale="log_odds"),
        "common",
    ),
    _entry(QuadraticCalibrator(), "common"),
    _entry(QuadraticCalibrator(l2=0.01, p_target=0.3), "common"),
    _entry(AutoCalibrator(), "common"),
    _entry(PlattCalibrator(), "one_vs_rest", "unit_free", sklearn_method="sigmoid"),
    _entry(ProperScoringAffineCalibrator(), "one_vs_rest", "unit_free"),
    _entry(
        ProperScoringAffineCalibrator(alpha=2, beta=1, p_target=0.1, l2=1e-2),
        "unit_free",
    ),
    _entry(ProperScoringFusion(), "columns"),
    _entry(ProperScoringFusion(l2=0), "columns"),
    _entry(ProperScoringFusion(alpha=2, beta=2, p_target=0.1, l2=0.01), "columns"),
    _entry(MulticlassAffineCalibrator(), "columns", "multiclass"),
    _entry(MulticlassAffineCalibrator(l2=0.01), "columns", "multiclass"),
    _entry(
        MulticlassAffineCalibrator(kind="temperature"),
        "multiclass",
        sklearn_method="temperature",
    ),
]


def _entries(tag):
    return [e for e in CALIBRATORS if tag is None or tag in e.tags]


def calibrators(tag=None):
    """Unfitted copies of the calibrators with ``tag`` (all if None)."""
    return [clone(e.estimator) for e in _entries(tag)]


def calibrator_classes(tag):
    """The classes of the calibrators with ``tag``, each once, in list order."""
    return list(dict.fromkeys(type(e.estimator) for e in _entries(tag)))


def sklearn_method(method):
    """An unfitted copy of the calibrator standing in for scikit-learn's
    ``CalibratedClassifierCV(method=method)``."""
    (entry,) = [e for e in CALIBRATORS if e.sklearn_method == method]
    return clone(entry.estimator)
