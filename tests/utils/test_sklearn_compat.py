"""The compatibility shims against the scikit-learn and SciPy they stand in for.

``skcalib.utils._sklearn_compat`` re-implements scikit-learn's
``validate_params`` and ``_fit_context`` (for speed on small inputs): it
remembers values known valid and writes scikit-learn's per-thread
configuration. Here both decorators wrap the same functions and estimators,
and must raise the same exception with the same message, accept the same
values, and skip validation (configured or nested) alike.
"""

import sys
import threading
import types
import warnings
from numbers import Integral, Real

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator
from sklearn.base import _fit_context as sklearn_fit_context
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.utils._param_validation import (
    InvalidParameterError,
    validate_parameter_constraints,
)
from sklearn.utils._param_validation import validate_params as sklearn_validate_params

from skcalib.metrics import cllr as cllr_metric
from skcalib.utils import _scipy_compat
from skcalib.utils import _sklearn_compat as compat
from skcalib.utils._sklearn_compat import (
    HasMethods,
    Hidden,
    Interval,
    Options,
    StrOptions,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=80)


class _Model:
    def fit(self):
        pass

    def predict(self):
        pass


CONSTRAINTS = {
    "int_left": [Interval(Integral, 1, None, closed="left")],
    "int_both": [Interval(Integral, 0, 10, closed="both")],
    "int_neither": [Interval(Integral, -1, 3, closed="neither")],
    "real_neither": [Interval(Real, 0, 1, closed="neither")],
    "real_right": [Interval(Real, 0, 1, closed="right")],
    "real_left_unbounded": [Interval(Real, 0, None, closed="left")],
    "real_unbounded_right": [Interval(Real, None, 0, closed="right")],
    "str_options": [StrOptions({"a", "b"}), None],
    "options": [Options(Real, {-np.inf, np.inf, 0.5})],
    "has_methods": [HasMethods(["fit", "predict"])],
    "array_like": ["array-like"],
    "sparse": ["sparse matrix"],
    "array_or_sparse": ["array-like", "sparse matrix"],
    "callable": [callable],
    "none": [None],
    "boolean": ["boolean"],
    "random_state": ["random_state"],
    "cv_object": ["cv_object"],
    "verbose": ["verbose"],
    "type": [float, str],
    "hidden": [Interval(Real, 0, None, closed="left"), Hidden(StrOptions({"secret"}))],
    "multiple": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="neither"),
        StrOptions({"auto"}),
        None,
        "array-like",
    ],
    "real_or_boolean": [Interval(Real, 0, 1, closed="both"), "boolean"],
    "no_validation": "no_validation",
}

_SPECIAL = [
    0, 1, 2, -1, 10, 11, 2**32 - 1, 2**32, 0.0, -0.0, 0.5, 1.0, 2.0, -1.0,
    1e-300, np.nan, np.inf, -np.inf, True, False, None, "a", "b", "auto",
    "secret", "A", "", "array-like",
]  # fmt: skip

_OBJECTS = [
    sp.csr_matrix(np.eye(2)),
    sp.csr_array(np.eye(2)),
    np.zeros(2),
    [0.5],
    len,
    np.mean,
    int,
    float,
    str,
    object(),
    _Model(),
    _Model,
    KFold(3),
    np.random.RandomState(0),
    np.random.default_rng(0),
    {"a": 1},
    {"a"},
]

VALUES = st.one_of(
    st.sampled_from(_SPECIAL),
    st.integers(-3, 12),
    st.integers(),
    st.floats(),
    st.text(max_size=2),
    st.sampled_from(_SPECIAL[:20]).map(np.float64),
    st.integers(-3, 12).map(np.int64),
    st.integers(-3, 12).map(np.int32),
    st.floats(width=32).map(np.float32),
    st.booleans().map(np.bool_),
    st.lists(st.integers(-2, 2), max_size=3),
    st.lists(st.floats(), max_size=3).map(tuple),
    st.lists(st.floats(), max_size=3).map(np.asarray),
    st.floats().map(np.asarray),  # 0-d array
    st.sampled_from(_OBJECTS),
)


