"""The data objects behind ScoredTrials: one suite over the array and the
Dask backend.

``ScoredTrials`` picks its data object once, when it is built: an
``ArrayTrials`` (``skcalib/_data/_trials.py``) for arrays, a ``DaskTrials``
(``skcalib/_dask/_trials.py``) for Dask collections. Each test asks both
the same questions on the same trials and compares the answers (block
score ranges bit for bit; integer weights, so every sum is exact up to the
order of the additions).
"""

import numpy as np
import pytest

from skcalib._data._trials import ArrayTrials

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from skcalib._dask._trials import DaskTrials  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:Running on a single-machine scheduler:UserWarning"
)

BACKENDS = ["array", "dask"]
CHUNKS = (900, 0, 1, 1099)
CLOSE = {"rtol": 1e-12, "atol": 0}


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def make_trials(weighted, n=2000, seed=3):
    """LLR-like scores with ties and +/-inf, labels 'a'/'b', weights with zeros."""
    rng = np.random.default_rng(seed)
    is_target = rng.random(n) < 0.25
    s = np.round(rng.normal(size=n) + 2.0 * is_target, 1)
    s[rng.integers(0, n, 2)] = np.inf
    s[rng.integers(0, n, 2)] = -np.inf
    y = np.where(is_target, "b", "a")
    w = rng.integers(0, 4, n).astype(float) if weighted else None
    # an infinite LLR on the wrong side costs inf: give those no weight
    if weighted:
        w[(s == np.inf) & ~is_target] = 0.0
        w[(s == -np.inf) & is_target] = 0.0
    else:
        s[(s == np.inf) & ~is_target] = 5.0
        s[(s == -np.inf) & is_target] = -5.0
    return y, s, w


def build(backend, y, s, w):
    if backend == "array":
        return ArrayTrials.validate(y, s, w, pos_label="b")
    dw = None if w is None else da.from_array(w, chunks=(CHUNKS,))
    return DaskTrials(
        da.from_array(y, chunks=(CHUNKS,)),
        da.from_array(s, chunks=(CHUNKS,)),
        dw,
        pos_label="b",
    )


@pytest.fixture(params=[False, True], ids=["unweighted", "weighted"])
def pair(request):
    y, s, w = make_trials(request.param)
    return build("array", y, s, w), build("dask", y, s, w), (y, s, w)


def test_block_summary(pair):
    ref, got, _ = pair
    a, b = ref.blocks(), got.blocks()
    np.testing.assert_allclose(b.tar, a.tar, **CLOSE)
    np.testing.assert_allclose(b.non, a.non, **CLOSE)
    if a.lo is not None:
        np.testing.assert_array_equal(b.lo, a.lo)
        np.testing.assert_array_equal(b.hi, a.hi)


def test_error_rates(pair):
    ref, got, _ = pair
    thresholds = np.array([-np.inf, -2.0, 0.0, 0.05, 1.0, np.inf])
    rates = zip(ref.error_rates(thresholds), got.error_rates(thresholds), strict=True)
    for a, b in rates:
        np.testing.assert_allclose(b, a, **CLOSE)


@pytest.mark.parametrize("p_target", [None, 0.1])
def test_cllr(pair, p_target):
    ref, got, _ = pair
    assert got.cllr(p_target) == pytest.approx(ref.cllr(p_target), rel=1e-12)


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (2.0, 2.0), (0.5, 3.0)])
def test_rule_loss(pair, alpha, beta):
    ref, got, _ = pair
    assert got.rule_loss(alpha, beta, 0.3) == pytest.approx(
        ref.rule_loss(alpha, beta, 0.3), rel=1e-12
    )


def test_arrays_positive_points(pair):
    ref, got, (y, s, w) = pair
    for a, b in zip(ref.arrays(), got.arrays(), strict=True):
        if a is None:
            assert b is None
        else:
            np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(ref.arrays()[0], y == "b")
    for a, b in zip(ref.positive(), got.positive(), strict=True):
        if a is not None:
            np.testing.assert_array_equal(b, a)
    for field in ("lo", "hi", "tar", "non"):
        np.testing.assert_array_equal(
            getattr(got.points(), field), getattr(ref.points(), field)
        )


def test_the_dask_handle_keeps_its_range_blocks():
    y, s, w = make_trials(True)
    trials = build("dask", y, s, w)
    ranges = trials.ranges
    first, second = trials.blocks(), trials.blocks()
    assert trials.ranges is ranges  # computed once, kept on the handle
    assert first is not second and first.tar is not ranges.tar  # callers own copies
    np.testing.assert_array_equal(first.tar, second.tar)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_errors(backend):
    y, s, w = make_trials(True)
    s = s.copy()
    s[5] = np.nan
    with pytest.raises(ValueError, match="Input y_score contains NaN"):
        build(backend, y, s, w).blocks()
    y, s, w = make_trials(True)
    with pytest.raises(ValueError, match="no target samples"):
        build(backend, np.full_like(y, "a"), s, w).blocks()
