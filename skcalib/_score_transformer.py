"""A classifier's scores as a transformer, with honest out-of-fold training scores.

:class:`ScoreTransformer` turns a classifier into a transformer of its
scores (one column for a binary problem, one per class otherwise) so that a
calibrator can follow it in a ``Pipeline`` (user guide: *Calibrating a
classifier*).
``fit_transform`` returns *out-of-fold* scores (each sample scored by a model
that never saw it), which is what the next step of a pipeline is trained on;
``transform`` uses the model fitted on all the data. The cross-fitting helper
:func:`cross_fit` is shared with :class:`~skcalib.CalibratedClassifier`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    MetaEstimatorMixin,
    TransformerMixin,
    clone,
)
from sklearn.model_selection import check_cv
from sklearn.utils import get_tags, indexable
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    has_fit_parameter,
)

from .utils._arguments import store_arguments
from .utils._docstrings import doc_blocks, fill_doc
from .utils._response import (
    class_response,
    proba_floor,
    resolve_response_method,
    response_scores,
)
from .utils._sklearn_compat import (
    ClassifierTags,
    HasMethods,
    StrOptions,
    _check_method_params,
    _fit_context,
    _safe_indexing,
)
from .utils._validation import check_class_y, check_weights

__all__ = [
    "ScoreTransformer",
    "cross_fit",
    "estimator_router",
    "routed_fit_params",
    "routing_enabled",
    "wrapper_docs",
]


def routing_enabled() -> bool:
    return bool(get_config().get("enable_metadata_routing", False))


def routed_fit_params(owner, method: str, sample_weight, fit_params):
    """Metadata routing: ``(params of estimator.fit, params of cv.split)``.

    With routing enabled, ``sample_weight`` and the other fit parameters reach
    the wrapped classifier only as it requests them (``set_fit_request``), as
    in ``CalibratedClassifierCV``.
    """
    params = dict(fit_params)
    if sample_weight is not None:
        params["sample_weight"] = sample_weight
    routed = process_routing(owner, method, **params)
    return dict(routed.estimator.fit), dict(routed.splitter.get("split", {}))


def estimator_router(owner, estimator, methods, *, consumes_weights):
    """The routing of a meta-estimator that fits ``estimator`` over ``cv``.

    ``methods`` maps each of the owner's methods to whether it splits with
    ``cv``; ``consumes_weights``: the owner uses ``sample_weight`` itself (to
    calibrate), so it describes its own request as well.
    """
    fit_mapping = MethodMapping()
    split_mapping = MethodMapping()
    for method, splits in methods.items():
        fit_mapping.add(caller=method, callee="fit")
        if splits:
            split_mapping.add(caller=method, callee="split")
    router = MetadataRouter(owner=owner)
    if consumes_weights:
        router.add_self_request(owner)
    return router.add(estimator=estimator, method_mapping=fit_mapping).add(
        splitter=owner.cv, method_mapping=split_mapping
    )


def _scores(raw, method: str, classes, floor) -> np.ndarray:
    """The transformer's output from raw classifier output (see ``transform``)."""
    layout = "binary" if classes.shape[0] == 2 else "classes"
    scores = response_scores(raw, method, layout, floor)
    return scores.reshape(scores.shape[0], -1)


def _fit_and_score(
    estimator, X, y, train, test, sample_weight, fit_params, method, classes
):
    """Fit ``estimator`` on ``train`` (all rows if None), score ``test``.

    Returns ``(fitted_estimator, scores_of_test or None, resolved_method)``.
    """
    if train is None:
        X_train, y_train, params = X, y, dict(fit_params)
        sw_train = sample_weight
    else:
        X_train, y_train = _safe_indexing(X, train), y[train]
        params = _check_method_params(X, params=fit_params, indices=train)
        sw_train = None if sample_weight is None else sample_weight[train]
    if sw_train is not None:
        params["sample_weight"] = sw_train
    estimator.fit(X_train, y_train, **params)
    resolved = resolve_response_method(estimator, method)
    if test is None:
        return estimator, None, resolved
    scores = class_response(estimator, _safe_indexing(X, test), resolved, classes)
    return estimator, scores, resolved


