"""The system's ECE terms of both classes from one binning equal the
direct sums, per class (weighted or not, with infinite LLRs)."""

import numpy as np
import pytest

from skcalib.metrics._plot._cross_entropy import (
    _class_softplus_means,
    _softplus_sums_direct,
    _sorted_class_softplus_means,
)


def _direct_means(is_target, x, w, plo):
    out = []
    for mask, sign in ((is_target, -1.0), (~is_target, 1.0)):
        xc = x[mask]
        wc = np.ones(xc.shape[0]) if w is None else w[mask]
        if np.any(sign * xc == np.inf):
            out.append(np.full(plo.shape[0], np.inf))
            continue
        keep = sign * xc > -np.inf
        total = _softplus_sums_direct(sign * xc[keep], wc[keep], sign * plo)
        out.append(total / wc.sum())
    return out


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("scale, offset", [(2.0, 0.0), (1.0, -40.0), (0.5, 30.0)])
def test_one_binning_equals_direct_sums(weighted, scale, offset):
    rng = np.random.default_rng(4)
    n = 30000
    is_target = rng.random(n) < 0.3
    x = rng.normal(size=n) * scale + offset + np.where(is_target, 1.0, -1.0)
    w = rng.uniform(0.0, 2.0, n) if weighted else None
    plo = np.linspace(-9.0, 9.0, 37)
    got = _class_softplus_means(is_target, x, w, plo)
    for a, b in zip(got, _direct_means(is_target, x, w, plo), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize("extreme", [-np.inf, np.inf])
def test_infinite_llrs(extreme):
    rng = np.random.default_rng(5)
    n = 20000
    is_target = rng.random(n) < 0.5
    x = rng.normal(size=n)
    x[:10] = extreme
    plo = np.linspace(-3.0, 3.0, 7)
    got = _class_softplus_means(is_target, x, None, plo)
    expected = _direct_means(is_target, x, None, plo)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    x_kept = x.copy()
    _class_softplus_means(is_target, x, None, plo)
    np.testing.assert_array_equal(x, x_kept)


@pytest.mark.parametrize(
    "scale, offset, extreme",
    [
        (2.0, 0.0, None),
        (1.0, -40.0, None),
        (2.0, 0.0, -np.inf),
        (2.0, 0.0, np.inf),
        (2.0, 0.0, 1000.0),  # a wide range: the direct sums
    ],
)
def test_sorted_classes_equal_direct_sums(scale, offset, extreme):
    # each class's LLRs sorted (the PAV kernel's sort): runs per bin
    rng = np.random.default_rng(6)
    n = 30000
    is_target = rng.random(n) < 0.3
    x = rng.normal(size=n) * scale + offset + np.where(is_target, 1.0, -1.0)
    x[100:200] = np.round(x[100:200])  # ties
    if extreme is not None:
        x[:3], x[-3:] = extreme, -extreme
    plo = np.linspace(-9.0, 9.0, 37)
    tar, non = np.sort(x[is_target]), np.sort(x[~is_target])
    kept = tar.copy(), non.copy()
    got = _sorted_class_softplus_means(tar, non, plo)
    for a, b in zip(got, _direct_means(is_target, x, None, plo), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    np.testing.assert_array_equal(tar, kept[0])
    np.testing.assert_array_equal(non, kept[1])
