"""The calibrator base class: the interface shared by every skcalib calibrator.

Subclasses implement ``_fit(data)`` on the validated training data
(:class:`~skcalib._data._training.TrainingData`, in memory or on Dask) and
``_transform(X)`` on a validated float64 array of shape ``(n, k)``, and declare
what ``transform`` returns with the class attribute ``_output`` (``"proba"``
or ``"llr"``). Everything else (validation, labels, 1-D input, the LLR and
posterior views, Bayes decisions, tags) lives here.
"""

from __future__ import annotations

from functools import update_wrapper
from numbers import Real
from types import MethodType

import numpy as np
from scipy.special import expit
from scipy.special import logit as _logit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    OneToOneFeatureMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from ._dask import any_dask_collection, blockwise
from ._data._training import (
    ArrayClassTrainingData,
    ArrayTrainingData,
    check_trials_target,
)
from .metrics._trials import ScoredTrials, fit_inputs
from .utils._arguments import store_arguments
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import fill_doc
from .utils._sklearn_compat import (
    ClassifierTags,
    Interval,
    _fit_context,
    validate_data,
    validate_estimator_params,
)

__all__ = [
    "BaseCalibrator",
    "SingleColumnError",
    "as_2d",
    "needs_single_column",
    "single_column",
    "training_data",
]