def _check_partition(splits, n_samples: int) -> None:
    """Each sample in exactly one test fold, never in its own training fold."""
    counts = np.zeros(n_samples, dtype=np.intp)
    in_train = np.zeros(n_samples, dtype=bool)
    for train, test in splits:
        in_train[:] = False
        in_train[train] = True
        if in_train[test].any():
            raise ValueError(
                "`cv` yielded a split whose test fold overlaps its training "
                "fold; out-of-fold scores would come from a model that saw them."
            )
        counts += np.bincount(np.asarray(test, dtype=np.intp), minlength=n_samples)
    if not (counts == 1).all():
        raise ValueError(
            "`cv` must yield test folds that partition the samples (each sample "
            "in exactly one test fold), as cross_val_predict requires; "
            f"{int((counts == 0).sum())} samples are in no test fold and "
            f"{int((counts > 1).sum())} in several."
        )


def cross_fit(
    estimator,
    X,
    y,
    *,
    cv,
    response_method,
    sample_weight=None,
    fit_params=None,
    n_jobs=None,
    fit_full=True,
    classes=None,
    split_params=None,
    select_splits=None,
):
    """Out-of-fold scores of clones of ``estimator`` over the splits of ``cv``.

    ``cv`` is an already checked splitter (``check_cv``), split with
    ``split_params`` (e.g. routed ``groups``). The fold fits and,
    with ``fit_full``, the fit on all the data run as one joblib batch, so the
    full fit overlaps the fold fits when ``n_jobs > 1``. ``select_splits``, if
    given, maps the list of splits to the ones to fit (it may raise), before
    any fit; the scores of test folds it leaves out are NaN. ``classes`` are
    the classes of ``y`` (``None``: found from ``y``). The scores are the
    classifier's raw output
    (:func:`~skcalib.utils._response.class_response`), which
    :func:`~skcalib.utils._response.response_scores` turns into a
    calibrator's input.

    Returns
    -------
    scores : ndarray of shape (n_samples,) (a binary decision function) or \
            (n_samples, n_classes)
        ``scores[test]`` comes from the model fitted on the matching ``train``.
    splits : list of (train, test) index arrays
    fold_estimators : list of fitted clones, one per split
    full_estimator : fitted clone on all rows, or None
    method : str, the resolved response method
    """
    fit_params = {} if fit_params is None else fit_params
    classes = np.unique(y) if classes is None else classes
    n_samples = y.shape[0]
    splits = [
        (np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp))
        for train, test in cv.split(X, y, **(split_params or {}))
    ]
    _check_partition(splits, n_samples)
    if select_splits is not None:  # before any fit
        splits = select_splits(splits)
    tasks = ([(None, None)] if fit_full else []) + splits
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(
            clone(estimator),
            X,
            y,
            train,
            test,
            sample_weight,
            fit_params,
            response_method,
            classes,
        )
        for train, test in tasks
    )
    full_estimator = results[0][0] if fit_full else None
    fold_results = results[1:] if fit_full else results
    methods = {method for _, _, method in results}
    if len(methods) != 1:  # pragma: no cover - only a pathological estimator
        raise ValueError(
            f"The folds of {type(estimator).__name__} resolved to different "
            f"response methods {sorted(methods)}; set `response_method`."
        )
    shape = (n_samples,) + fold_results[0][1].shape[1:]
    scores = np.full(shape, np.nan)  # NaN: test folds not selected
    for (_, test), (_, fold_scores, _) in zip(splits, fold_results, strict=True):
        scores[test] = fold_scores
    fold_estimators = [est for est, _, _ in fold_results]
    return scores, splits, fold_estimators, full_estimator, methods.pop()


