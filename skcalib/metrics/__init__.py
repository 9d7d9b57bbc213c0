"""Evaluation of binary scores and LLRs: discrimination and calibration.

Proper scoring rules on LLRs (:func:`cllr`, :func:`brier_loss`,
:func:`beta_rule_loss`), detection costs (:func:`actual_dcf`,
:func:`min_dcf`, :func:`bayes_error_curve`), the ROC convex hull
(:func:`rocch`, :func:`eer`), the minimum Cllr, multiclass Bayes decisions
and their risk, multiclass Cllr and Brier loss (:func:`multiclass_cllr`,
:func:`multiclass_brier_loss`), the binned ECE (binary, top-label and
classwise) and reliability curves with intervals, and scorers for model
selection (:func:`get_scorer`).

All binary metrics go through :class:`ScoredTrials`, which validates the
trials once and holds one PAV block summary of the scores
(:func:`skcalib._kernel._pav.pav_blocks`): one sort plus linear passes for every
minimum metric at any number of applications (:class:`Application`).
"""

from ._application import Application
from ._bayes import bayes_decisions, empirical_bayes_risk
from ._bootstrap import bootstrap_ci
from ._dcf import actual_dcf, bayes_error_curve, min_dcf
from ._ece import (
    classwise_calibration_error,
    expected_calibration_error,
    top_label_calibration_error,
)
from ._forensic import (
    cllr_cal,
    devpav,
    elub_bounds,
    expected_likelihood_ratios,
    invariance_bounds,
    misleading_evidence_rates,
)
from ._multiclass import multiclass_brier_loss, multiclass_cllr
from ._plot import (
    BayesErrorDisplay,
    CalibrationTransformDisplay,
    DETDisplay,
    ECEDisplay,
    ReliabilityDisplay,
    ROCConvexHullDisplay,
    TippettDisplay,
    empirical_cross_entropy,
)
from ._reliability import reliability_curve
from ._roc import eer, rocch
from ._scorer import get_scorer, get_scorer_names
from ._scoring_rules import beta_rule_loss, brier_loss, cllr, min_cllr
from ._trials import ScoredTrials

__all__ = [
    "Application",
    "ScoredTrials",
    "actual_dcf",
    "bayes_decisions",
    "bayes_error_curve",
    "bootstrap_ci",
    "beta_rule_loss",
    "brier_loss",
    "classwise_calibration_error",
    "cllr",
    "cllr_cal",
    "devpav",
    "eer",
    "elub_bounds",
    "empirical_bayes_risk",
    "empirical_cross_entropy",
    "expected_calibration_error",
    "expected_likelihood_ratios",
    "invariance_bounds",
    "get_scorer",
    "get_scorer_names",
    "min_cllr",
    "min_dcf",
    "misleading_evidence_rates",
    "multiclass_brier_loss",
    "multiclass_cllr",
    "reliability_curve",
    "rocch",
    "top_label_calibration_error",
    "BayesErrorDisplay",
    "CalibrationTransformDisplay",
    "DETDisplay",
    "ECEDisplay",
    "ReliabilityDisplay",
    "ROCConvexHullDisplay",
    "TippettDisplay",
]