def _functions(constraints, decorate, prefer_skip=True):
    """``f(x, y=None, *, z="a")`` with ``constraints`` on ``x``, decorated by
    ``decorate``; same qualified name whatever ``decorate`` is."""

    def f(x, y=None, *, z="a"):
        return x, sklearn.get_config()["skip_parameter_validation"]

    return decorate(
        {"x": constraints, "y": [None, "array-like"], "z": [StrOptions({"a", "b"})]},
        prefer_skip_nested_validation=prefer_skip,
    )(f)


#: One function per constraint and decorator, kept across examples so that
#: the shim's memory of valid values carries from one example to the next.
SHIM = {k: _functions(c, compat.validate_params) for k, c in CONSTRAINTS.items()}
SKLEARN = {k: _functions(c, sklearn_validate_params) for k, c in CONSTRAINTS.items()}


def _outcome(f, *args, **kwargs):
    try:
        out = f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e), str(e)
    assert out[0] is (args[0] if args else kwargs["x"])
    return "ok", out[1]


def _same(name, how, value):
    args, kwargs = {
        "position": ((value,), {}),
        "keyword": ((), {"x": value}),
        "all": ((value, None), {"z": "b"}),
    }[how]
    expected = _outcome(SKLEARN[name], *args, **kwargs)
    assert _outcome(SHIM[name], *args, **kwargs) == expected
    return expected


@pytest.mark.parametrize("name", CONSTRAINTS)
@HYP
@given(value=VALUES, how=st.sampled_from(["position", "keyword", "all"]))
def test_validate_params_raises_and_accepts_as_sklearn(name, value, how):
    _same(name, how, value)
    # and again, once the shim may have remembered it
    _same(name, how, value)


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_the_values_cover_both_outcomes(name):
    # the property above is not vacuous: each constraint meets both outcomes
    seen = {_outcome(SKLEARN[name], v)[0] for v in _SPECIAL + _OBJECTS}
    expected = {"ok"} if name == "no_validation" else {"ok", InvalidParameterError}
    assert seen == expected


@pytest.mark.parametrize(
    "name, valid, others",
    [
        ("int_left", 1, [True, 1.0, np.float64(1.0), "1", [1]]),
        ("int_both", 0, [False, 0.0, -0.0, np.float32(0.0), None]),
        ("real_right", 1.0, [np.nan, np.float64(np.nan), True, "1.0", 0.0, -0.0]),
        ("real_neither", 0.5, [np.nan, 0.0, -0.0, 1.0, np.bool_(True)]),
        ("str_options", "a", ["A", "c", 1, True]),
        ("boolean", True, [1, 1.0, "True", None]),
        ("boolean", np.bool_(False), [0, 0.0, np.float64(0.0)]),
        ("random_state", 0, [-1, 2**32, 0.0, False]),
        ("cv_object", 2, [1, 2.0, True, "2"]),
        ("multiple", 0.5, [0, 0.0, 1.0, np.nan, "Auto", False]),
        ("multiple", 1, [1.0, -1, True]),
        ("real_or_boolean", 1, [np.int64(2), 2, np.nan]),
    ],
)
def test_remembered_valid_values_never_accept_an_equal_value_of_another_type(
    name, valid, others
):
    """The shim remembers (name, type, value) of valid scalars: a value
    equal to a valid one (1 == True == 1.0, 0.0 == -0.0) but of another type,
    or NaN, is still judged as scikit-learn judges it."""
    for how in ["position", "keyword", "all"]:
        assert _same(name, how, valid)[0] == "ok"
        for value in others:
            _same(name, how, value)
            _same(name, how, value)


