"""The one module that imports scikit-learn's private API.

Everything skcalib needs from ``sklearn.utils._*`` goes through here, so a
scikit-learn release that moves a helper breaks one file, not the package.
"""

import functools
import inspect
import re

import numpy as np
from sklearn import config_context, get_config
from sklearn.base import _fit_context as _sklearn_fit_context
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils._tags import ClassifierTags
from sklearn.utils.validation import _check_method_params, _check_n_features
from sklearn.utils.validation import validate_data as _sklearn_validate_data

try:  # the HTML display's block (scikit-learn >= 1.6: utils._repr_html)
    from sklearn.utils._repr_html.estimator import _VisualBlock
except ImportError:  # pragma: no cover - older layout
    from sklearn.utils._estimator_html_repr import _VisualBlock

__all__ = [
    "_check_method_params",
    "_check_n_features",
    "_fit_context",
    "_safe_indexing",
    "_VisualBlock",
    "ClassifierTags",
    "HasMethods",
    "Hidden",
    "Interval",
    "Options",
    "StrOptions",
    "threadpool_controller",
    "validate_data",
    "validate_parameter_constraints",
    "validate_params",
    "validate_estimator_params",
]

#: Parameter values whose validity is a function of their type and value
#: alone (immutable, hashable): remembered once they passed a constraint.
_SCALAR_TYPES = frozenset(
    {type(None), bool, int, float, str, np.bool_, np.int64, np.float64}
)
#: At most this many remembered values per function or estimator class.
_MAX_REMEMBERED = 1024
_UNSEEN = object()


def _check_params(constraints, params, caller_name, valid):
    """scikit-learn's ``validate_parameter_constraints``, skipped when every
    value is known valid.

    A parameter's check depends only on its own value, so a scalar value
    (:data:`_SCALAR_TYPES`) of the same type that passed the same constraints
    before passes again, and an ``ndarray`` passes ``"array-like"``;
    ``valid`` is the set of ``(name, type, value)`` that passed. Anything
    else, and every error, goes through scikit-learn.
    """
    seen = _not_known_valid(constraints, params.items(), valid)
    if seen == []:
        return
    validate_parameter_constraints(constraints, params, caller_name=caller_name)
    if seen and len(valid) < _MAX_REMEMBERED:
        valid.update(seen)


def _not_known_valid(constraints, items, valid):
    """The ``(name, type, value)`` of the ``(name, value)`` items that are
    not known valid (see :func:`_check_params`); None if a value cannot be
    remembered."""
    seen = []
    for name, value in items:
        if constraints.get(name, "no_validation") == "no_validation":
            continue
        kind = type(value)
        if kind in _SCALAR_TYPES:
            key = (name, kind, value)
            if key not in valid:
                seen.append(key)
        elif not (kind is np.ndarray and "array-like" in constraints[name]):
            return None
    return seen


try:  # the per-thread configuration dict itself, not get_config's copy
    from sklearn._config import _get_threadlocal_config, _threadlocal
except ImportError:  # pragma: no cover - moved in a later release
    _get_threadlocal_config = _threadlocal = None


