"""Scorers for model selection (``GridSearchCV(scoring=...)``, ``cross_validate``).

What each scorer reads from the estimator
-----------------------------------------
* LLR metrics (``cllr``, ``brier_loss``, ``beta_rule_loss``, ``actual_dcf``,
  and the calibration losses ``cllr_cal`` and ``devpav``) read
  ``decision_function``, which every skcalib calibrator and
  ``CalibratedClassifier`` define as the calibrated natural-log LLR in favour
  of ``classes_[1]``. Giving them the raw ``decision_function`` of an
  uncalibrated classifier measures that classifier's (mis)calibration as LLRs.
* Minimum metrics (``min_cllr``, ``min_dcf``, ``eer``) only use the order of
  the scores: ``decision_function`` if the estimator has one, else the
  positive-class column of ``predict_proba``.
* ``expected_calibration_error`` reads ``predict_proba``.
* Multiclass metrics (``multiclass_cllr``, ``multiclass_brier_loss``,
  ``top_label_calibration_error``, ``classwise_calibration_error``,
  ``empirical_bayes_risk``) read all the columns of ``predict_proba``, labelled
  by the estimator's ``classes_``; the risk is that of the Bayes decisions on
  them under ``cost_matrix``.

The positive (target) class is ``pos_label`` if given to :func:`get_scorer`,
else the estimator's ``classes_[1]``; for ``pos_label == classes_[0]`` the
LLRs are negated (the LLR of the other class) and the other probability
column is used.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..utils._response import (
    binary_response,
    pos_label_is_first,
    resolve_response_method,
)
from ._bayes import empirical_bayes_risk
from ._dcf import actual_dcf, min_dcf
from ._ece import (
    classwise_calibration_error,
    expected_calibration_error,
    top_label_calibration_error,
)
from ._forensic import cllr_cal, devpav
from ._multiclass import multiclass_brier_loss, multiclass_cllr
from ._roc import eer
from ._scoring_rules import beta_rule_loss, brier_loss, cllr, min_cllr

__all__ = ["get_scorer", "get_scorer_names"]

# name -> (metric, response, required parameters)
_SCORERS = {
    "neg_cllr": (cllr, "llr", ()),
    "neg_min_cllr": (min_cllr, "score", ()),
    "neg_cllr_cal": (cllr_cal, "llr", ()),
    "neg_devpav": (devpav, "llr", ()),
    "neg_brier_loss": (brier_loss, "llr", ()),
    "neg_beta_rule_loss": (beta_rule_loss, "llr", ("alpha", "beta")),
    "neg_actual_dcf": (actual_dcf, "llr", ("p_target",)),
    "neg_min_dcf": (min_dcf, "score", ("p_target",)),
    "neg_eer": (eer, "score", ()),
    "neg_expected_calibration_error": (expected_calibration_error, "proba", ()),
    "neg_multiclass_cllr": (multiclass_cllr, "class_proba", ()),
    "neg_multiclass_brier_loss": (multiclass_brier_loss, "class_proba", ()),
    "neg_top_label_calibration_error": (
        top_label_calibration_error,
        "class_proba",
        (),
    ),
    "neg_classwise_calibration_error": (
        classwise_calibration_error,
        "class_proba",
        (),
    ),
    "neg_empirical_bayes_risk": (empirical_bayes_risk, "class_proba", ("cost_matrix",)),
}


def _binary_classes(estimator):
    classes = getattr(estimator, "classes_", None)
    if classes is not None and len(classes) != 2:
        raise ValueError(
            f"skcalib scorers are for binary problems; {type(estimator).__name__} "
            f"has {len(classes)} classes."
        )
    return classes


class _CalibrationScorer:
    """A scikit-learn scorer (callable ``(estimator, X, y) -> float``).

    Greater is better: losses are negated.
    """

    def __init__(self, name, score_func, response, kwargs):
        self._name = name
        self._score_func = score_func
        self._response = response
        self._kwargs = kwargs

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        return f"get_scorer({self._name!r}{args})"

    def _response_values(self, estimator, X, pos_label, classes):
        flip = pos_label_is_first(classes, pos_label)
        name = type(estimator).__name__
        if self._response == "llr":
            if not hasattr(estimator, "decision_function"):
                raise ValueError(
                    f"The scorer {self._name!r} reads calibrated LLRs from "
                    f"`decision_function`, which {name} does not have. Put a "
                    "skcalib calibrator after the classifier."
                )
            method = "decision_function"
        elif self._response == "score":
            if not hasattr(estimator, "decision_function") and not hasattr(
                estimator, "predict_proba"
            ):
                raise ValueError(
                    f"The scorer {self._name!r} needs `predict_proba` or "
                    f"`decision_function`, which {name} does not have."
                )
            method = resolve_response_method(estimator, "auto")
        else:
            if not hasattr(estimator, "predict_proba"):
                raise ValueError(
                    f"The scorer {self._name!r} needs `predict_proba`, which "
                    f"{name} does not have."
                )
            method = "predict_proba"
        return binary_response(estimator, X, method, flip=flip)

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Score ``estimator`` on ``(X, y_true)``: minus the metric's value."""
        params = {**self._kwargs, **kwargs}
        if sample_weight is not None:
            params["sample_weight"] = sample_weight
        if self._response == "class_proba":
            if not hasattr(estimator, "predict_proba"):
                raise ValueError(
                    f"The scorer {self._name!r} needs `predict_proba`, which "
                    f"{type(estimator).__name__} does not have."
                )
            params.setdefault("labels", getattr(estimator, "classes_", None))
            return -self._score_func(y_true, estimator.predict_proba(X), **params)
        classes = _binary_classes(estimator)
        pos_label = params.pop("pos_label", None)
        if pos_label is None and classes is not None:
            pos_label = classes[1]
            if isinstance(pos_label, np.generic):
                pos_label = pos_label.item()
        y_score = self._response_values(estimator, X, pos_label, classes)
        return -self._score_func(y_true, y_score, pos_label=pos_label, **params)