def test_a_mutated_object_is_checked_again():
    obj, arr = types.SimpleNamespace(fit=len, predict=len), np.zeros(2)
    seq = [1.0]
    for how in ["position", "keyword"]:
        assert _same("has_methods", how, obj)[0] == "ok"
        del obj.predict
        assert _same("has_methods", how, obj)[0] is InvalidParameterError
        obj.predict = len
        # an array is array-like whatever its values; not a sparse matrix
        assert _same("array_like", how, arr)[0] == "ok"
        arr[0] = np.nan
        assert _same("array_like", how, arr)[0] == "ok"
        assert _same("sparse", how, arr)[0] is InvalidParameterError
        assert _same("array_or_sparse", how, seq)[0] == "ok"
        seq.append("x")
        assert _same("array_or_sparse", how, seq)[0] == "ok"
        assert _same("real_right", how, seq)[0] is InvalidParameterError


def test_the_memory_is_per_function_and_per_parameter():
    shim_a = _functions(CONSTRAINTS["real_right"], compat.validate_params)
    shim_b = _functions(CONSTRAINTS["int_both"], compat.validate_params)
    assert shim_a(0.5)[0] == 0.5
    with pytest.raises(InvalidParameterError, match="'x' parameter"):
        shim_b(0.5)
    # "b" is valid for z but not for x
    assert shim_b(3, z="b")[0] == 3
    with pytest.raises(InvalidParameterError, match="'x' parameter"):
        shim_b("b", z="b")


def test_the_memory_is_bounded():
    f = _functions(CONSTRAINTS["real_left_unbounded"], compat.validate_params)
    for i in range(compat._MAX_REMEMBERED + 10):
        f(float(i))
    with pytest.raises(InvalidParameterError):
        f(-1.0)
    assert f(1e9)[0] == 1e9


@pytest.mark.parametrize("decorate", [compat.validate_params, sklearn_validate_params])
def test_an_invalid_default_raises_whenever_it_is_used(decorate):
    # shim divergence (fixed): once f(0.5, y=array) passed, f(0.5) skipped
    # the check of y's default None
    @decorate(
        {"x": [Real], "y": ["array-like"], "z": [StrOptions({"a"})]},
        prefer_skip_nested_validation=True,
    )
    def f(x, y=None, *, z="a"):
        return x

    for _ in range(2):
        assert f(0.5, np.zeros(2)) == 0.5
        assert f(0.5, y=np.zeros(2), z="a") == 0.5
        with pytest.raises(InvalidParameterError, match="'y' parameter of .*f must"):
            f(0.5)
        with pytest.raises(InvalidParameterError, match="'y' parameter of .*f must"):
            f(0.5, z="a")


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f(),
        lambda f: f(1, 2, 3),
        lambda f: f(1, x=1),
        lambda f: f(1, w=1),
        lambda f: f(1, None, "a"),
    ],
)
def test_a_wrong_call_raises_the_same_type_error(call):
    for _ in range(2):  # before and after a valid call
        with pytest.raises(TypeError) as shim:
            call(SHIM["real_right"])
        with pytest.raises(TypeError) as ref:
            call(SKLEARN["real_right"])
        assert str(shim.value) == str(ref.value)
        SHIM["real_right"](0.5), SKLEARN["real_right"](0.5)


@pytest.mark.parametrize("decorate", [compat.validate_params, sklearn_validate_params])
def test_a_signature_with_variadic_parameters(decorate):
    @decorate(
        {"a": [Interval(Real, 0, 1, closed="both")]}, prefer_skip_nested_validation=True
    )
    def g(a, *args, b=1, **kwargs):
        return a, args, kwargs

    assert g(0.5, 1, 2, c=3) == (0.5, (1, 2), {"c": 3})
    with pytest.raises(InvalidParameterError, match="The 'a' parameter of .*g must"):
        g(2.0, 1)


@pytest.mark.parametrize("name", ["real_right", "int_left", "sparse"])
def test_skip_parameter_validation_is_honoured(name):
    for value in [-1.0, "bad", None]:
        with sklearn.config_context(skip_parameter_validation=True):
            # the function runs unvalidated, the config seen inside unchanged
            assert _outcome(SHIM[name], value) == ("ok", True)
            assert _outcome(SKLEARN[name], value) == ("ok", True)
        assert sklearn.get_config()["skip_parameter_validation"] is False
        assert _same(name, "position", value)[0] is InvalidParameterError