def _binder(signature, constraints):
    """Functions mapping ``(args, kwargs)`` to the parameters of a call.

    ``bind``: like ``signature.bind`` followed by ``apply_defaults``, without
    ``self``, ``cls`` and ``*args``/``**kwargs``, in the order of the
    signature. A call that is not plainly valid (too many arguments, an
    unknown or duplicated name, a missing argument), or a signature with
    positional-only or variadic parameters, goes through ``signature.bind``,
    which raises its usual ``TypeError``. ``known(args, kwargs, valid)``:
    whether the call is plainly valid and every argument given is known
    valid for ``constraints`` (as in :func:`_not_known_valid`, ``valid``
    being the remembered values), in a shape of call (number of positional
    arguments, keyword names) that ``passed(args, kwargs)`` marked after its
    parameters, defaults included, passed the check.
    """
    parameters = list(signature.parameters.values())
    ignored = {"self", "cls"} | {
        p.name for p in parameters if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }

    def bind_slowly(args, kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return {k: v for k, v in bound.arguments.items() if k not in ignored}

    if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters):
        return bind_slowly, lambda args, kwargs, valid: False, lambda args, kwargs: None
    positional = tuple(p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD)
    names = frozenset(p.name for p in parameters)
    defaults = {p.name: p.default for p in parameters if p.default is not p.empty}
    required = names - defaults.keys()
    order = [p.name for p in parameters if p.name not in ignored]
    unchecked = frozenset(
        name
        for name in names
        if constraints.get(name, "no_validation") == "no_validation"
    )
    array_like = frozenset(
        name for name in names - unchecked if "array-like" in constraints[name]
    )

    shapes = {}
    # shapes of call whose defaults passed (a shape fixes which defaults a
    # call uses): a default that fails raises whenever it is used
    defaults_passed = set()

    def passed(args, kwargs):
        if len(defaults_passed) < _MAX_REMEMBERED:
            defaults_passed.add((len(args), *kwargs))

    def known(args, kwargs, valid):
        # per shape of call: None if not plainly valid, True if every
        # positional parameter is array-like, else their names
        key = (len(args), *kwargs)
        if key not in defaults_passed:
            return False
        by_position = shapes.get(key, _UNSEEN)
        if by_position is _UNSEEN:
            by_position = positional[: len(args)]
            plain = (
                len(args) <= len(positional)
                and kwargs.keys() <= names
                and kwargs.keys().isdisjoint(by_position)
                and required <= kwargs.keys() | set(by_position)
            )
            if len(shapes) >= _MAX_REMEMBERED:
                return False
            if not plain:
                by_position = None
            elif array_like.issuperset(by_position):
                by_position = True
            shapes[key] = by_position
        if by_position is True:  # the common case: arrays given by position
            for value in args:
                if type(value) is not np.ndarray:
                    return False
        elif by_position is None or not _all_known(
            zip(by_position, args, strict=True), valid
        ):
            return False
        return _all_known(kwargs.items(), valid)

    def _all_known(items, valid):
        for name, value in items:
            kind = type(value)
            if kind in _SCALAR_TYPES:
                if (name, kind, value) not in valid and name not in unchecked:
                    return False
            elif kind is np.ndarray:
                if name not in array_like and name not in unchecked:
                    return False
            elif name not in unchecked:
                return False
        return True

    def bind(args, kwargs):
        if len(args) > len(positional) or not kwargs.keys() <= names:
            return bind_slowly(args, kwargs)
        given = dict(zip(positional, args, strict=False))
        if not given.keys().isdisjoint(kwargs):
            return bind_slowly(args, kwargs)
        given.update(kwargs)
        if not required <= given.keys():
            return bind_slowly(args, kwargs)
        return {k: given[k] if k in given else defaults[k] for k in order}

    return bind, known, passed


def validate_params(parameter_constraints, *, prefer_skip_nested_validation):
    """scikit-learn's ``validate_params`` decorator, with less work per call.

    The same checks, errors and configuration context, but the function's
    signature is read once at decoration (scikit-learn binds the arguments
    through it on every call), values already known valid are not checked
    again (see :func:`_check_params`), and the nested-validation switch is
    set in scikit-learn's per-thread configuration directly rather than
    through ``config_context`` (which copies and sets every option twice):
    on a hundred samples scikit-learn's wrapper costs more than the metric
    it wraps.
    """

    def decorator(func):
        func._skl_parameter_constraints = parameter_constraints
        bind, known, passed = _binder(inspect.signature(func), parameter_constraints)
        valid = set()

        def renamed(e):
            msg = re.sub(
                r"parameter of \w+ must be",
                f"parameter of {func.__qualname__} must be",
                str(e),
            )
            return InvalidParameterError(msg)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:  # what _get_threadlocal_config returns, once it was called
                config = _threadlocal.global_config
            except AttributeError:
                if _get_threadlocal_config is None:  # pragma: no cover
                    config = get_config()
                else:
                    config = _get_threadlocal_config()
            if config["skip_parameter_validation"]:
                return func(*args, **kwargs)
            if not known(args, kwargs, valid):
                params = bind(args, kwargs)
                _check_params(parameter_constraints, params, func.__qualname__, valid)
                passed(args, kwargs)
            if _get_threadlocal_config is None:  # pragma: no cover
                with config_context(
                    skip_parameter_validation=prefer_skip_nested_validation
                ):
                    try:
                        return func(*args, **kwargs)
                    except InvalidParameterError as e:
                        raise renamed(e) from e
            # as config_context: every option restored on the way out, also
            # one that func set (scikit-learn's set_config)
            saved = config.copy()
            config["skip_parameter_validation"] = prefer_skip_nested_validation
            try:
                return func(*args, **kwargs)
            except InvalidParameterError as e:
                raise renamed(e) from e
            finally:
                config.update(saved)

        return wrapper

    return decorator