def _estimator_weights(estimator, sample_weight, owner: str):
    """``sample_weight`` if ``estimator.fit`` takes it; ``None`` if no weights.

    Raises when weights are given but the estimator cannot use them.
    """
    if sample_weight is None or has_fit_parameter(estimator, "sample_weight"):
        return sample_weight
    raise ValueError(
        f"{type(estimator).__name__}.fit does not accept `sample_weight`, so "
        f"{owner} cannot use the weights that were passed."
    )


def wrapper_docs(model: str) -> dict[str, str]:
    """The docstring blocks of an estimator around a ``model`` (a word: the
    classifier, the estimator), for :func:`~skcalib.utils._docstrings.fill_doc`."""
    return doc_blocks(
        data_parameters=f"""
            Parameters
            ----------
            X : array-like of shape (n_samples, n_features)
                Data, in any form the {model} accepts.
            """,
        training_parameters=f"""
            Parameters
            ----------
            X : array-like of shape (n_samples, n_features)
                Training data, in any form the {model} accepts.
            """,
        fold_fit_params=f"""
            **fit_params : dict
                Other parameters of the {model}'s ``fit``; arrays of length
                ``n_samples`` are restricted to each training fold. With metadata
                routing enabled, the {model} gets those it requests and the
                splitter those it requests (e.g. ``groups``).
            """,
        routing_returns="""
            Returns
            -------
            routing : MetadataRouter
                The routing information.
            """,
    )


_DOCS = wrapper_docs("estimator")