def _nested(decorate, prefer_skip):
    """An outer function calling an inner one with an invalid value; both
    share their names whatever ``decorate`` is."""

    def inner(x):
        return sklearn.get_config()["skip_parameter_validation"]

    def outer(x):
        return inner(x)

    # plain names, which scikit-learn's error renaming matches
    inner.__qualname__, outer.__qualname__ = "inner", "outer"
    inner = decorate(
        {"x": [Interval(Real, 0, 1, closed="both")]},
        prefer_skip_nested_validation=True,
    )(inner)
    return decorate({"x": [Real]}, prefer_skip_nested_validation=prefer_skip)(outer)


@pytest.mark.parametrize("prefer_skip", [True, False])
@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize("x", [0.5, 2.0])
def test_nested_calls_skip_validation_as_sklearn(prefer_skip, skip, x):
    outcomes = []
    for decorate in [compat.validate_params, sklearn_validate_params]:
        outer = _nested(decorate, prefer_skip)
        with sklearn.config_context(skip_parameter_validation=skip):
            try:
                outcomes.append(("ok", outer(x)))
            except InvalidParameterError as e:
                # renamed to the outer function
                outcomes.append((type(e), str(e), type(e.__cause__)))
            assert sklearn.get_config()["skip_parameter_validation"] is skip
    assert outcomes[0] == outcomes[1]
    raises = x == 2.0 and not (prefer_skip or skip)
    assert (outcomes[0][0] is InvalidParameterError) == raises
    if raises:
        assert "parameter of outer must be" in outcomes[0][1]


@pytest.mark.parametrize("decorate", [compat.validate_params, sklearn_validate_params])
def test_the_configuration_is_restored_after_an_exception(decorate):
    @decorate({"x": [Real]}, prefer_skip_nested_validation=True)
    def boom(x):
        assert sklearn.get_config()["skip_parameter_validation"] is True
        raise ZeroDivisionError(x)

    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            boom(1.0)
        assert sklearn.get_config()["skip_parameter_validation"] is False


@pytest.mark.parametrize("decorate", [compat.validate_params, sklearn_validate_params])
def test_an_option_set_inside_is_restored_as_sklearn_does(decorate):
    # scikit-learn's config_context restores every option on the way out
    @decorate({"x": [Real]}, prefer_skip_nested_validation=True)
    def sets(x):
        sklearn.set_config(assume_finite=True)

    with sklearn.config_context(assume_finite=False):
        before = sklearn.get_config()
        sets(1.0)
        assert sklearn.get_config() == before


def test_the_configuration_is_per_thread():
    entered, checked = threading.Event(), threading.Event()
    seen = {}

    @compat.validate_params({"x": [Real]}, prefer_skip_nested_validation=True)
    def slow(x):
        entered.set()
        checked.wait(10)
        return sklearn.get_config()["skip_parameter_validation"]

    def other():
        entered.wait(10)
        seen["config"] = sklearn.get_config()["skip_parameter_validation"]
        try:
            SHIM["real_right"](2.0)
        except InvalidParameterError:
            seen["raised"] = True
        checked.set()

    thread = threading.Thread(target=other)
    thread.start()
    assert slow(1.0) is True
    thread.join()
    assert seen == {"config": False, "raised": True}
    assert sklearn.get_config()["skip_parameter_validation"] is False


# ------------------------------------------------------------- estimators
def _estimator(constraints, fit_context, prefer_skip=True, inner=None):
    """An estimator with ``constraints`` on ``x``; its ``fit`` records the
    configuration and fits ``inner`` (a nested estimator) if given."""

    class Est(BaseEstimator):
        _parameter_constraints = {"x": constraints}

        def __init__(self, x=None):
            self.x = x

        @fit_context(prefer_skip_nested_validation=prefer_skip)
        def fit(self, X=None, y=None):
            self.skip_ = sklearn.get_config()["skip_parameter_validation"]
            if inner is not None:
                inner.fit()
            if X == "raise":
                raise ZeroDivisionError
            return self

    return Est


def _fit_outcome(est, *args):
    try:
        est.fit(*args)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e), str(e)
    return "ok", est.skip_


