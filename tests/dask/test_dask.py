"""Tests of skcalib._dask: exact distributed PAV and metrics on Dask.

Distributed results are compared with the in-memory kernel and estimators on
the same data, computed on a real two-worker ``LocalCluster``.
"""

import importlib
import subprocess
import sys
import textwrap
import warnings

import dask
import dask.array as da
import dask.callbacks
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from skcalib import PAVCalibrator, PAVLLRCalibrator
from skcalib._dask import is_dask_collection
from skcalib._dask._blocks import (
    _split_partition,
    dask_block_summary,
    dask_pav_blocks,
)
from skcalib._dask._metrics import (
    dask_error_rates,
    dask_prior_weighted_objective,
)
from skcalib._kernel._pav import BlockSummary, pav_blocks, pav_merge, pav_points
from skcalib._kernel._special import prior_weighted_objective

HYPOTHESIS = settings(derandomize=True, database=None, deadline=None, max_examples=40)

# These tests pick the synchronous scheduler on purpose; dask 2024.1 (the
# floor) warns that the module's distributed client is active meanwhile,
# later releases do not.
SYNCHRONOUS = pytest.mark.filterwarnings(
    "ignore:Running on a single-machine scheduler:UserWarning"
)


@pytest.fixture(scope="module")
def client():
    """A real two-worker cluster on the loopback interface."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def assert_blocks_equal(got: BlockSummary, ref: BlockSummary):
    """Same blocks (score ranges bit for bit), weights to 1e-9 relative."""
    assert got.n_blocks == ref.n_blocks
    np.testing.assert_array_equal(got.lo, ref.lo)
    np.testing.assert_array_equal(got.hi, ref.hi)
    np.testing.assert_allclose(got.tar, ref.tar, rtol=1e-9, atol=0)
    np.testing.assert_allclose(got.non, ref.non, rtol=1e-9, atol=0)


def make_data(n, *, seed=0, decimals=None, weighted=False, inf=False):
    """Scores with ties (rounded), labels correlated with score, weights."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    if decimals is not None:
        s = np.round(s, decimals)
    y = rng.random(n) < 1 / (1 + np.exp(-2 * s))
    if inf:
        s[rng.integers(0, n, 3)] = np.inf
        s[rng.integers(0, n, 3)] = -np.inf
    w = None
    if weighted:
        w = rng.integers(0, 4, n).astype(float)  # zeros included, exact sums
    return s, y, w


def chunked(x, chunks):
    return None if x is None else da.from_array(x, chunks=(tuple(chunks),))


# ----------------------------------------------------------------- no Dask import


def test_in_memory_paths_never_import_dask():
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        import skcalib
        from skcalib import PAVCalibrator, PAVLLRCalibrator
        from skcalib._dask import is_dask_collection, any_dask_collection
        from skcalib._kernel._pav import pav_blocks
        s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
        y = np.array([0, 1, 0, 1, 1])
        pav_blocks(s, y.astype(bool))
        PAVCalibrator().fit(s, y).transform(s)
        PAVLLRCalibrator().fit(s.reshape(-1, 1), y).transform(s.reshape(-1, 1))
        assert not is_dask_collection(s)
        assert not any_dask_collection(s, y, None)
        import skcalib.metrics as m
        for f in [m.min_cllr, m.eer, m.rocch, m.cllr]:
            f(y, s)
        m.min_dcf(y, s, p_target=0.5)
        m.actual_dcf(y, s, p_target=0.5)
        m.bayes_error_curve(y, s, [-1.0, 0.0])
        m.beta_rule_loss(y, s, alpha=2.0, beta=1.0)
        for cls in [skcalib.PlattCalibrator, skcalib.ProperScoringAffineCalibrator]:
            cls().fit(s, y).transform(s)
        loaded = sorted(k for k in sys.modules if k.split(".")[0] in
                        ("dask", "distributed"))
        assert not loaded, loaded
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_is_dask_collection():
    x = np.arange(3.0)
    assert not is_dask_collection(x)
    assert is_dask_collection(da.from_array(x))
    assert is_dask_collection(dd.from_pandas(pd.Series(x), npartitions=1))


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "s, y, w, match",
    [
        ([0.1, np.nan, 0.3], [0, 1, 1], None, "Input y_score contains NaN"),
        ([0.1, 0.2, 0.3], [0, 1, 2], None, "only binary targets"),
        ([0.1, 0.2, 0.3], [1, 1, 1], None, "no non-target samples"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1.0, -1.0, 1.0], "Negative values"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [1.0, np.inf, 1.0], "NaN or infinity"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [0.0, 0.0, 0.0], "at least one non-zero"),
        ([0.1, 0.2, 0.3], [0, 1, 1], [0.0, 1.0, 1.0], "no non-target samples"),
        ([0.1, 0.2, 0.3], ["a", "b", "a"], None, "pos_label"),
        ([0.1, 0.2, 0.3], [0.0, np.nan, 1.0], None, "Input y_true contains NaN"),
    ],
)
@SYNCHRONOUS
def test_block_summary_errors(s, y, w, match):
    s, y = np.asarray(s), np.asarray(y)
    w = None if w is None else da.from_array(np.asarray(w), chunks=2)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match=match):
            dask_block_summary(
                da.from_array(y, chunks=2), da.from_array(s, chunks=2), w
            )


