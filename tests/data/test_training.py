"""The training-data objects: one suite over the array and the Dask backend.

``BaseCalibrator.fit`` (binary) and the ``K``-class fits get their data from
``skcalib._base.training_data``, an ``ArrayTrainingData`` /
``ArrayClassTrainingData`` for arrays and a ``DaskTrainingData`` /
``DaskClassTrainingData`` for Dask collections. Each test builds the object
of both backends from the same data and checks that every public question
gets the same answer (the blocks' score ranges bit for bit; with integer
weights every sum is exact, so the weights too).
"""

import operator

import numpy as np
import pytest

from skcalib import MulticlassAffineCalibrator, PAVLLRCalibrator
from skcalib._base import training_data

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

pytestmark = pytest.mark.filterwarnings(
    "ignore:Running on a single-machine scheduler:UserWarning"
)

BACKENDS = ["array", "dask"]
CHUNKS = (700, 0, 1, 1299)  # an empty and a one-row partition


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def make_binary(n=2000, k=2, seed=0):
    """Rounded scores (ties), labels 'non'/'tar', integer weights with zeros."""
    rng = np.random.default_rng(seed)
    is_target = rng.random(n) < 0.3
    X = np.round(rng.normal(size=(n, k)) + 1.5 * is_target[:, None], 1)
    y = np.where(is_target, "tar", "non")
    w = rng.integers(0, 4, n).astype(float)
    return X, y, w


def make_classes(n=2000, seed=1):
    """Any 3 columns will do: labels 'c0', 'c1', 'c2', integer weights with zeros."""
    rng = np.random.default_rng(seed)
    y = np.array(["c0", "c1", "c2"])[rng.integers(0, 3, n)]
    return rng.normal(size=(n, 3)), y, rng.integers(0, 3, n).astype(float)


def on_backend(backend, X, y, w):
    if backend == "array":
        return X, y, w
    rows = (CHUNKS,)
    dX = da.from_array(X, chunks=rows + ((X.shape[1],) if X.ndim == 2 else ()))
    dw = None if w is None else da.from_array(w, chunks=rows)
    return dX, da.from_array(y, chunks=rows), dw


def binary_data(backend, weighted=True, **kw):
    X, y, w = make_binary(**kw)
    args = on_backend(backend, X, y, w if weighted else None)
    return training_data(PAVLLRCalibrator(), *args), (X, y, w if weighted else None)


def _chunk(chunk):
    return [chunk]


def rows_of(source):
    """Every row of a solver data source, its chunks concatenated in order."""
    chunks = source.reduce(_chunk, combine=operator.add)
    return [
        None if col[0] is None else np.concatenate(col)
        for col in zip(*chunks, strict=True)
    ]


def reference_rows(X, y, w, j=None):
    """The rows a source holds: zero-weight rows dropped, labels as a mask."""
    keep = np.ones(len(y), bool) if w is None else w > 0
    scores = X[keep] if j is None else X[keep, j]
    return [scores, (y == "tar")[keep], None if w is None else w[keep]]


def assert_rows_equal(got, ref):
    assert len(got) == len(ref)
    for a, b in zip(got, ref, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_array_equal(a, b)


# -------------------------------------------------------------------- binary
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_classes_and_totals(backend, weighted):
    data, (X, y, w) = binary_data(backend, weighted)
    assert data.classes.tolist() == ["non", "tar"]
    assert data.n_columns == 2
    assert data.weight_exponent == 0
    weights = np.ones(len(y)) if w is None else w
    assert data.n_tar == weights[y == "tar"].sum()
    assert data.n_non == weights[y == "non"].sum()


@pytest.mark.parametrize("pseudo_count", [0.0, 0.5])
@pytest.mark.parametrize("j", [0, 1])
def test_blocks_are_the_same_on_both_backends(j, pseudo_count):
    ref, _ = binary_data("array")
    got, _ = binary_data("dask")
    a, b = ref.blocks(j, pseudo_count), got.blocks(j, pseudo_count)
    for field in ("lo", "hi", "tar", "non"):
        np.testing.assert_array_equal(getattr(b, field), getattr(a, field))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_column_and_stacked_sources_hold_the_positive_rows(backend, weighted):
    data, (X, y, w) = binary_data(backend, weighted)
    for j in range(2):
        source = data.column(j)
        assert_rows_equal(rows_of(source), reference_rows(X, y, w, j))
    stacked = data.stacked()
    assert_rows_equal(rows_of(stacked), reference_rows(X, y, w))
    assert stacked.n_samples == reference_rows(X, y, w)[0].shape[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_in_memory_only(backend):
    data, (X, y, w) = binary_data(backend)
    if backend == "dask":
        with pytest.raises(TypeError, match="PAVLLRCalibrator cannot be fitted"):
            data.arrays()
        return
    assert_rows_equal(list(data.arrays()), reference_rows(X, y, w))
    got = data.arrays(all_rows=True)
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], y == "tar")
    np.testing.assert_array_equal(got[2], w)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda X, y, w: (np.where(X == X.max(), np.inf, X), y, w), "infinity"),
        (lambda X, y, w: (np.where(X == X.max(), np.nan, X), y, w), "NaN"),
        (lambda X, y, w: (X, np.where(y == "tar", "non", y), w), "2 classes"),
        (lambda X, y, w: (X, y, -w), "Negative values"),
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_data_is_refused_on_both_backends(backend, change, match):
    X, y, w = change(*make_binary())
    with pytest.raises(ValueError, match=match):
        data = training_data(PAVLLRCalibrator(), *on_backend(backend, X, y, w))
        assert data.classes is not None  # Dask: validated on the first question


# ------------------------------------------------------------------ K classes
def class_data(backend, **kw):
    X, y, w = make_classes(**kw)
    data = training_data(
        MulticlassAffineCalibrator(), *on_backend(backend, X, y, w), classes=True
    )
    return data, (X, y, w)


@pytest.mark.parametrize("backend", BACKENDS)
def test_class_data_classes_totals_and_source(backend):
    data, (X, y, w) = class_data(backend)
    classes = np.unique(y)
    np.testing.assert_array_equal(data.classes, classes)
    np.testing.assert_array_equal(data.totals, [w[y == c].sum() for c in classes])
    keep = w > 0
    index = np.searchsorted(classes, y)
    assert_rows_equal(rows_of(data.source()), [X[keep], index[keep], w[keep]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_class_data_arrays_in_memory_only(backend):
    data, (X, y, w) = class_data(backend)
    if backend == "dask":
        with pytest.raises(TypeError, match="cannot be fitted on Dask"):
            data.arrays()
        return
    got = data.arrays()
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], np.searchsorted(np.unique(y), y))
    np.testing.assert_array_equal(got[2], w)


@pytest.mark.parametrize("backend", BACKENDS)
def test_class_data_refuses_a_class_without_weight(backend):
    X, y, w = make_classes()
    w = np.where(y == "c1", 0.0, w)
    with pytest.raises(ValueError, match="class 'c1' zero total weight"):
        data = training_data(
            MulticlassAffineCalibrator(), *on_backend(backend, X, y, w), classes=True
        )
        assert data.totals is not None