EST_SHIM = {k: _estimator(c, compat._fit_context) for k, c in CONSTRAINTS.items()}
EST_SKLEARN = {k: _estimator(c, sklearn_fit_context) for k, c in CONSTRAINTS.items()}


class _Validated:
    """The same, validated as skcalib's estimators are (``_base``)."""

    def _validate_params(self):
        compat.validate_estimator_params(self)


EST_SKCALIB = {k: type("Est", (_Validated, cls), {}) for k, cls in EST_SHIM.items()}


@pytest.mark.parametrize("name", CONSTRAINTS)
@HYP
@given(value=VALUES)
def test_fit_context_raises_and_accepts_as_sklearn(name, value):
    expected = _fit_outcome(EST_SKLEARN[name](x=value))
    for _ in range(2):
        assert _fit_outcome(EST_SHIM[name](x=value)) == expected
        assert _fit_outcome(EST_SKCALIB[name](x=value)) == expected


@pytest.mark.parametrize("family", [EST_SHIM, EST_SKCALIB])
def test_fit_context_skips_validation_when_configured(family):
    for est in [family, EST_SKLEARN]:
        with sklearn.config_context(skip_parameter_validation=True):
            assert _fit_outcome(est["real_right"](x="bad")) == ("ok", True)
        assert sklearn.get_config()["skip_parameter_validation"] is False


@pytest.mark.parametrize("prefer_skip", [True, False])
@pytest.mark.parametrize("skip", [True, False])
def test_nested_fits_skip_validation_as_sklearn(prefer_skip, skip):
    outcomes = []
    for fit_context in [compat._fit_context, sklearn_fit_context]:
        inner = _estimator(CONSTRAINTS["real_right"], fit_context)(x=2.0)
        outer = _estimator([Real], fit_context, prefer_skip, inner=inner)(x=1.0)
        with sklearn.config_context(skip_parameter_validation=skip):
            outcomes.append(_fit_outcome(outer))
            assert sklearn.get_config()["skip_parameter_validation"] is skip
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0][0] is InvalidParameterError) == (not (prefer_skip or skip))


@pytest.mark.parametrize("fit_context", [compat._fit_context, sklearn_fit_context])
def test_fit_context_restores_the_configuration(fit_context):
    est = _estimator([Real], fit_context)(x=1.0)
    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            est.fit("raise")
        assert est.skip_ is True
        assert sklearn.get_config()["skip_parameter_validation"] is False

    class Sets(BaseEstimator):
        _parameter_constraints: dict = {}

        @fit_context(prefer_skip_nested_validation=True)
        def fit(self):
            sklearn.set_config(assume_finite=True)

    with sklearn.config_context(assume_finite=False):
        before = sklearn.get_config()
        Sets().fit()
        assert sklearn.get_config() == before


def test_fit_context_configuration_is_per_thread():
    entered, checked = threading.Event(), threading.Event()
    seen = {}

    class Slow(BaseEstimator):
        _parameter_constraints: dict = {}

        @compat._fit_context(prefer_skip_nested_validation=True)
        def fit(self):
            entered.set()
            checked.wait(10)
            self.skip_ = sklearn.get_config()["skip_parameter_validation"]

    def other():
        entered.wait(10)
        seen["config"] = sklearn.get_config()["skip_parameter_validation"]
        seen["fit"] = _fit_outcome(EST_SHIM["real_right"](x=2.0))[0]
        checked.set()

    thread = threading.Thread(target=other)
    thread.start()
    est = Slow()
    est.fit()
    thread.join()
    assert est.skip_ is True
    assert seen == {"config": False, "fit": InvalidParameterError}


# ------------------------------------------------------------------ scipy
def test_scipy_pava_is_the_compiled_routine():
    assert _scipy_compat.pava is not None
    x, total, r, b = _scipy_compat.pava(
        np.array([3.0, 1.0, 2.0]), np.ones(3), np.full(4, -1, dtype=np.intp)
    )
    assert b == 1 and r[:2].tolist() == [0, 3]
    np.testing.assert_array_equal(x, [2.0, 2.0, 2.0])