def test_block_summary_inconsistent_lengths():
    s = da.from_array(np.arange(5.0), chunks=2)
    y = da.from_array(np.array([0, 1, 0, 1]), chunks=2)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        dask_block_summary(y, s)


@SYNCHRONOUS
def test_block_summary_rejects_infinity_when_asked():
    s = da.from_array(np.array([0.0, np.inf, 1.0]), chunks=2)
    y = da.from_array(np.array([0, 1, 1]), chunks=2)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="Input X contains infinity"):
            dask_block_summary(y, s, score_name="X", allow_inf=False)


# ------------------------------------------- the theorem behind distributed PAV


def pav_by_ranges(scores, is_target, weights, cuts):
    """PAV of contiguous score ranges (cut at score values), then of the blocks."""
    rid = np.searchsorted(np.sort(cuts), scores, side="right")
    blocks = []
    for r in np.unique(rid):
        m = rid == r
        if weights is not None:
            m &= weights > 0  # the kernel drops zero weights
            if not m.any():
                continue
        blocks.append(
            pav_merge(
                pav_points(
                    scores[m], is_target[m], None if weights is None else weights[m]
                )
            )
        )
    return pav_merge(
        BlockSummary(*(np.concatenate(f) for f in zip(*blocks, strict=True)))
    )


@HYPOTHESIS
@given(
    n=st.integers(2, 300),
    n_cuts=st.integers(0, 12),
    decimals=st.sampled_from([0, 1, 2, None]),
    weighted=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_theorem_pav_of_range_blocks_is_global_pav(n, n_cuts, decimals, weighted, seed):
    """PAV of contiguous score ranges followed by PAV of their blocks = global PAV.

    Pure NumPy, no Dask: the global isotonic solution is constant on every
    block of every contiguous range, so the range blocks are valid coarser
    points for the final PAV.
    """
    s, y, w = make_data(n, seed=seed, decimals=decimals, weighted=weighted)
    if w is not None:
        w[0] = 1.0  # at least one positive weight
    rng = np.random.default_rng(seed + 1)
    cuts = rng.choice(s, size=min(n_cuts, n))
    assert_blocks_equal(pav_by_ranges(s, y, w, cuts), pav_blocks(s, y, w))


def test_theorem_needs_contiguous_ranges():
    """The same two-step PAV on *non*-contiguous subsets is wrong: the test can fail."""
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([False, True, False, True])
    ref = pav_blocks(s, y)
    parts = [np.array([0, 2]), np.array([1, 3])]  # interleaved, not ranges
    blocks = [pav_merge(pav_points(s[i], y[i])) for i in parts]
    merged = BlockSummary(*(np.concatenate(f) for f in zip(*blocks, strict=True)))
    order = np.argsort(merged.lo, kind="stable")
    wrong = pav_merge(BlockSummary(*(a[order] for a in merged)))
    assert len(wrong) != len(ref) or not np.array_equal(wrong.tar, ref.tar)


def test_split_keeps_ties_in_one_range():
    s = np.array([0.5, 0.5, 0.2, 0.7, 0.5, 0.7, -np.inf, np.inf])
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    boundaries = np.array([0.5, 0.7])
    pieces = _split_partition(y, s, None, 1, boundaries)
    assert [p[0].tolist() for p in pieces] == [
        [0.2, -np.inf],
        [0.5, 0.5, 0.5],
        [0.7, 0.7, np.inf],
    ]
    assert [p[1].tolist() for p in pieces][1] == [False, True, True]


# ------------------------------------------- equality with the in-memory kernel


@pytest.mark.parametrize(
    "weighted, pseudo_count, decimals",
    [(False, 0.0, 1), (True, 1.0, 1), (False, 1.0, None), (True, 0.0, None)],
)
def test_dask_pav_blocks_equals_kernel(client, weighted, pseudo_count, decimals):
    s, y, w = make_data(3000, seed=1, decimals=decimals, weighted=weighted, inf=True)
    chunks = [700, 0, 900, 1, 0, 1399]  # empty partitions, a single sample
    got = dask_pav_blocks(
        chunked(s, chunks),
        chunked(y, chunks),
        chunked(w, [1000, 2000]),  # weights chunked differently: rechunked
        pseudo_count=pseudo_count,
    )
    assert_blocks_equal(got, pav_blocks(s, y, w, pseudo_count=pseudo_count))


@SYNCHRONOUS
@HYPOTHESIS
@given(
    sizes=st.lists(st.integers(0, 60), min_size=1, max_size=6),
    decimals=st.sampled_from([0, 1, None]),
    weighted=st.booleans(),
    pseudo_count=st.sampled_from([0.0, 0.5]),
    n_ranges=st.sampled_from([None, 1, 3, 50]),
    seed=st.integers(0, 2**31),
)
def test_dask_pav_blocks_property(
    sizes, decimals, weighted, pseudo_count, n_ranges, seed
):
    """Any chunking, ties, zero weights, one-class data: the kernel's blocks."""
    n = sum(sizes)
    if n == 0:
        sizes, n = [1] + sizes, 1
    s, y, w = make_data(n, seed=seed, decimals=decimals, weighted=weighted)
    if w is not None:
        w[0] = 1.0
    with dask.config.set(scheduler="synchronous"):
        got = dask_pav_blocks(
            chunked(s, sizes),
            chunked(y, sizes),
            chunked(w, sizes[::-1]),
            pseudo_count=pseudo_count,
            n_ranges=n_ranges,
        )
    assert_blocks_equal(got, pav_blocks(s, y, w, pseudo_count=pseudo_count))


def test_dask_pav_blocks_skewed_partitions(client):
    """Partitions holding one class only, sorted by class and by score."""
    s, y, _ = make_data(2000, seed=2, decimals=2)
    order = np.lexsort((s, y))  # non-targets first, then targets, each sorted
    s, y = s[order], y[order]
    chunks = [500, 0, 600, 300, 600]
    for n_ranges in (None, 1, 17):
        got = dask_pav_blocks(chunked(s, chunks), chunked(y, chunks), n_ranges=n_ranges)
        assert_blocks_equal(got, pav_blocks(s, y))


def test_dask_pav_blocks_all_ties_and_one_class(client):
    s = np.full(500, 0.25)
    y = np.arange(500) % 3 == 0
    got = dask_pav_blocks(chunked(s, [100] * 5), chunked(y, [100] * 5))
    assert_blocks_equal(got, pav_blocks(s, y))
    assert got.n_blocks == 1
    only_non = np.zeros(500, dtype=bool)
    got = dask_pav_blocks(chunked(s, [100] * 5), chunked(only_non, [100] * 5))
    assert_blocks_equal(got, pav_blocks(s, only_non))


def test_block_summary_from_dataframe_columns(client):
    s, y, w = make_data(2500, seed=3, decimals=1, weighted=True)
    labels = np.where(y, "tar", "non")
    df = pd.DataFrame({"score": s, "label": labels, "w": w})
    ddf = dd.from_pandas(df, npartitions=4)
    blocks, summary = dask_block_summary(
        ddf["label"], ddf["score"], ddf["w"], pos_label="tar"
    )
    assert_blocks_equal(blocks, pav_blocks(s, y, w))
    assert summary.pos_label == "tar"
    assert summary.n_tar == pytest.approx(w[y].sum(), rel=1e-12)
    assert summary.n_non == pytest.approx(w[~y].sum(), rel=1e-12)


def test_block_summary_from_parquet(client, tmp_path):
    s, y, w = make_data(6000, seed=4, decimals=2, weighted=True)
    df = pd.DataFrame({"score": s, "y": y.astype(np.int64), "w": w})
    # Files sorted by label: the first files hold non-targets only.
    order = np.argsort(y, kind="stable")
    df = df.iloc[order].reset_index(drop=True)
    # Plain Parquet files as any engine writes them (no pandas index).
    (tmp_path / "scores").mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(df)), 5)):
        table = pa.Table.from_pandas(df.iloc[part], preserve_index=False)
        pq.write_table(table, tmp_path / "scores" / f"part.{i}.parquet")
    ddf = dd.read_parquet(tmp_path / "scores")
    assert ddf.npartitions == 5
    blocks, _ = dask_block_summary(ddf["y"], ddf["score"], ddf["w"])
    assert_blocks_equal(blocks, pav_blocks(s, y, w))
    blocks, _ = dask_block_summary(ddf["y"], ddf["score"], pseudo_count=1.0)
    assert_blocks_equal(blocks, pav_blocks(s, y, pseudo_count=1.0))


