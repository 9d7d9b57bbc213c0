"""Fitted calibrations: a calibrator, or several, applied to a classifier's scores.

A fitted calibrator answers for one score column; a classifier's scores
need one of several arrangements, each a small class here with the same
methods (``predict_proba``, and where they exist ``llr``, ``prior`` and
``interval``):

- :class:`BinaryCalibration`: one binary calibrator on one score column
  (:class:`VennAbersCalibration` adds the Venn-Abers interval,
  :class:`PosteriorBinaryCalibration` is one without ``decision_function``);
- :class:`MulticlassCalibration`: one natively multiclass calibrator on all
  the classes' score columns;
- :class:`OneVsRestCalibration`: K binary calibrations, the ``k``-th of
  column ``k`` against the rest, normalized to sum to 1;
- :class:`ConstantCalibration`: one probability everywhere (a class that a
  calibration fold cannot calibrate);
- :class:`MixtureCalibration`: calibrators whose posteriors are mixed with
  fixed weights (:class:`~skcalib.AutoCalibrator`'s stacking);

and :class:`CalibratedPair` holds one fitted classifier and the calibration
of its scores, as scikit-learn's ``_CalibratedClassifier`` does.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit, logsumexp
from scipy.special import logit as _logit
from sklearn.base import clone
from sklearn.utils import get_tags

from .._base import BaseCalibrator
from .._kernel._special import rule_cost
from .._kernel._venn_abers import merge_p0p1
from .._venn_abers import VennAbersCalibrator
from ..utils._response import class_response, response_scores

__all__ = [
    "BinaryCalibration",
    "CalibratedPair",
    "Calibration",
    "ConstantCalibration",
    "MixtureCalibration",
    "MulticlassCalibration",
    "OneVsRestCalibration",
    "PosteriorBinaryCalibration",
    "Response",
    "VennAbersCalibration",
    "calibration_layout",
    "fit_calibration",
    "merged_interval",
    "normalize_one_vs_rest",
    "takes_all_classes",
]


def takes_all_classes(calibrator) -> bool:
    """Whether ``calibrator`` is natively multiclass (fits K score columns).

    Such a calibrator says so with scikit-learn's classifier tag
    ``multi_class=True`` (skcalib's binary calibrators say ``False``), or,
    being a binary calibrator too (:class:`~skcalib.AutoCalibrator`), with
    the class attribute ``_multiclass_native = True``: it then takes all K
    columns when there are K > 2 classes and one score column for two.
    """
    if getattr(calibrator, "_multiclass_native", False):
        return True
    tags = get_tags(calibrator).classifier_tags
    return tags is not None and bool(tags.multi_class)


def normalize_one_vs_rest(proba: np.ndarray) -> np.ndarray:
    """Rows divided by their sums; a row of zeros becomes uniform (scikit-learn)."""
    total = proba.sum(axis=1, keepdims=True)
    uniform = np.full_like(proba, 1.0 / proba.shape[1])
    return np.divide(proba, total, out=uniform, where=total != 0)


def calibration_layout(calibrator, n_classes: int) -> str:
    """How a classifier's output becomes ``calibrator``'s input.

    ``'classes'`` for a natively multiclass calibrator (all the score
    columns; an :class:`~skcalib.AutoCalibrator`, a binary calibrator too,
    takes one column of a binary problem), else ``'binary'`` (one column)
    or ``'one_vs_rest'`` (one binary calibrator per class); see
    :func:`~skcalib.utils._response.response_scores`.
    """
    if takes_all_classes(calibrator) and not (
        n_classes == 2 and isinstance(calibrator, BaseCalibrator)
    ):
        return "classes"
    return "binary" if n_classes == 2 else "one_vs_rest"


def _move_prior(p, old_prior, new_prior):
    """Posteriors ``p`` at ``old_prior`` moved to ``new_prior`` (same LLR)."""
    if new_prior == old_prior:
        return p
    with np.errstate(divide="ignore"):  # p = 0 or 1 stays so
        return expit(_logit(p) - _logit(old_prior) + _logit(new_prior))


class Calibration:
    """A fitted calibration of a classifier's scores.

    ``layout`` says which scores it takes (:func:`calibration_layout`);
    ``prior`` is the target prior of a binary calibration's posteriors
    (``None`` with K > 2 classes); ``has_interval`` whether ``interval``
    gives Venn-Abers pairs.
    """

    layout = "binary"
    prior = None
    has_interval = False
    #: ``(calibration prior, prior)`` of the posteriors that a Venn-Abers
    #: merge moves (:meth:`VennAbersCalibration.merged_proba`)
    priors = None

    def predict_proba(self, scores) -> np.ndarray:
        """Calibrated posteriors, shape ``(n_samples, n_classes)``."""
        raise NotImplementedError

    def llr(self, scores) -> np.ndarray:
        """Calibrated LLRs of a binary calibration: log-posterior ratio
        minus the prior log-odds."""
        log_proba = np.log(self.predict_proba(scores))
        return log_proba[:, 1] - log_proba[:, 0] - _logit(self.prior)

    @property
    def fitted(self):
        """The fitted calibrator(s), as ``CalibratedClassifier.calibrators_``."""
        return self


class ConstantCalibration(Calibration):
    """One probability of the class against the rest, everywhere.

    Stands in for the binary calibrator of a class that a (classifier,
    calibrator) pair of ``ensemble=True`` cannot calibrate: probability 0 for
    a class its classifier never saw (as scikit-learn), and the rule of
    succession ``(n_k + 1) / (n + 2)`` (Platt's smoothed target) for a class
    that is absent from, or is all of, its calibration fold.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._calibrations import ConstantCalibration
    >>> ConstantCalibration(0.25).predict_proba(np.zeros(2))
    array([[0.75, 0.25],
           [0.75, 0.25]])
    """

    def __init__(self, proba: float):
        self.proba = float(proba)

    def predict_proba(self, scores):
        n = np.asarray(scores).shape[0]
        return np.column_stack([np.full(n, 1.0 - self.proba), np.full(n, self.proba)])

    def interval(self, scores):
        """The degenerate pair ``(p, p)`` (a member of a Venn-Abers merge)."""
        p = self.predict_proba(scores)[:, 1]
        return p, p

    def __repr__(self):
        return f"ConstantCalibration(proba={self.proba!r})"


class MulticlassCalibration(Calibration):
    """One fitted natively multiclass calibrator of all the score columns.

    ``known``: boolean mask of the classes whose columns it calibrates
    (those its fold's classifier knows); the others get probability 0.
    ``None``: all of them. On a binary problem its LLR is the log-posterior
    ratio minus the prior log-odds.
    """

    layout = "classes"

    def __init__(self, calibrator, prior=None, known=None):
        self.calibrator = calibrator
        self.prior = prior
        self.known = known

    @property
    def fitted(self):
        return self.calibrator

    def predict_proba(self, scores):
        if self.known is None:
            return self.calibrator.predict_proba(scores)
        cols = np.flatnonzero(self.known)
        proba = np.zeros((scores.shape[0], self.known.shape[0]))
        proba[:, cols] = self.calibrator.predict_proba(scores[:, cols])
        return proba


class BinaryCalibration(MulticlassCalibration):
    """One fitted binary calibrator of one score column.

    Its posteriors at its ``prior_``, its LLRs by ``decision_function``
    (a :class:`MulticlassCalibration` of the one column, ``known=None``).
    """

    layout = "binary"

    def llr(self, scores):
        return self.calibrator.decision_function(scores)


class PosteriorBinaryCalibration(MulticlassCalibration):
    """One fitted binary calibrator without ``decision_function``: its LLR
    is the log-posterior ratio minus the prior log-odds."""

    layout = "binary"


class VennAbersCalibration(BinaryCalibration):
    """A fitted :class:`~skcalib.VennAbersCalibrator`: with its interval.

    Folds of cross Venn-Abers are merged by :meth:`merged_proba`.
    """

    has_interval = True

    def interval(self, scores):
        pair = self.calibrator.predict_interval(scores)
        return pair[:, 0], pair[:, 1]

    @property
    def priors(self):
        return self.calibrator.calibration_prior_, self.calibrator.prior_

    @staticmethod
    def merged_proba(calibrations, p):
        """Posteriors from the merged probability ``p`` of the folds'
        ``calibrations``: ``p`` (at their mean calibration prior) moved to
        their mean ``prior``, as one fold's ``predict_proba`` is."""
        calibration_prior = np.mean([c.priors[0] for c in calibrations])
        prior = float(np.mean([c.prior for c in calibrations]))
        proba = np.empty((p.shape[0], 2))
        proba[:, 1] = _move_prior(p, calibration_prior, prior)
        proba[:, 0] = 1.0 - proba[:, 1]
        return proba


class OneVsRestCalibration(Calibration):
    """K binary calibrations, the ``k``-th of column ``k`` against the rest.

    Probabilities are normalized to sum to 1 (scikit-learn's one-vs-rest
    calibration; a row of zeros becomes uniform). Used by
    :class:`~skcalib.CalibratedClassifier` for a binary calibrator of K > 2
    classes and by :class:`~skcalib.AutoCalibrator` for its binary
    candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._calibrations import ConstantCalibration, OneVsRestCalibration
    >>> ovr = OneVsRestCalibration([ConstantCalibration(p) for p in (0.2, 0.2, 0.4)])
    >>> ovr.predict_proba(np.zeros((1, 3)))
    array([[0.25, 0.25, 0.5 ]])
    """

    layout = "one_vs_rest"

    def __init__(self, calibrators):
        self.calibrators = list(calibrators)

    @property
    def has_interval(self):
        # a member may be a constant stand-in (a class absent from the fold)
        return any(cal.has_interval for cal in self.calibrators)

    @property
    def fitted(self):
        return [cal.fitted for cal in self.calibrators]

    @classmethod
    def fit(cls, calibrator, scores, y_index, n_classes, sample_weight=None):
        """A clone of ``calibrator`` fitted on each column against the rest."""
        return cls(
            _binary(
                clone(calibrator).fit(
                    scores[:, k], (y_index == k).astype(np.intp), sample_weight
                )
            )
            for k in range(n_classes)
        )

    @classmethod
    def fit_fold(cls, calibrator, scores, y_index, n_classes, sample_weight, known):
        """:meth:`fit`, with a :class:`ConstantCalibration` for each class
        that cannot be calibrated: unknown to the fold's classifier
        (``known[k]`` False), absent from the fold, or all of it."""
        weight = np.ones(y_index.shape[0]) if sample_weight is None else sample_weight
        class_weight = np.bincount(y_index, weights=weight, minlength=n_classes)
        total = weight.sum()
        calibrations = []
        for k in range(n_classes):
            if known is not None and not known[k]:
                calibrations.append(ConstantCalibration(0.0))
            elif class_weight[k] <= 0 or class_weight[k] >= total:
                calibrations.append(
                    ConstantCalibration((class_weight[k] + 1.0) / (total + 2.0))
                )
            else:
                is_k = (y_index == k).astype(np.intp)
                fitted = clone(calibrator).fit(scores[:, k], is_k, sample_weight)
                calibrations.append(_binary(fitted))
        return cls(calibrations)

    def predict_proba(self, scores):
        proba = np.column_stack(
            [
                cal.predict_proba(scores[:, k])[:, 1]
                for k, cal in enumerate(self.calibrators)
            ]
        )
        return normalize_one_vs_rest(proba)

    def interval(self, scores):
        pairs = [cal.interval(scores[:, k]) for k, cal in enumerate(self.calibrators)]
        return np.stack([p0 for p0, _ in pairs], 1), np.stack(
            [p1 for _, p1 in pairs], 1
        )

    @staticmethod
    def merged_proba(calibrations, p):
        """Each class's merged probability (at its folds' calibration
        priors) moved to their ``prior_``, as one fold's ``predict_proba``
        is, then normalized."""
        for k in range(p.shape[1]):
            priors = [c.calibrators[k].priors for c in calibrations]
            priors = [pair for pair in priors if pair is not None]  # not constants
            if priors:
                old = np.mean([old for old, _ in priors])
                p[:, k] = _move_prior(p[:, k], old, np.mean([new for _, new in priors]))
        return normalize_one_vs_rest(p)


class MixtureCalibration:
    """Fitted calibrators whose posteriors are mixed with fixed weights.

    Binary: the posteriors at the calibration prior, ``sum_c w_c
    sigmoid(llr_c + logit(prior))``, back to LLRs (in the log domain, so
    that LLRs of +/-1000 stay exact); K classes: ``sum_c w_c proba_c``.
    With ``uninformative_weight = e > 0`` the mixture is ``(1 - e)`` times
    that plus ``e`` times the uninformative system's posteriors (the
    calibration prior; ``class_prior`` for K classes). Used by
    :class:`~skcalib.AutoCalibrator`; pickles as the list it holds.
    """

    def __init__(
        self, calibrators, weights, uninformative_weight=0.0, class_prior=None
    ):
        self.calibrators = list(calibrators)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.uninformative_weight = float(uninformative_weight)
        self.class_prior = class_prior

    @property
    def calibration_prior_(self):
        return self.calibrators[0].calibration_prior_

    def decision_function(self, scores):
        prior = self.calibration_prior_
        offset = np.log(prior) - np.log1p(-prior)
        e = self.uninformative_weight
        x = np.stack([cal.decision_function(scores) for cal in self.calibrators])
        x = x + offset
        log_w = np.log(self.weights * (1.0 - e))
        if e > 0:  # the uninformative system: LLR 0
            x = np.concatenate([x, np.full((1, x.shape[1]), offset)])
            log_w = np.append(log_w, np.log(e))
        # log sigmoid(+/-x) is minus the logarithmic rule's cost G(+/-x; 1, 1)
        with np.errstate(over="ignore"):
            log_p = logsumexp(log_w[:, None] - rule_cost(x, 1.0, 1.0), axis=0)
            log_q = logsumexp(log_w[:, None] - rule_cost(-x, 1.0, 1.0), axis=0)
        return log_p - log_q - offset

    def predict_proba(self, proba_of):
        """``(1 - e) sum_c w_c proba_of(calibrator_c) + e class_prior``."""
        e = self.uninformative_weight
        mixed = sum(
            w * proba_of(cal)
            for w, cal in zip(self.weights, self.calibrators, strict=True)
        )
        if e == 0:
            return mixed
        return (1.0 - e) * mixed + e * self.class_prior


def _fitted_prior(calibrator, default):
    """The prior of ``classes_[1]`` of a fitted binary calibration: a binary
    calibrator's ``prior_``, a multiclass one's ``p_classes_[1]``, else
    ``default`` (the weighted proportion of ``classes_[1]``)."""
    if hasattr(calibrator, "prior_"):
        return float(calibrator.prior_)
    if default is None:  # K > 2 classes: no prior of one class
        return None
    if hasattr(calibrator, "p_classes_"):
        return float(calibrator.p_classes_[1])
    return float(default)


def _binary(calibrator, default_prior=None):
    """A fitted binary calibrator as its calibration (the kind decided once)."""
    prior = _fitted_prior(calibrator, default_prior)
    if isinstance(calibrator, VennAbersCalibrator):
        return VennAbersCalibration(calibrator, prior)
    if hasattr(calibrator, "decision_function"):
        return BinaryCalibration(calibrator, prior)
    return PosteriorBinaryCalibration(calibrator, prior)


def fit_calibration(
    calibrator, layout, scores, y_index, n_classes, sample_weight=None, *,
    known=None, default_prior=None,
):  # fmt: skip
    """A clone of ``calibrator`` fitted on ``scores`` (of ``layout``), as a
    :class:`Calibration`.

    ``known``: boolean mask of the classes the scores' classifier knows
    (``None``: all); a natively multiclass calibrator is then fitted on
    their columns and samples, a one-vs-rest calibration gives the others
    probability 0. ``default_prior``: the prior of a binary calibrator that
    has none (the weighted proportion of ``classes_[1]``).
    """
    if layout == "one_vs_rest":
        return OneVsRestCalibration.fit_fold(
            calibrator, scores, y_index, n_classes, sample_weight, known
        )
    if known is None:
        fitted = clone(calibrator).fit(scores, y_index, sample_weight)
    else:
        cols = np.flatnonzero(known)
        rows = known[y_index]
        fitted = clone(calibrator).fit(
            scores[rows][:, cols],
            np.searchsorted(cols, y_index[rows]),
            None if sample_weight is None else sample_weight[rows],
        )
    if layout == "classes":
        return MulticlassCalibration(
            fitted, _fitted_prior(fitted, default_prior), known
        )
    return _binary(fitted, default_prior)


class Response(NamedTuple):
    """How a fitted classifier's output becomes a calibration's scores.

    ``method``: the classifier's method; ``floor``: the floor of its
    probabilities before their logarithm (``None`` for a decision
    function); ``proba_input``: what a binary calibrator sees of
    ``predict_proba`` (see :func:`~skcalib.utils._response.response_scores`).
    """

    classes: np.ndarray
    method: str
    floor: float | None = None
    proba_input: str | None = None

    def scores_of(self, raw, layout):
        """The scores of ``layout`` from the classifier's ``raw`` output."""
        return response_scores(raw, self.method, layout, self.floor, self.proba_input)

    def scores(self, estimator, X, layout):
        """The scores of ``layout`` of ``estimator`` on ``X``."""
        return self.scores_of(
            class_response(estimator, X, self.method, self.classes), layout
        )


class CalibratedPair:
    """A fitted classifier and the calibration of its scores.

    One of :class:`~skcalib.CalibratedClassifier`'s
    ``calibrated_classifiers_``, as scikit-learn's ``_CalibratedClassifier``.
    """

    def __init__(self, estimator, calibration, response):
        self.estimator = estimator
        self.calibration = calibration
        self.response = response

    def scores(self, X):
        """The classifier's scores of ``X`` as its calibration takes them."""
        return self.response.scores(self.estimator, X, self.calibration.layout)

    def predict_proba(self, X):
        return self.calibration.predict_proba(self.scores(X))

    def llr(self, X):
        return self.calibration.llr(self.scores(X))

    def interval(self, X):
        return self.calibration.interval(self.scores(X))

    def __repr__(self):
        return f"CalibratedPair({self.estimator!r}, {self.calibration!r})"


def merged_interval(pairs, X):
    """Merged ``(p, p0, p1)`` of the Venn-Abers pairs of ``pairs`` on ``X``.

    One pair: the inductive merge; several: the cross Venn-Abers merge by
    geometric means (:func:`~skcalib._venn_abers.merge_p0p1`).
    """
    intervals = [pair.interval(X) for pair in pairs]
    p0 = np.stack([p for p, _ in intervals])
    p1 = np.stack([p for _, p in intervals])
    return merge_p0p1(p0, p1, axis=0)