def test_scipy_pava_falls_back_when_moved_or_changed(monkeypatch):
    assert _scipy_compat._load_pava("scipy.optimize._no_such_module") is None
    moved = types.ModuleType("moved")
    monkeypatch.setitem(sys.modules, "moved", moved)
    assert _scipy_compat._load_pava("moved") is None  # no pava in it

    def changed(y, w, r):  # returns the input unpooled
        return y, w, r, len(y)

    moved.pava = changed
    assert _scipy_compat._load_pava("moved") is None


# ------------------------------------- skcalib's own functions and estimators
def _public_validated_functions():
    """``(name, function)`` of every public function of skcalib decorated by
    the shim's ``validate_params``."""
    import inspect

    import skcalib
    import skcalib.datasets
    import skcalib.metrics

    out = {}
    for module in (skcalib, skcalib.metrics, skcalib.datasets):
        for name in module.__all__:
            f = getattr(module, name)
            if (
                inspect.isfunction(f)
                and hasattr(f, "_skl_parameter_constraints")
                and hasattr(f, "__wrapped__")
            ):
                out[f"{module.__name__}.{name}"] = f
    return sorted(out.items())


FUNCTIONS = _public_validated_functions()

#: Values tried for every constrained parameter: each constraint kind of
#: skcalib meets valid and invalid ones among them.
PROBES = [
    -1, 0, 1, 2, 10, -1.0, 0.0, 0.5, 1.0, 2.0, np.nan, np.inf, -np.inf,
    np.float64(0.5), np.int64(3), True, False, np.bool_(True), None, "auto",
    "bad", "linear", "log_odds", "elub", "raw", "percentile", "l1",
    np.array([0.5, 0.5]), [0.5, 0.5], (0.2, 0.8), np.zeros((2, 2)), len,
    LogisticRegression(), KFold(3), np.random.RandomState(0),
]  # fmt: skip


def _twins(f):
    """The function undecorated, with the same signature and qualified name,
    decorated by the shim and by scikit-learn with the same constraints and
    nested-validation preference; it returns the nested-validation switch
    it sees (no body runs: what is compared is the validation)."""
    import inspect

    raw = f.__wrapped__
    prefer = inspect.getclosurevars(f).nonlocals["prefer_skip_nested_validation"]

    def stub(*args, **kwargs):
        return sklearn.get_config()["skip_parameter_validation"]

    stub.__signature__ = inspect.signature(raw)
    stub.__qualname__ = raw.__qualname__
    constraints = f._skl_parameter_constraints
    return (
        compat.validate_params(constraints, prefer_skip_nested_validation=prefer)(stub),
        sklearn_validate_params(constraints, prefer_skip_nested_validation=prefer)(
            stub
        ),
    )


def _valid_value(name, constraints):
    """A value the constraints of ``name`` accept (for the other arguments)."""
    labels, scores = np.array([0, 1, 0, 1]), np.array([-1.0, 2.0, 0.5, 1.5])
    for value in [labels, scores, *PROBES, cllr_metric]:
        try:
            validate_parameter_constraints(
                {name: constraints}, {name: value}, caller_name="f"
            )
        except InvalidParameterError:
            continue
        return value
    raise AssertionError(f"no valid value for {name}")  # pragma: no cover


def _call(f, kwargs):
    try:
        return "ok", f(**kwargs)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e), str(e)