# ------------------------------------------------------------------ calibrators


def assert_same_fit(got, ref):
    assert got.classes_.tolist() == ref.classes_.tolist()
    assert got.n_features_in_ == ref.n_features_in_
    assert got.calibration_prior_ == pytest.approx(ref.calibration_prior_, rel=1e-12)
    assert got.prior_ == pytest.approx(ref.prior_, rel=1e-12)
    np.testing.assert_array_equal(got.X_min_, ref.X_min_)
    np.testing.assert_array_equal(got.X_max_, ref.X_max_)
    for name in ("X_thresholds_", "y_thresholds_"):
        for a, b in zip(getattr(got, name), getattr(ref, name), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=0)
    for a, b in zip(got.blocks_, ref.blocks_, strict=True):
        assert_blocks_equal(a, b)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PAVCalibrator(),
        lambda: PAVCalibrator(extremes="bound", max_abs_llr=3.0, strict=True),
        lambda: PAVLLRCalibrator(),
        lambda: PAVLLRCalibrator(extremes="raw", interpolation="step"),
    ],
)
def test_pav_calibrators_fit_on_dask_equal_in_memory(client, make):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(3000, 2)), 1)
    y = np.where(rng.random(3000) < 1 / (1 + np.exp(-2 * X[:, 0])), "tar", "non")
    w = rng.integers(0, 4, 3000).astype(float)
    dX = da.from_array(X, chunks=((1000, 0, 1500, 500), (1, 1)))
    dy, dw = chunked(y, [3000]), chunked(w, [700, 2300])
    for Xi, dXi in ((X, dX), (X[:, 0], dX[:, 0])):
        ref = make().fit(Xi, y, sample_weight=w)
        got = make().fit(dXi, dy, sample_weight=dw)
        assert_same_fit(got, ref)
        X_new = rng.normal(size=Xi.shape) * 2
        dX_new = da.from_array(X_new, chunks=(900,) + Xi.shape[1:])
        out = got.transform(dX_new)
        assert isinstance(out, da.Array)  # lazy
        np.testing.assert_allclose(out.compute(), ref.transform(X_new), rtol=1e-9)
    # The one-column model also serves the LLR views lazily.
    x_new = rng.normal(size=800)
    dx_new = chunked(x_new, [0, 300, 500])
    np.testing.assert_allclose(
        got.decision_function(dx_new).compute(), ref.decision_function(x_new)
    )
    np.testing.assert_allclose(
        got.predict_proba(dx_new).compute(), ref.predict_proba(x_new)
    )
    np.testing.assert_array_equal(got.predict(dx_new).compute(), ref.predict(x_new))