@fill_doc(_DOCS)
class ScoreTransformer(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, MetaEstimatorMixin, BaseEstimator
):
    """Use a classifier's scores as a transformer (one column if binary).

    ``fit`` fits a clone of ``estimator`` on all the data; ``transform``
    returns that clone's scores. ``fit_transform`` returns *out-of-fold*
    scores instead: each sample is scored by a clone fitted on the other
    folds of ``cv`` (the fits run in parallel), and the all-data clone is fitted
    as well. In ``make_pipeline(ScoreTransformer(clf), calibrator)`` the
    calibrator is therefore trained on honest scores, the scores the classifier
    gives to data it has not seen, while prediction uses the classifier
    trained on all the data. For ``y`` with K > 2 classes the output has K
    columns, one per class in the order of ``classes_``.

    Parameters
    ----------
    estimator : classifier object
        A classifier with ``decision_function`` or ``predict_proba``.
        It is cloned; an already fitted model wrapped in scikit-learn's
        ``FrozenEstimator`` is used as is (its ``fit`` does nothing, so all
        scores are then simply the frozen model's).
    response_method : {'auto', 'decision_function', 'predict_proba'}, \
            default='auto'
        The score: ``'auto'`` takes ``decision_function`` if the fitted
        estimator has it, else ``predict_proba``. A probability ``p`` of
        ``classes_[1]`` is turned into the log-odds
        ``log(p) - log(1 - p)`` (computed from both columns), each probability
        first raised to ``proba_floor_``: half the smallest non-zero
        probability the classifier gives on the data ``fit`` or
        ``fit_transform`` scores, but at least 1e-12. A probability of exactly
        0 or 1 thus becomes a log-odds just beyond the most extreme one the
        classifier resolves (about +/-5.3 for a forest of 100 trees) instead
        of +/-708. With K > 2 classes the K columns are the
        ``decision_function`` columns or the log-probabilities ``log p_k``
        (floored the same way).
    cv : int, cross-validation generator, iterable or None, default=5
        Splits for the out-of-fold scores of ``fit_transform``, as in
        ``cross_val_predict``: an int is the number of folds of a
        ``StratifiedKFold``; a splitter or an iterable of ``(train, test)``
        index arrays is used as given (pass precomputed group-aware splits
        this way); the test folds must partition the samples. ``None`` means
        in-sample scores: ``fit_transform`` is ``fit(X, y).transform(X)``, so
        the next step is trained on scores of data the classifier has seen,
        which are typically over-confident (leakage); use it only with a
        ``FrozenEstimator`` fitted on other data or for comparison.
    n_jobs : int, default=None
        Number of jobs for the fits of ``fit_transform`` (folds and the
        all-data fit). ``None`` means 1 unless in a ``joblib.parallel_backend``
        context; ``-1`` means all processors.

    Attributes
    ----------
    estimator_ : estimator object
        The clone of ``estimator`` fitted on all the data; ``transform`` uses it.
    classes_ : ndarray of shape (n_classes,)
        The class labels; binary scores favour ``classes_[1]``, and with
        K > 2 classes column ``k`` scores ``classes_[k]``.
    response_method_ : str
        The method used: ``'decision_function'`` or ``'predict_proba'``.
    proba_floor_ : float or None
        The floor of the probabilities before their logarithm (see
        ``response_method``); ``None`` for a decision function.
    n_features_in_ : int
        Number of features seen by ``estimator_``, if it records it.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen by ``estimator_``, if it records them.

    See Also
    --------
    CalibratedClassifier : The classifier plus calibrator in one estimator.
    sklearn.model_selection.cross_val_predict : The out-of-fold scores alone.

    Notes
    -----
    With the default ``cv=5`` and ``n_jobs=None``, ``fit_transform`` costs six
    fits of the classifier: five on 80% of the data and one on all of it.
    ``fit_transform(X, y)`` equals
    ``cross_val_predict(estimator, X, y, cv=cv, method=...)`` with the same
    splitter (as one column, converted to log-odds for ``predict_proba``), and
    deliberately differs from ``fit(X, y).transform(X)``.

    With ``sklearn.set_config(enable_metadata_routing=True)``, ``sample_weight``
    and the other fit parameters reach the estimator only as it requests them
    (``set_fit_request``), and ``groups`` reach a group-aware ``cv``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcalib import ScoreTransformer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> st = ScoreTransformer(LogisticRegression(), cv=5)
    >>> oof = st.fit_transform(X, y)  # out-of-fold scores, one column
    >>> oof.shape
    (200, 1)
    >>> in_sample = st.transform(X)  # scores of the model fitted on all rows
    >>> bool(np.allclose(oof, in_sample))
    False
    >>> st.get_feature_names_out().tolist()
    ['scoretransformer0']

    Three classes give three out-of-fold score columns:

    >>> y3 = np.digitize(X[:, 0] + rng.normal(size=200), [-0.5, 0.5])
    >>> ScoreTransformer(LogisticRegression()).fit_transform(X, y3).shape
    (200, 3)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "response_method": [StrOptions({"auto", "decision_function", "predict_proba"})],
        "cv": ["cv_object", None],
        "n_jobs": [Integral, None],
    }

    def __init__(self, estimator, *, response_method="auto", cv=5, n_jobs=None):
        store_arguments(self, locals())

    def _prepare_fit(self, X, y, sample_weight, fit_params, method):
        X, y = indexable(X, y)
        y, classes, _ = check_class_y(y, owner=type(self).__name__)
        check_consistent_length(X, y)
        sample_weight = check_weights(sample_weight, y.shape[0])
        split_params = {}
        if routing_enabled():
            fit_params, split_params = routed_fit_params(
                self, method, sample_weight, fit_params
            )
            sample_weight = None  # in fit_params if the estimator requests it
        else:
            sample_weight = _estimator_weights(
                self.estimator, sample_weight, type(self).__name__
            )
        self.classes_ = classes
        return X, y, sample_weight, fit_params, split_params

    def _set_fitted(self, estimator, method):
        self.estimator_ = estimator
        self.response_method_ = method
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
            elif name in self.__dict__:  # left over from an earlier fit
                delattr(self, name)

    def _set_floor(self, raw):
        """``proba_floor_`` from the probabilities the next step is fitted on."""
        if self.response_method_ == "predict_proba":
            self.proba_floor_ = proba_floor(raw)
        else:
            self.proba_floor_ = None

    def _fit_all(self, X, y, sample_weight, fit_params):
        estimator, _, method = _fit_and_score(
            clone(self.estimator),
            X,
            y,
            None,
            None,
            sample_weight,
            fit_params,
            self.response_method,
            self.classes_,
        )
        self._set_fitted(estimator, method)
        return estimator

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit a clone of the estimator on all the data.

        {training_parameters}
        y : array-like of shape (n_samples,)
            Target of 2 or more classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the estimator's ``fit`` (which must accept it); with
            metadata routing enabled, only if the estimator requests it.
        **fit_params : dict
            Other parameters of the estimator's ``fit`` (with metadata
            routing enabled: those it requests).

        Returns
        -------
        self : object
            The fitted transformer.
        """
        X, y, sample_weight, fit_params, _ = self._prepare_fit(
            X, y, sample_weight, fit_params, "fit"
        )
        estimator = self._fit_all(X, y, sample_weight, fit_params)
        if self.response_method_ == "predict_proba":
            self._set_floor(
                class_response(estimator, X, self.response_method_, self.classes_)
            )
        else:
            self._set_floor(None)
        return self

    @_fit_context(prefer_skip_nested_validation=False)
    def fit_transform(self, X, y, sample_weight=None, **fit_params):
        """Fit on all the data and return out-of-fold scores.

        {training_parameters}
        y : array-like of shape (n_samples,)
            Target of 2 or more classes; stratifies an integer ``cv``.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed (restricted to the training fold) to the estimator's
            ``fit``, which must accept it; with metadata routing enabled, only
            if the estimator requests it.
        {fold_fit_params}

        Returns
        -------
        scores : ndarray of shape (n_samples, 1) or (n_samples, n_classes)
            Each sample's scores from the clone that did not see it (or, with
            ``cv=None``, from the all-data clone).
        """
        X, y, sample_weight, fit_params, split_params = self._prepare_fit(
            X, y, sample_weight, fit_params, "fit_transform"
        )
        if self.cv is None:
            estimator = self._fit_all(X, y, sample_weight, fit_params)
            raw = class_response(estimator, X, self.response_method_, self.classes_)
        else:
            cv = check_cv(self.cv, y, classifier=True)
            raw, _, _, estimator, method = cross_fit(
                self.estimator,
                X,
                y,
                cv=cv,
                response_method=self.response_method,
                sample_weight=sample_weight,
                fit_params=fit_params,
                n_jobs=self.n_jobs,
                classes=self.classes_,
                split_params=split_params,
            )
            self._set_fitted(estimator, method)
        self._set_floor(raw)
        return _scores(raw, self.response_method_, self.classes_, self.proba_floor_)

    def transform(self, X):
        """Scores of the estimator fitted on all the data.

        {data_parameters}

        Returns
        -------
        scores : ndarray of shape (n_samples, 1) or (n_samples, n_classes)
            Binary: higher favours ``classes_[1]``. Multiclass: column ``k``
            favours ``classes_[k]``.
        """
        check_is_fitted(self)
        raw = class_response(self.estimator_, X, self.response_method_, self.classes_)
        return _scores(raw, self.response_method_, self.classes_, self.proba_floor_)

    @property
    def _n_features_out(self):
        n_classes = self.classes_.shape[0]
        return 1 if n_classes == 2 else n_classes

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        ``fit`` and ``fit_transform`` route fit parameters to the estimator's
        ``fit`` and, in ``fit_transform``, to the splitter's ``split`` (see
        scikit-learn's metadata routing user guide).

        {routing_returns}
        """
        return estimator_router(
            self,
            self.estimator,
            {"fit": False, "fit_transform": self.cv is not None},
            consumes_weights=False,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        tags.input_tags.categorical = inner.input_tags.categorical
        tags.input_tags.string = inner.input_tags.string
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=True)
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
