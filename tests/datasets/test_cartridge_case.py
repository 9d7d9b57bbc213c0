"""Tests of skcalib.datasets.load_cartridge_case (the shipped forensic LLRs)."""

import math
from pathlib import Path

import numpy as np
import pytest

import skcalib
from skcalib.datasets import load_cartridge_case
from skcalib.metrics import cllr, min_cllr

DATA = Path(skcalib.__file__).parent / "datasets" / "data"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "forensic"
FILES = (
    "cartridge_case_llr10_same_source.csv",
    "cartridge_case_llr10_different_source.csv",
)


def _column(path):
    """The file's numbers, parsed without numpy (an independent reader)."""
    return [float(line) for line in path.read_text().split()]


# --- errors -----------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"return_X_y": "yes"}, {"as_frame": 1.5}])
def test_invalid_flags(kwargs):
    (name,) = kwargs
    with pytest.raises(ValueError, match=name):
        load_cartridge_case(**kwargs)


# --- content ------------------------------------------------------------------


def test_counts_and_conversion():
    data = load_cartridge_case()
    same, different = (_column(DATA / f) for f in FILES)
    assert (len(same), len(different)) == (188, 477)
    assert data.llr.shape == data.llr10.shape == data.target.shape == (665,)
    assert int(data.target.sum()) == 188 and int((data.target == 0).sum()) == 477
    # same-source comparisons first, in file order, as published (base 10)
    assert data.target[:188].all() and not data.target[188:].any()
    np.testing.assert_array_equal(data.llr10, np.array(same + different))
    # natural logs: ln LR = log10 LR * ln 10
    expected = np.array([v * math.log(10) for v in same + different])
    np.testing.assert_allclose(data.llr, expected, rtol=1e-15, atol=0)
    np.testing.assert_allclose(np.exp(data.llr[:5]), 10.0 ** data.llr10[:5])
    assert data.target_names.tolist() == ["different source", "same source"]
    assert data.frame is None
    assert "base-10" in data.DESCR and "10.1016/j.forsciint.2023.111858" in data.DESCR


def test_published_cllr():
    """Cllr at prior log-odds 0 of these LLRs is 0.648786 (the value lir's
    ECE plot rounds to 0.648984)."""
    llr, y = load_cartridge_case(return_X_y=True)
    assert cllr(y, llr) == pytest.approx(0.648786, abs=1e-6)
    assert 0 < min_cllr(y, llr) < cllr(y, llr)


def test_as_frame():
    pd = pytest.importorskip("pandas")
    data = load_cartridge_case(as_frame=True)
    assert isinstance(data.frame, pd.DataFrame)
    assert list(data.frame.columns) == ["llr", "llr10", "target"]
    np.testing.assert_array_equal(data.frame["llr"], load_cartridge_case().llr)
    llr, y = load_cartridge_case(return_X_y=True, as_frame=True)
    assert isinstance(llr, pd.Series) and isinstance(y, pd.Series)
    assert llr.name == "llr" and y.name == "target"


def test_return_x_y_and_fresh_arrays():
    llr, y = load_cartridge_case(return_X_y=True)
    llr[:] = 0.0  # the caller's copy; the next call reads the files again
    np.testing.assert_array_equal(
        load_cartridge_case().llr10,
        np.array(_column(DATA / FILES[0]) + _column(DATA / FILES[1])),
    )
    assert y.dtype.kind == "i"


def test_shipped_files_are_the_shared_ones():
    """The package ships its own copy (an installed package cannot read the
    checkout's ../shared); when the shared folder is there, they agree."""
    for f in FILES:
        assert (DATA / f).is_file()
        if SHARED.is_dir():
            assert (DATA / f).read_bytes() == (SHARED / f).read_bytes()


def test_files_are_package_data():
    tomllib = pytest.importorskip("tomllib")
    root = Path(skcalib.__file__).resolve().parents[1]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["skcalib"]
    for f in (*FILES, "README.md", "LICENSE-APACHE-2.0.txt"):
        assert (DATA / f).is_file()
        assert any(Path("datasets/data", f).match(p) for p in patterns), f