def test_pav_calibrator_fit_on_parquet_columns(client, tmp_path):
    rng = np.random.default_rng(6)
    s = np.round(rng.normal(size=4000), 2)
    y = (rng.random(4000) < 1 / (1 + np.exp(-3 * s))).astype(np.int64)
    pq.write_table(
        pa.Table.from_pandas(pd.DataFrame({"s": s, "y": y}), preserve_index=False),
        tmp_path / "cal.parquet",
        row_group_size=1000,
    )
    ddf = dd.read_parquet(tmp_path / "cal.parquet", split_row_groups=True)
    got = PAVLLRCalibrator().fit(ddf["s"], ddf["y"])
    assert_same_fit(got, PAVLLRCalibrator().fit(s, y))
    got = PAVLLRCalibrator().fit(ddf[["s"]], ddf["y"])
    assert got.feature_names_in_.tolist() == ["s"]
    out = got.transform(ddf[["s"]]).compute()  # no feature-name warning
    np.testing.assert_allclose(out[:, 0], PAVLLRCalibrator().fit(s, y).transform(s))


def test_pav_calibrator_dask_errors(client):
    X = chunked(np.array([0.0, np.inf, 1.0, 2.0]), [2, 2])
    y = chunked(np.array([0, 1, 0, 1]), [2, 2])
    with pytest.raises(ValueError, match="Input X contains infinity"):
        PAVCalibrator().fit(X, y)
    X = chunked(np.array([0.0, 0.5, 1.0, 2.0]), [2, 2])
    with pytest.raises(ValueError, match="2 classes"):
        PAVCalibrator().fit(X, chunked(np.array([1, 1, 1, 1]), [2, 2]))
    with pytest.raises(ValueError, match="`prior` must be|prior"):
        PAVCalibrator(prior=1.5).fit(X, y)


# ---------------------------------------------------------- per-partition metrics