@pytest.mark.parametrize("name, f", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_public_functions_validate_as_sklearn_decorators_do(name, f):
    """Every public function's constraints and signature, under the shim and
    under scikit-learn's ``validate_params``: the same outcome (error type
    and message, or the nested-validation switch seen inside) for every
    probe of every parameter, called again once the shim may remember it,
    and with validation skipped by the global configuration."""
    import inspect

    shim, ref = _twins(f)
    constraints = f._skl_parameter_constraints
    base = {
        p.name: _valid_value(p.name, constraints.get(p.name, "no_validation"))
        for p in inspect.signature(f.__wrapped__).parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    prefer = inspect.getclosurevars(f).nonlocals["prefer_skip_nested_validation"]
    # the stub sees the nested-validation switch each decorator sets
    assert _call(shim, base) == _call(ref, base) == ("ok", prefer)
    outcomes = set()
    for param, constraint in constraints.items():
        if constraint == "no_validation":
            continue
        for value in PROBES:
            kwargs = {**base, param: value}
            expected = _call(ref, kwargs)
            assert _call(shim, kwargs) == expected, (param, value)
            assert _call(shim, kwargs) == expected, (param, value)  # remembered
            outcomes.add(expected[0])
            with sklearn.config_context(skip_parameter_validation=True):
                assert _call(shim, kwargs) == _call(ref, kwargs) == ("ok", True)
    # the comparison is not vacuous: probes both pass and fail
    assert outcomes == {"ok", InvalidParameterError}


def test_the_public_functions_are_found():
    names = [n for n, _ in FUNCTIONS]
    assert "skcalib.metrics.cllr" in names and "skcalib.metrics.bootstrap_ci" in names
    assert len(names) >= 20


def _public_estimators():
    import inspect

    import skcalib

    return [
        getattr(skcalib, name)
        for name in skcalib.__all__
        if inspect.isclass(getattr(skcalib, name))
        and issubclass(getattr(skcalib, name), BaseEstimator)
        and getattr(skcalib, name) is not skcalib.BaseCalibrator
    ]


ESTIMATORS = _public_estimators()


def _with_sklearn_fit_context(cls):
    """``cls`` with scikit-learn's own ``_fit_context`` on the undecorated
    ``fit`` (same nested-validation preference) and scikit-learn's own
    ``BaseEstimator._validate_params``; same class name, so same messages."""
    import inspect

    prefer = inspect.getclosurevars(cls.fit).nonlocals["prefer_skip_nested_validation"]
    return type(
        cls.__name__,
        (cls,),
        {
            "fit": sklearn_fit_context(prefer_skip_nested_validation=prefer)(
                cls.fit.__wrapped__
            ),
            "_validate_params": BaseEstimator._validate_params,
            "__module__": cls.__module__,
        },
    )


def _defaults(cls):
    return (
        {"estimator": LogisticRegression()}
        if cls.__name__ == "ScoreTransformer"
        else {}
    )


def _fit_result(cls, params, X, y):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls(**params).fit(X, y)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e), str(e)
    return "ok"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_public_estimators_validate_as_sklearn_fit_context_does(cls):
    """Every public estimator fitted with each probe of each parameter: the
    shim's ``_fit_context`` with skcalib's remembered-values check, and
    scikit-learn's ``_fit_context`` with ``BaseEstimator._validate_params``,
    give the same outcome (error type and message); with validation skipped
    by the configuration, an invalid value reaches ``fit`` unchecked in
    both."""
    ref = _with_sklearn_fit_context(cls)
    s, y, _ = make_scores(60, seed=0)
    X = np.c_[s, -s] if cls.__name__ == "MulticlassAffineCalibrator" else s[:, None]
    base = _defaults(cls)
    assert _fit_result(cls, base, X, y) == _fit_result(ref, base, X, y) == "ok"
    outcomes = set()
    for param in cls._parameter_constraints:
        # workers other than this process cost seconds a fit to start
        probes = [None, 1, 0.5, "bad", True] if param == "n_jobs" else PROBES
        for value in probes:
            params = {**base, param: value}
            expected = _fit_result(ref, params, X, y)
            assert _fit_result(cls, params, X, y) == expected, (param, value)
            assert _fit_result(cls, params, X, y) == expected, (param, value)
            outcomes.add(expected if expected == "ok" else expected[0])
    assert {"ok", InvalidParameterError} <= outcomes
    with sklearn.config_context(skip_parameter_validation=True):
        bad = {**base, next(iter(cls._parameter_constraints)): "bad"}
        # unvalidated, "bad" fails (or not) in the fit itself, alike
        expected = _fit_result(ref, bad, X, y)
        assert _fit_result(cls, bad, X, y) == expected
        assert expected == "ok" or expected[0] is not InvalidParameterError