def _probe(response, params):
    """A tiny data set on which the metric checks the scorer's parameters."""
    if response != "class_proba":
        return [0, 1], [0.25, 0.75] if response == "proba" else [-1.0, 1.0]
    sized = [params.get(p) for p in ("labels", "p_classes", "priors", "cost_matrix")]
    sized = [p for p in sized if p is not None]
    k = len(sized[0]) if sized else 2
    y = params["labels"] if params.get("labels") is not None else np.arange(k)
    return y, 0.5 * np.eye(k) + 0.5 / k  # each class once, rows summing to 1


def get_scorer_names():
    """Names accepted by :func:`get_scorer`.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from skcalib.metrics import get_scorer_names
    >>> get_scorer_names()[:3]
    ['neg_actual_dcf', 'neg_beta_rule_loss', 'neg_brier_loss']
    """
    return sorted(_SCORERS)


def get_scorer(name, **params):
    """A scorer for ``GridSearchCV``/``cross_validate`` from a skcalib metric.

    Parameters
    ----------
    name : str
        One of :func:`get_scorer_names`: ``'neg_cllr'``, ``'neg_min_cllr'``,
        ``'neg_cllr_cal'``, ``'neg_devpav'``,
        ``'neg_brier_loss'``, ``'neg_beta_rule_loss'`` (needs ``alpha``,
        ``beta``), ``'neg_actual_dcf'``, ``'neg_min_dcf'`` (need
        ``p_target``), ``'neg_eer'``, ``'neg_expected_calibration_error'``,
        and for multiclass problems ``'neg_multiclass_cllr'``,
        ``'neg_multiclass_brier_loss'``, ``'neg_top_label_calibration_error'``,
        ``'neg_classwise_calibration_error'`` and
        ``'neg_empirical_bayes_risk'`` (needs ``cost_matrix``).
    **params
        Keyword arguments of the metric (``p_target``, ``c_miss``, ``c_fa``,
        ``alpha``, ``beta``, ``normalize``, ``n_bins``,
        ``pos_label``, ``p_classes``, ``cost_matrix``, ``priors``, ...). They
        are checked now, not at scoring time.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sample_weight=None)`` returning minus the
        metric (greater is better).

    Notes
    -----
    LLR metrics read ``decision_function`` (the calibrated LLR of skcalib
    calibrators); minimum metrics use ``decision_function`` or else
    ``predict_proba``; the ECE uses ``predict_proba``. The target class is
    ``pos_label`` if given, else ``classes_[1]``. The multiclass scorers read
    all the columns of ``predict_proba``, in the order of ``classes_``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skcalib.metrics import get_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> scorer = get_scorer("neg_min_dcf", p_target=0.1)
    >>> scorer
    get_scorer('neg_min_dcf', p_target=0.1)
    >>> search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer)
    >>> bool(-search.fit(X, y).best_score_ < 1)
    True
    """
    if name not in _SCORERS:
        raise ValueError(
            f"{name!r} is not a valid skcalib scorer name; use one of "
            f"{get_scorer_names()}."
        )
    func, response, required = _SCORERS[name]
    signature = inspect.signature(func)
    # every parameter after the two data arguments, except the weights
    allowed = [p for p in list(signature.parameters)[2:] if p != "sample_weight"]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"Unknown parameter(s) {unknown} for scorer {name!r}; "
            f"{func.__name__} takes {allowed}."
        )
    missing = [p for p in required if p not in params]
    if missing:
        raise ValueError(
            f"The scorer {name!r} needs {', '.join(f'`{p}`' for p in missing)}, "
            f"e.g. get_scorer({name!r}, {missing[0]}=...)."
        )
    # Check parameter values now (a bad value inside GridSearchCV would only
    # surface as NaN scores), on a two-trial data set.
    checked = {k: v for k, v in params.items() if k != "pos_label"}
    func(*_probe(response, checked), **checked)
    return _CalibrationScorer(name, func, response, params)