def llr_data(n, seed, weighted):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    llr = rng.normal(size=n) * 2 + np.where(y, 1.5, -1.5)
    llr = np.round(llr, 1)  # ties at the thresholds
    llr[:4] = [np.inf, -np.inf, 0.0, -np.inf]
    y[:4] = [True, False, True, True]  # one confidently wrong target
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if weighted:
        w[3] = 0.0  # ... with zero weight: ignored, never 0 * inf
    return y, llr, w


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "alpha, beta, prior", [(1, 1, 0.5), (2, 2, 0.3), (0.5, 0.5, 0.5), (3, 1.5, 0.1)]
)
def test_prior_weighted_objective_equals_in_memory(
    client, weighted, alpha, beta, prior
):
    y, llr, w = llr_data(5000, 7, weighted)
    if not weighted and alpha <= 1:
        llr[3] = 5.0  # unbounded rule: avoid the infinite loss itself
    chunks = [1000, 0, 2500, 1500]
    got = dask_prior_weighted_objective(
        chunked(y.astype(int), chunks),
        chunked(llr, chunks),
        chunked(w, chunks),
        alpha=alpha,
        beta=beta,
        prior=prior,
    )
    ref = prior_weighted_objective(llr, y, w, alpha=alpha, beta=beta, prior=prior)
    assert got == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_error_rates_equal_brute_force(client, weighted):
    y, llr, w = llr_data(4000, 8, weighted)
    wv = np.ones_like(llr) if w is None else w
    thresholds = np.array([-np.inf, -2.0, -0.1, 0.0, 0.3, 2.5, np.inf])
    chunks = [2000, 0, 2000]
    for t in (thresholds[3:4], np.linspace(-4, 4, 33)):  # masks and sorted paths
        p_miss, p_fa = dask_error_rates(
            chunked(y, chunks),
            chunked(llr, chunks),
            t,
            sample_weight=chunked(w, chunks),
        )
        ref_miss = [wv[y & (llr < v)].sum() / wv[y].sum() for v in t]
        ref_fa = [wv[~y & (llr >= v)].sum() / wv[~y].sum() for v in t]
        np.testing.assert_allclose(p_miss, ref_miss, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(p_fa, ref_fa, rtol=1e-12, atol=1e-15)


# ------------------------------------------- Platt / affine: distributed Newton


def parametric(name, **params):
    module = importlib.import_module(name.rsplit(".", 1)[0])
    return getattr(module, name.rsplit(".", 1)[1])(**params)


PLATT = "skcalib._platt.PlattCalibrator"
AFFINE = "skcalib._affine.ProperScoringAffineCalibrator"


@pytest.mark.parametrize(
    "name, params, n, separated",
    [
        (PLATT, {}, 5000, False),
        (PLATT, {}, 300_000, False),  # n >= 4 * 2**16: the warm start runs
        (PLATT, {"smooth_targets": False}, 5000, True),  # no finite minimizer
        (AFFINE, {}, 5000, False),
        (AFFINE, {"l2": 0}, 5000, True),
        (AFFINE, {}, 5000, "penalized"),  # separated, but the default l2 copes
        (AFFINE, {"alpha": 2, "beta": 2, "p_target": 0.2, "l2": 0.01}, 300_000, False),
        (AFFINE, {"alpha": 0.5, "beta": 3, "prior": 0.7}, 5000, False),
    ],
)
def test_parametric_fit_on_dask_equals_in_memory(client, name, params, n, separated):
    rng = np.random.default_rng(9)
    warns = separated is True  # no finite minimizer
    s = rng.normal(size=n) + 0.3
    if separated:
        s = np.where(rng.random(n) < 0.4, s + 10.0, s - 10.0)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-1.7 * s + 0.4)), "t", "n")
    if separated:
        y = np.where(s > 0, "t", "n")
    w = rng.integers(0, 3, n).astype(float)
    n_evals = []
    for weights in (None, w):
        with warnings.catch_warnings(record=True) as ref_warnings:
            warnings.simplefilter("always")
            ref = parametric(name, **params).fit(s, y, sample_weight=weights)
        with warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = parametric(name, **params).fit(
                chunked(s, [n // 4, 0, n - n // 4]),
                chunked(y, [n // 3, n - n // 3]),
                None if weights is None else chunked(weights, [n]),
            )
        # The same ConvergenceWarning (separated classes), or none.
        got_msgs, ref_msgs = (
            [str(w.message) for w in rec if issubclass(w.category, ConvergenceWarning)]
            for rec in (got_warnings, ref_warnings)
        )
        assert got_msgs == ref_msgs
        assert len(ref_msgs) == int(warns)
        assert got.classes_.tolist() == ["n", "t"]
        assert got.calibration_prior_ == pytest.approx(ref.calibration_prior_, 1e-12)
        np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-8)
        np.testing.assert_allclose(got.intercept_, ref.intercept_, rtol=1e-8)
        n_evals.append(int(got._n_evals[0]))
        x_new = da.from_array(rng.normal(size=1000), chunks=300)
        np.testing.assert_allclose(
            got.transform(x_new).compute(), ref.transform(x_new.compute()), rtol=1e-7
        )
        llr = got.decision_function(x_new)
        assert isinstance(llr, da.Array)  # lazy, also where a subclass overrides it
        np.testing.assert_allclose(
            llr.compute(), ref.decision_function(x_new.compute()), rtol=1e-7, atol=1e-9
        )
    # a few passes over the data (Newton walks out to the steep slope of a
    # penalized fit of separated classes in a few more)
    assert max(n_evals) <= (16 if separated == "penalized" else 12)


# ------------------------------------------------------- unknown chunk sizes


def test_unknown_chunk_sizes(client):
    """Boolean indexing and a Series' to_dask_array() leave chunk sizes
    unknown; they are counted (on a copy: the caller's array stays as it is)."""
    from skcalib import PlattCalibrator
    from skcalib.metrics import cllr, min_dcf

    s, y, _ = make_data(3000, seed=21, decimals=2)
    x, yy = chunked(s, [700, 1000, 1300]), chunked(y, [700, 1000, 1300])
    keep = x > -np.inf
    xs, ys = x[keep], yy[keep]
    assert np.isnan(xs.shape[0])
    assert min_dcf(ys, xs, p_target=0.1) == pytest.approx(
        min_dcf(y, s, p_target=0.1), rel=1e-12
    )
    assert cllr(ys, xs) == pytest.approx(cllr(y, s), rel=1e-12)
    assert cllr(yy, xs) == pytest.approx(cllr(y, s), rel=1e-12)
    assert np.isnan(xs.shape[0])
    ref = PAVLLRCalibrator().fit(s, y)
    got = PAVLLRCalibrator().fit(xs, ys)
    np.testing.assert_array_equal(got.transform(s), ref.transform(s))
    ref = PlattCalibrator().fit(s, y)
    got = PlattCalibrator().fit(xs, ys)
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-8)

    ddf = dd.from_pandas(pd.DataFrame({"score": s, "label": y.astype(int)}), 3)
    llr = ddf["score"].to_dask_array()
    assert np.isnan(llr.shape[0])
    assert cllr(ddf["label"], llr) == pytest.approx(cllr(y, s), rel=1e-12)
    assert cllr(ddf["label"].to_dask_array(), llr) == pytest.approx(
        cllr(y, s), rel=1e-12
    )


# ------------------------------------------------- public metrics on Dask inputs


@pytest.mark.parametrize("weighted", [False, True])
def test_public_metrics_on_dask_equal_in_memory(client, weighted):
    from skcalib import metrics

    y, llr, w = llr_data(6000, 10, weighted)
    if not weighted:
        llr[3] = 2.0  # no confidently wrong trial: finite log losses
    labels = np.where(y, "tar", "non")
    chunks = [2500, 0, 1, 3499]
    dy, dl, dw = chunked(labels, chunks), chunked(llr, chunks), chunked(w, [6000])
    kw = {"sample_weight": w, "pos_label": "tar"}
    dkw = {"sample_weight": dw, "pos_label": "tar"}
    plo = np.linspace(-4, 4, 17)
    cases = [
        ("min_dcf", {"p_target": 0.05}),
        ("min_dcf", {"p_target": 0.3, "c_miss": 2.0, "c_fa": 1.0}),
        ("eer", {}),
        ("min_cllr", {}),
        ("min_cllr", {"p_target": 0.2}),
        ("actual_dcf", {"p_target": 0.05}),
        ("actual_dcf", {"p_target": 0.5, "c_miss": 3.0, "normalize": False}),
        ("cllr", {}),
        ("cllr", {"p_target": 0.1}),
        ("beta_rule_loss", {"alpha": 2.0, "beta": 0.5, "p_target": 0.3}),
        ("brier_loss", {"p_target": 0.7}),
    ]
    for name, params in cases:
        fn = getattr(metrics, name)
        ref = fn(labels, llr, **params, **kw)
        got = fn(dy, dl, **params, **dkw)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-15), name
    for ref, got in zip(
        metrics.rocch(labels, llr, **kw), metrics.rocch(dy, dl, **dkw), strict=True
    ):
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-15)
    for ref, got in zip(
        metrics.bayes_error_curve(labels, llr, plo, **kw),
        metrics.bayes_error_curve(dy, dl, plo, **dkw),
        strict=True,
    ):
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-15)