def _fit_context(*, prefer_skip_nested_validation):
    """scikit-learn's ``_fit_context`` decorator of ``fit`` methods, with
    less work per call.

    The same steps: ``estimator._validate_params()`` unless validation is
    skipped, then ``fit`` with the nested-validation switch set. The switch
    is set in scikit-learn's per-thread configuration directly (as in
    :func:`validate_params`), not through ``get_config`` and
    ``config_context``, which copy and set every option: about 30 us per
    fit, a quarter of a PAV fit on a hundred scores. ``partial_fit``, an
    estimator given scikit-learn callbacks, and a scikit-learn without the
    per-thread configuration take scikit-learn's decorator.
    """
    sklearn_decorator = _sklearn_fit_context(
        prefer_skip_nested_validation=prefer_skip_nested_validation
    )

    def decorator(fit_method):
        slow = sklearn_decorator(fit_method)
        if _get_threadlocal_config is None or fit_method.__name__ == "partial_fit":
            return slow  # pragma: no cover - no such release or method

        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            if getattr(estimator, "_skl_callbacks", None):
                return slow(estimator, *args, **kwargs)
            config = _get_threadlocal_config()
            skip = config["skip_parameter_validation"]
            if not skip:
                estimator._validate_params()
            saved = config.copy()  # restored whole, as by config_context
            config["skip_parameter_validation"] = prefer_skip_nested_validation or skip
            try:
                return fit_method(estimator, *args, **kwargs)
            finally:
                config.update(saved)

        return wrapper

    return decorator


@functools.cache
def _param_names(cls):
    # BaseEstimator reads the signature of __init__ on every get_params
    return cls._get_param_names()


_VALID_ESTIMATOR_PARAMS: dict = {}


def validate_estimator_params(estimator):
    """What ``BaseEstimator._validate_params`` checks, with the parameter
    names read once per class and values known valid not checked again."""
    cls = type(estimator)
    params = {name: getattr(estimator, name) for name in _param_names(cls)}
    _check_params(
        estimator._parameter_constraints,
        params,
        cls.__name__,
        _VALID_ESTIMATOR_PARAMS.setdefault(cls, set()),
    )


def validate_data(estimator, /, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, without its warning on huge values,
    and at no cost for plain float64 arrays that pass it.

    Its finiteness check first sums the array with only overflow silenced:
    scores of +1.7e308 and -1.7e308 in one array make that sum ``inf - inf``
    and leak "invalid value encountered in reduce" before the exact check
    (which then accepts them) runs.

    On a hundred samples, its dataframe and array-API detection cost more
    than a PAV fit. Input that it would return unchanged (see
    :func:`_unchanged_by_validation`) only gets the feature bookkeeping of
    ``validate_data`` (``n_features_in_``, no ``feature_names_in_``); all
    other input, and every error, goes through scikit-learn.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if _unchanged_by_validation(estimator, X, y, **kwargs):
            if kwargs.get("reset", True) and hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
            _check_n_features(estimator, X, reset=kwargs.get("reset", True))
            return X if isinstance(y, str) else (X, np.ascontiguousarray(y))
        return _sklearn_validate_data(estimator, X, y, **kwargs)


def _unchanged_by_validation(
    estimator,
    X,
    y,
    *,
    reset=True,
    dtype=None,
    ensure_all_finite=True,
    order=None,
    y_numeric=False,
    **others,
):
    """Whether ``validate_data`` would return ``X`` (and ``y`` as C-ordered)
    unchanged and set no feature names: a finite, non-empty 2-D float64
    ``ndarray`` in the requested order, and a 1-D ``ndarray`` of labels of as
    many samples (booleans, integers, strings or finite floats)."""
    if others or dtype is not np.float64 or ensure_all_finite is not True:
        return False
    if type(X) is not np.ndarray or X.dtype != np.float64 or X.ndim != 2:
        return False
    if (order == "F" and not X.flags.f_contiguous) or (
        order == "C" and not X.flags.c_contiguous
    ):
        return False
    if not (X.shape[0] and X.shape[1]) or not np.isfinite(X.sum()):
        return False
    if not reset and getattr(estimator, "feature_names_in_", None) is not None:
        return False  # scikit-learn's warning about the missing names
    if isinstance(y, str):
        return y == "no_validation"
    return (
        type(y) is np.ndarray
        and y.ndim == 1
        and y.shape[0] == X.shape[0]
        and (y.dtype.kind in "biuU" or (y.dtype.kind == "f" and np.isfinite(y.sum())))
    )


def threadpool_controller():
    """scikit-learn's cached threadpoolctl controller (building one costs
    milliseconds), or a new one where scikit-learn has none."""
    try:
        from sklearn.utils.parallel import _get_threadpool_controller
    except ImportError:  # pragma: no cover - older scikit-learn
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController()
    return _get_threadpool_controller()