def _set_dask_features(estimator, data):
    """``n_features_in_`` and ``feature_names_in_`` of a fit on Dask
    ``data``, as ``validate_data`` sets them in memory."""
    estimator.n_features_in_ = data.n_columns
    if data.feature_names is not None:
        estimator.feature_names_in_ = np.asarray(data.feature_names, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def training_data(estimator, X, y, sample_weight, *, classes=False, order=None):
    """The validated training data of ``estimator.fit(X, y, sample_weight)``.

    The one place that tells Dask inputs from in-memory ones, for binary
    calibrators (:class:`~skcalib._data._training.TrainingData`) and for
    ``K``-class ones (``classes=True``:
    :class:`~skcalib._data._training.ClassTrainingData`). Dask inputs are
    validated lazily, in one distributed pass over all columns when the fit
    first asks for their contents; in memory ``validate_data`` runs here
    (``order``: the memory order of the validated scores). ``X`` may be a
    :class:`~skcalib.metrics.ScoredTrials` (binary, ``y`` and
    ``sample_weight`` None): the fit then reads the trials' labels and
    weights, and on Dask shares their block summary.
    """
    owner = type(estimator).__name__
    handle = pos_label = None
    if isinstance(X, ScoredTrials) and not classes:
        X, y, sample_weight, pos_label, handle = fit_inputs(X, y, sample_weight)
    if any_dask_collection(X, y, sample_weight):
        from ._dask._training import DaskClassTrainingData, DaskTrainingData

        if classes:
            data = DaskClassTrainingData(X, y, sample_weight, owner=owner)
        else:
            data = DaskTrainingData(X, y, sample_weight, owner=owner, trials=handle)
        _set_dask_features(estimator, data)
        return data
    if classes:
        X, y = validate_data(estimator, X, y, dtype=np.float64, ensure_all_finite=True)
        return ArrayClassTrainingData(X, y, sample_weight, owner=owner)
    X, _ = as_2d(X)
    X, y = validate_data(
        estimator,
        X,
        y,
        dtype=np.float64,
        ensure_all_finite=True,
        y_numeric=False,
        order=order,
    )
    data = ArrayTrainingData(X, y, sample_weight, owner=owner)
    if pos_label is not None:
        check_trials_target(pos_label, data.classes)
    return data


def as_2d(X):
    """Return ``(X, was_1d)``; a 1-D vector of scores becomes one column."""
    if hasattr(X, "shape"):
        ndim = len(X.shape)
    elif hasattr(X, "__array__") or isinstance(X, (list, tuple)):
        try:
            X = np.asarray(X)
        except ValueError:  # ragged nested lists: let validate_data complain
            return X, False
        ndim = X.ndim
    else:
        return X, False
    if ndim == 1:
        return np.asarray(X).reshape(-1, 1), True
    return X, False


class SingleColumnError(ValueError, AttributeError):
    """Raised by the LLR views of a calibrator fitted on several columns.

    A ``ValueError`` for callers, and an ``AttributeError`` so that
    ``hasattr`` (and scikit-learn's ``available_if``) hide those methods.
    """


def single_column(self):
    """The LLR views need a fitted one-column model."""
    check_is_fitted(self)
    if self.n_features_in_ != 1:
        raise SingleColumnError(
            f"This {type(self).__name__} was fitted on {self.n_features_in_} "
            "columns of scores; decision_function, predict_proba and predict "
            "need exactly one column. Fit one calibrator per system to use them."
        )
    return True


class needs_single_column:
    """Method descriptor like scikit-learn's ``available_if(single_column)``.

    Unlike ``available_if`` it lets the check's own error through unchanged,
    so a direct call raises the explanatory ``SingleColumnError`` (or
    ``NotFittedError``) while ``hasattr`` still answers ``False``.
    """

    def __init__(self, fn):
        self.fn = fn
        update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        single_column(obj)
        return MethodType(self.fn, obj)


class _hidden_on_several_columns(needs_single_column):
    """Like :class:`needs_single_column`, but present before ``fit``.

    For ``score``: a ``Pipeline`` ending in an unfitted calibrator offers
    ``score`` only if the calibrator has it (``GridSearchCV`` asks before
    fitting); a fit on several columns hides it, as ``predict``.
    """

    def __get__(self, obj, owner=None):
        if obj is None or not hasattr(obj, "n_features_in_"):
            return self.fn if obj is None else MethodType(self.fn, obj)
        return super().__get__(obj, owner)


def calibrator_tags(tags, *, multi_class):
    """``tags`` of a calibrator: labels required, no NaN scores."""
    tags.target_tags.required = True
    tags.classifier_tags = ClassifierTags(multi_class=multi_class)
    tags.input_tags.allow_nan = False
    return tags


#: The ``Parameters`` of a method taking one column of scores.
SCORES_DOCS = {
    "scores_parameters": "Parameters\n----------\n" + CALIBRATOR_DOCS["scores"]
}


@fill_doc(SCORES_DOCS)
class BaseCalibrator(
    ClassifierMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Base class for binary score calibrators (transformers).

    ``X`` holds scores, higher favouring the target class ``classes_[1]``,
    either as a vector of shape ``(n_samples,)`` or as ``(n_samples, k)``
    with each column calibrated independently against the same labels.

    Attributes set by ``fit`` for every calibrator: ``classes_``,
    ``n_features_in_``, ``calibration_prior_`` (weighted target proportion of
    the calibration data) and ``prior_`` (the prior of ``predict_proba`` and
    ``predict``: ``prior`` if given, else ``calibration_prior_``).

    Examples
    --------
    Every skcalib calibrator is a ``BaseCalibrator`` and shares its interface:

    >>> from skcalib import BaseCalibrator, PAVLLRCalibrator, PlattCalibrator
    >>> issubclass(PlattCalibrator, BaseCalibrator)
    True
    >>> cal = PAVLLRCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> cal.decision_function([0.1, 0.8]).round(2).tolist()   # LLRs (nats)
    [-0.69, 0.69]
    >>> cal.predict_proba([0.1, 0.8]).round(2).tolist()       # at prior_ = 0.5
    [[0.67, 0.33], [0.33, 0.67]]
    >>> cal.predict([0.1, 0.8]).tolist()                      # Bayes decisions
    [0, 1]
    """

    _output = "llr"
    #: ``decision_function`` is the calibrated natural-log LLR (the displays'
    #: ``from_estimator`` read it as such).
    _decision_function_is_llr = True
    #: Memory order of the validated scores of ``fit``: column-major (each
    #: column a contiguous vector) by default; ``None`` takes any layout
    #: without a copy.
    _fit_order = "F"

    _parameter_constraints: dict = {
        "prior": [Interval(Real, 0, 1, closed="neither"), None],
    }

    def _store(self, arguments):
        """A calibrator's ``__init__``: each parameter (its ``locals()``)
        stored unchanged as the attribute of its name."""
        store_arguments(self, arguments)

    # ------------------------------------------------------------ subclass API
    def _fit(self, data):  # pragma: no cover - abstract
        """Set the fitted attributes from a
        :class:`~skcalib._data._training.TrainingData`."""
        raise NotImplementedError

    def _transform(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    # -------------------------------------------------------------- public API
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit the calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns), or ScoredTrials
            Uncalibrated scores; each column is calibrated independently. A
            :class:`~skcalib.metrics.ScoredTrials` of one system holds the
            scores, labels and weights (``y`` and ``sample_weight`` None;
            its target label must be the larger label); on Dask the fit
            and the trials' minimum metrics then share one distributed
            block summary.
        y : array-like of shape (n_samples,)
            Binary labels (any two values); ``classes_[1]`` is the target.
            Required unless ``X`` is a ``ScoredTrials``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; fitting with integer weights equals fitting
            on repeated rows.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        data = self._training_data(X, y, sample_weight)
        # Virtual trials of weight 1 (``_virtual_trial_weight``) weigh
        # 2**-weight_exponent in the units of the rescaled weights.
        self._weight_exponent = data.weight_exponent
        self._fit(data)
        self._set_classes(data.classes, data.n_tar, data.n_non)
        return self

    def _training_data(self, X, y, sample_weight):
        """The validated :class:`~skcalib._data._training.TrainingData` of
        ``fit`` (see :func:`training_data`)."""
        return training_data(self, X, y, sample_weight, order=self._fit_order)

    def _set_classes(self, classes, n_tar, n_non):
        """``classes_``, ``calibration_prior_`` and ``prior_``, in memory and on
        Dask alike (``n_tar``, ``n_non``: the class weights of the data)."""
        self.classes_ = classes
        self.calibration_prior_ = n_tar / (n_tar + n_non)
        self.prior_ = self.calibration_prior_ if self.prior is None else self.prior

    @blockwise
    def transform(self, X):
        """Calibrate scores.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
            Scores, with as many columns as at ``fit``.

        Returns
        -------
        X_calibrated : ndarray of the same shape as ``X``
            Calibrated probabilities or LLRs, depending on the calibrator.
        """
        X, was_1d = self._validate_X(X)
        out = self._transform(X)
        return out.reshape(-1) if was_1d else out

    @_hidden_on_several_columns
    def score(self, X, y, sample_weight=None):
        """Accuracy of the Bayes decisions :meth:`predict` on ``(X, y)``.

        As every scikit-learn classifier's ``score``, so that a ``Pipeline``
        ending in a calibrator has the default score of a classifier; a
        calibration-aware choice is a scorer from
        :func:`skcalib.metrics.get_scorer` (e.g. ``get_scorer('neg_cllr')``).

        {scores_parameters}
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Weighted fraction of correct decisions.
        """
        return super().score(X, y, sample_weight=sample_weight)

    @needs_single_column
    @blockwise
    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (natural log).

        {scores_parameters}

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            ``log p(s|target) - log p(s|non-target)`` as calibrated. For a
            calibrator that outputs probabilities ``p`` this is
            ``logit(p) - logit(calibration_prior_)``.
        """
        X, _ = self._validate_X(X)
        out = self._transform(X)[:, 0]
        if self._output == "proba":
            with np.errstate(divide="ignore"):
                return _logit(out) - _logit(self.calibration_prior_)
        return out

    @needs_single_column
    @blockwise
    def predict_proba(self, X):
        """Posterior probabilities at ``prior_``.

        {scores_parameters}

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``:
            ``sigmoid(llr + logit(prior_))`` for ``classes_[1]``.
        """
        log_odds = self.decision_function(X) + _logit(self.prior_)
        proba = np.empty((log_odds.shape[0], 2))
        proba[:, 1] = expit(log_odds)
        proba[:, 0] = expit(-log_odds)
        return proba

    @needs_single_column
    @blockwise
    def predict(self, X):
        """Bayes decisions at ``prior_`` (equal costs).

        ``classes_[1]`` is decided iff ``llr >= -logit(prior_)``, ties at the
        threshold included.

        {scores_parameters}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        accept = self.decision_function(X) >= -_logit(self.prior_)
        return self.classes_[accept.astype(np.intp)]

    # ---------------------------------------------------------------- helpers
    def _validate_params(self):
        # What scikit-learn's ``_fit_context`` calls before ``fit``: the same
        # checks, without reading ``__init__``'s signature on every fit.
        validate_estimator_params(self)

    @property
    def _virtual_trial_weight(self) -> float:
        """Weight of one virtual trial in the units of the weights ``_fit`` got."""
        return float(np.ldexp(1.0, -getattr(self, "_weight_exponent", 0)))

    def _validate_X(self, X):
        check_is_fitted(self)
        X, was_1d = as_2d(X)
        if was_1d and self.n_features_in_ != 1:
            raise ValueError(
                f"Expected 2D array with {self.n_features_in_} columns, got a 1D "
                "array instead. Reshape your data to (n_samples, "
                f"{self.n_features_in_}): this calibrator was fitted on "
                f"{self.n_features_in_} columns of scores."
            )
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=True
        )
        return X, was_1d

    def __sklearn_tags__(self):
        return calibrator_tags(super().__sklearn_tags__(), multi_class=False)