def test_scored_trials_on_dask_equal_in_memory(client):
    # one object from Dask collections: the distributed block summary once,
    # then every minimum metric at many applications, as in memory
    from skcalib.metrics import ScoredTrials

    y, llr, w = llr_data(6000, 10, True)
    chunks = [2500, 0, 1, 3499]
    ref = ScoredTrials(y, llr, sample_weight=w)
    got = ScoredTrials(
        chunked(y, chunks), chunked(llr, chunks), sample_weight=chunked(w, chunks)
    )
    p = [0.01, 0.1, 0.5]
    close = {"rtol": 1e-9, "atol": 1e-15}
    np.testing.assert_allclose(got.min_dcf(p, c_miss=2.0), ref.min_dcf(p, c_miss=2.0))
    np.testing.assert_allclose(got.actual_dcf(p), ref.actual_dcf(p), **close)
    assert got.eer() == pytest.approx(ref.eer(), **{"rel": 1e-9, "abs": 1e-15})
    assert got.min_cllr() == pytest.approx(ref.min_cllr(), rel=1e-9)
    for a, b in zip(got.rocch(), ref.rocch(), strict=True):
        np.testing.assert_allclose(a, b, **close)
    plo = np.linspace(-4, 4, 9)
    curves = zip(got.bayes_error_curve(plo), ref.bayes_error_curve(plo), strict=True)
    for a, b in curves:
        np.testing.assert_allclose(a, b, **close)


def test_public_metrics_on_parquet(client, tmp_path):
    from skcalib import metrics

    y, llr, _ = llr_data(5000, 11, False)
    llr[3] = 2.0
    df = pd.DataFrame({"y": y, "llr": llr})
    pq.write_table(
        pa.Table.from_pandas(df, preserve_index=False),
        tmp_path / "trials.parquet",
        row_group_size=1200,
    )
    ddf = dd.read_parquet(tmp_path / "trials.parquet", split_row_groups=True)
    assert ddf.npartitions > 1
    assert metrics.min_dcf(ddf["y"], ddf["llr"], p_target=0.01) == pytest.approx(
        metrics.min_dcf(y, llr, p_target=0.01), rel=1e-9
    )
    assert metrics.cllr(ddf["y"], ddf["llr"]) == pytest.approx(
        metrics.cllr(y, llr), rel=1e-9
    )
    assert metrics.eer(ddf["y"], ddf["llr"]) == pytest.approx(
        metrics.eer(y, llr), rel=1e-9
    )


def test_public_metric_dask_errors(client):
    from skcalib import metrics

    y = chunked(np.array([0, 1, 0, 1]), [2, 2])
    llr = chunked(np.array([0.0, np.nan, 1.0, 2.0]), [2, 2])
    with pytest.raises(ValueError, match="Input llr contains NaN"):
        metrics.cllr(y, llr)
    with pytest.raises(ValueError, match="Input y_score contains NaN"):
        metrics.min_dcf(y, llr, p_target=0.5)
    llr = chunked(np.array([0.0, 0.5, 1.0, 2.0]), [2, 2])
    with pytest.raises(ValueError, match="no target samples"):
        metrics.actual_dcf(chunked(np.zeros(4, int), [2, 2]), llr, p_target=0.5)


# ------------------------------------------ one handle for a fit and its metrics
class _ComputeCounter(dask.callbacks.Callback):
    """Counts the graphs the (local) scheduler runs."""

    def __init__(self):
        super().__init__()
        self.runs = 0

    def _start(self, dsk):
        self.runs += 1


@SYNCHRONOUS
def test_fit_on_trials_shares_their_block_summary():
    """A PAV-LLR fit on ScoredTrials of Dask columns and the trials' min_dcf,
    eer and min_cllr read one block summary, kept on the trials' data
    handle: computed once, the same object afterwards, the same values as
    in memory; fresh trials on the same columns compute it again."""
    from skcalib.metrics import ScoredTrials, eer, min_cllr, min_dcf

    s, y, _ = make_data(3000, seed=11, decimals=2)
    ds, dy = chunked(s, [1000] * 3), chunked(y.astype(int), [1000] * 3)
    trials = ScoredTrials(dy, ds)
    handle = trials._data
    counter = _ComputeCounter()
    with dask.config.set(scheduler="synchronous"), counter:
        cal = PAVLLRCalibrator().fit(trials)
        fitted = counter.runs
        ranges = handle.ranges
        values = [trials.min_dcf(0.01), trials.eer(), trials.min_cllr()]
        assert counter.runs == fitted  # no graph ran for the metrics
        assert handle.ranges is ranges  # read off the handle, not recomputed
        fresh = ScoredTrials(dy, ds)
        again = [fresh.min_dcf(0.01), fresh.eer(), fresh.min_cllr()]
    assert fitted >= 1 and counter.runs > fitted  # no cache between objects
    assert fresh._data.ranges is not ranges
    assert values == again
    np.testing.assert_allclose(
        values, [min_dcf(y, s, p_target=0.01), eer(y, s), min_cllr(y, s)], rtol=1e-12
    )
    ref = PAVLLRCalibrator().fit(s, y)
    np.testing.assert_array_equal(cal.transform(s), ref.transform(s))
    np.testing.assert_array_equal(cal.classes_, ref.classes_)
    assert cal.calibration_prior_ == pytest.approx(ref.calibration_prior_, rel=1e-15)


@SYNCHRONOUS
def test_fit_on_trials_checks_as_a_fit():
    """The trials accept +/-inf scores and any target label, a fit does
    not: fitting on such trials raises the fit's messages, and the trials'
    metrics are unaffected."""
    from skcalib.metrics import ScoredTrials, min_dcf

    s, y, _ = make_data(600, seed=12, inf=True)
    ds, dy = chunked(s, [200] * 3), chunked(y.astype(int), [200] * 3)
    with dask.config.set(scheduler="synchronous"):
        trials = ScoredTrials(dy, ds)
        assert np.isclose(trials.min_dcf(0.1), min_dcf(y, s, p_target=0.1))
        with pytest.raises(ValueError, match="infinity"):
            PAVLLRCalibrator().fit(trials)
        finite = chunked(np.where(np.isfinite(s), s, 0.0), [200] * 3)
        flipped = ScoredTrials(dy, finite, pos_label=0)
        with pytest.raises(ValueError, match="not the larger of their labels"):
            PAVLLRCalibrator().fit(flipped)
        with pytest.raises(ValueError, match="takes no `y`"):
            PAVLLRCalibrator().fit(trials, dy)


# ------------------------------------------- predictions: one decorator, blockwise
@SYNCHRONOUS
def test_every_prediction_method_maps_over_dask_blocks():
    """transform, decision_function, predict_proba and predict of fitted
    calibrators take a Dask X through the one decorator: lazy, and bit for
    bit the in-memory result."""
    from sklearn.exceptions import NotFittedError

    from skcalib import (
        AutoCalibrator,
        MulticlassAffineCalibrator,
        PlattCalibrator,
        ProperScoringFusion,
    )

    rng = np.random.default_rng(5)
    s, y, _ = make_data(900, seed=5)
    X2 = np.column_stack([s, s + rng.normal(size=900)])
    K = rng.integers(0, 3, 900)
    X3 = 2.0 * (np.eye(3)[K] + rng.normal(0, 0.8, (900, 3)))
    cases = [
        (PAVLLRCalibrator().fit(s, y), s),
        (PlattCalibrator().fit(s, y), s),
        (AutoCalibrator().fit(s, y), s),
        (ProperScoringFusion().fit(X2, y), X2),
        (MulticlassAffineCalibrator().fit(X3, K), X3),
    ]
    methods = ("transform", "decision_function", "predict_proba", "predict")
    with dask.config.set(scheduler="synchronous"):
        for cal, X in cases:
            dX = da.from_array(X, chunks=(300,) + X.shape[1:])
            for method in methods:
                if not hasattr(cal, method):
                    continue
                lazy = getattr(cal, method)(dX)
                assert is_dask_collection(lazy), (cal, method)
                ref = getattr(cal, method)(X)
                assert lazy.shape == ref.shape, (cal, method)
                np.testing.assert_array_equal(lazy.compute(), ref)
        with pytest.raises(NotFittedError):
            PlattCalibrator().transform(da.from_array(s, chunks=300))


def test_blockwise_takes_a_function_not_an_estimator():
    """The decorator knows no estimator class: it wraps the method of any
    fitted object (here a bare scikit-learn estimator)."""
    from sklearn.base import BaseEstimator

    from skcalib._dask import blockwise

    class Doubler(BaseEstimator):
        def fit(self):
            self.classes_ = np.array([0, 1])
            return self

        @blockwise(n_out=lambda obj: 2)
        def predict_proba(self, X):
            X = np.asarray(X, dtype=float)
            return np.column_stack([X, 2 * X])

    x = np.arange(7.0)
    doubler = Doubler().fit()
    # Older Dask warns here while the module's cluster client is still open
    # (the synchronous scheduler is asked for on purpose).
    with (
        warnings.catch_warnings(),
        dask.config.set(scheduler="synchronous"),
    ):
        warnings.filterwarnings(
            "ignore", "Running on a single-machine scheduler", UserWarning
        )
        lazy = doubler.predict_proba(da.from_array(x, chunks=3))
        assert lazy.shape == (7, 2)
        np.testing.assert_array_equal(lazy.compute(), doubler.predict_proba(x))


# --------------------------------------------- multiclass affine: K classes on Dask


def class_data(n, K, seed):
    """K-class log-scores (too sharp), string labels and weights with zeros."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = 2.0 * (np.eye(K)[y] + rng.normal(0, 0.8, (n, K)))
    labels = np.array([f"c{k:02d}" for k in range(K)])[y]
    w = rng.integers(0, 3, n).astype(float)
    return X, labels, w


@pytest.mark.parametrize("K", [3, 10])
@pytest.mark.parametrize("kind", ["temperature", "vector", "matrix"])
def test_multiclass_affine_fit_on_dask_equals_in_memory(client, K, kind):
    from skcalib import MulticlassAffineCalibrator

    n = 6000
    X, y, w = class_data(n, K, seed=K)
    dX = da.from_array(X, chunks=((1500, 0, 2500, 2000), (K,)))
    dy = chunked(y, [n // 3, n - n // 3])
    for weights in (None, w):
        ref = MulticlassAffineCalibrator(kind=kind).fit(X, y, sample_weight=weights)
        got = MulticlassAffineCalibrator(kind=kind).fit(
            dX, dy, None if weights is None else chunked(weights, [n])
        )
        assert got.classes_.tolist() == ref.classes_.tolist()
        assert got.n_features_in_ == K
        np.testing.assert_allclose(got.p_classes_, ref.p_classes_, rtol=1e-12)
        np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(
            got.intercept_, ref.intercept_, rtol=1e-9, atol=1e-12
        )
    X_new = X[::7] * 1.5
    dX_new = da.from_array(X_new, chunks=(300, K))
    for method in ("transform", "predict_proba"):
        out = getattr(got, method)(dX_new)
        assert isinstance(out, da.Array)  # lazy
        assert out.shape == X_new.shape
        np.testing.assert_allclose(
            out.compute(), getattr(ref, method)(X_new), rtol=1e-9, atol=1e-15
        )
    np.testing.assert_array_equal(got.predict(dX_new).compute(), ref.predict(X_new))


@SYNCHRONOUS
def test_multiclass_affine_fit_on_dask_dataframe():
    """K columns of a Dask DataFrame (feature names kept), a Series of labels;
    the matrix kind with fewer columns than classes."""
    from skcalib import MulticlassAffineCalibrator

    X, y, w = class_data(4000, 4, seed=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(y=y, w=w)
    ddf = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        for cols in (["a", "b", "c", "d"], ["a", "c"]):
            ref = MulticlassAffineCalibrator().fit(frame[cols], y, sample_weight=w)
            got = MulticlassAffineCalibrator().fit(
                ddf[cols], ddf["y"], sample_weight=ddf["w"]
            )
            assert got.feature_names_in_.tolist() == cols
            np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(
                got.intercept_, ref.intercept_, rtol=1e-9, atol=1e-12
            )
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no feature-name warning
                # (dask 2024.1, the floor, warns about the module's client)
                warnings.filterwarnings(
                    "ignore", "Running on a single-machine scheduler", UserWarning
                )
                proba = got.predict_proba(ddf[cols]).compute()
            assert proba.shape == (4000, 4)
            np.testing.assert_allclose(proba, ref.predict_proba(frame[cols]), rtol=1e-9)


@SYNCHRONOUS
@pytest.mark.parametrize(
    "X, y, w, kind, match",
    [
        (np.r_[[[np.nan, 0, 0]], np.zeros((5, 3))], np.arange(6) % 3, None,
         "matrix", "Input X contains NaN"),
        (np.r_[[[np.inf, 0, 0]], np.zeros((5, 3))], np.arange(6) % 3, None,
         "matrix", "Input X contains infinity"),
        (np.zeros((6, 3)), np.arange(6) % 2, None, "vector",
         "one score column per class"),
        (np.zeros((6, 3)), np.zeros(6, int), None, "matrix", "got 1 class"),
        (np.zeros((6, 3)), np.arange(7) % 3, None, "matrix",
         "inconsistent numbers of samples"),
        (np.zeros((6, 3)), np.arange(6) % 3, -np.ones(6), "matrix",
         "Negative values in data passed to `sample_weight`"),
        (np.zeros((6, 3)), np.arange(6) % 3, np.r_[1.0, 1, 0, 1, 1, 0], "matrix",
         "class 2 zero total weight"),
        (np.zeros((6, 3)), np.arange(6) % 3, np.zeros(6), "matrix",
         "at least one non-zero number"),
        (np.zeros((6, 3)), np.arange(6) % 3 + 0.5, None, "matrix", "continuous"),
    ],
)  # fmt: skip
def test_multiclass_affine_dask_errors(X, y, w, kind, match):
    from skcalib import MulticlassAffineCalibrator

    def fit(X, y, w):
        return MulticlassAffineCalibrator(kind=kind).fit(X, y, sample_weight=w)

    with pytest.raises(ValueError, match=match):
        fit(X, y, w)  # the in-memory message ...
    dX = da.from_array(X, chunks=(4, 3))
    dw = None if w is None else da.from_array(w, chunks=3)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match=match):
            fit(dX, da.from_array(y, chunks=2), dw)  # ... on Dask
