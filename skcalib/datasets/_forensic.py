"""Real forensic likelihood ratios shipped with the package."""

from __future__ import annotations

import math
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ..utils._sklearn_compat import validate_params

__all__ = ["load_cartridge_case"]

_SAME = "cartridge_case_llr10_same_source.csv"
_DIFFERENT = "cartridge_case_llr10_different_source.csv"

_DESCR = """\
Cartridge-case likelihood ratios
--------------------------------

Likelihood ratios of an automated comparison system for firearm marks on
cartridge case primers, obtained by cross-validation: 188 same-source
comparisons (H1 true, target 1) and 477 different-source comparisons (H2
true, target 0), unbounded (no limits applied).

The source files hold base-10 log likelihood ratios; ``llr10`` keeps them
as published and ``llr = llr10 * ln(10)`` is the natural-log LLR used
throughout skcalib.

Origin: Figure 9, Model 2, of M. Baiker-Soerensen, I. Alberink, L. B.
Granell, L. van der Ham, E. J. A. T. Mattijssen, E. D. Smith, J. Soons,
P. Vergeer and X. A. Zheng, "Automated interpretation of comparison scores
for firearm toolmarks on cartridge case primers", Forensic Science
International 353 (2023) 111858, doi:10.1016/j.forsciint.2023.111858.
Example 5 of I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard,
M. Sjerps and L. van der Ham, "A transparent method to determine limit
values for likelihood ratio systems" (2025). The files are those of the
tests of the ``lir`` package (Netherlands Forensic Institute, Apache
License 2.0). Cite the publication above wherever the data is shown.
"""


def _read_llr10(filename):
    with resources.files(__package__).joinpath("data", filename).open() as f:
        return np.loadtxt(f, dtype=np.float64, ndmin=1)


@validate_params(
    {"return_X_y": ["boolean"], "as_frame": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def load_cartridge_case(*, return_X_y=False, as_frame=False):
    """Load the cartridge-case likelihood ratios (a forensic LR system).

    Real likelihood ratios of a system that compares firearm marks on
    cartridge case primers (Baiker-Sørensen et al., 2023): 188 same-source
    comparisons (target 1) and 477 different-source comparisons (target 0),
    obtained by cross-validation and not bounded. The validation example of
    Alberink et al. (2025) for limits on likelihood ratios; some LRs are
    very large (a base-10 log LR of 76.6), so a system evaluation here must
    handle extreme values.

    The source is base 10: the data files hold base-10 log likelihood
    ratios, returned as ``llr10``; ``llr`` is the natural-log LLR
    (``llr10 * ln 10``) that skcalib's metrics and calibrators take.

    ================  ==================================
    Samples           665 (188 same source, 477 not)
    LLR (natural)     -2.24 .. 176.33
    LLR (base 10)     -0.97 .. 76.58
    ================  ==================================

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(llr, target)`` instead of a Bunch.
    as_frame : bool, default=False
        If True, ``frame`` is a pandas DataFrame with columns ``llr``,
        ``llr10`` and ``target``, and ``llr``, ``llr10`` and ``target`` are
        pandas Series (pandas is required).

    Returns
    -------
    data : sklearn.utils.Bunch
        Dictionary-like object, with attributes:

        llr : ndarray of shape (665,)
            Natural-log likelihood ratios, same-source comparisons first.
        llr10 : ndarray of shape (665,)
            The same LLRs in base 10, as published.
        target : ndarray of shape (665,) of int
            1 for a same-source comparison (H1 true), 0 for a
            different-source one (H2 true).
        target_names : ndarray of shape (2,)
            ``['different source', 'same source']``.
        frame : pandas DataFrame or None
            The three columns, if ``as_frame=True``.
        DESCR : str
            Description of the data set, with its origin.

    (llr, target) : tuple if ``return_X_y`` is True
        The natural-log LLRs and the targets.

    References
    ----------
    .. [1] M. Baiker-Sørensen, I. Alberink, L. B. Granell, L. van der Ham,
       E. J. A. T. Mattijssen, E. D. Smith, J. Soons, P. Vergeer and
       X. A. Zheng, "Automated interpretation of comparison scores for
       firearm toolmarks on cartridge case primers", Forensic Science
       International 353, 111858, 2023 (Figure 9, Model 2).
    .. [2] I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard, M. Sjerps
       and L. van der Ham, "A transparent method to determine limit values
       for likelihood ratio systems", 2025 (Example 5).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.datasets import load_cartridge_case
    >>> from skcalib.metrics import cllr
    >>> data = load_cartridge_case()
    >>> int(data.target.sum()), int((data.target == 0).sum())
    (188, 477)
    >>> bool(np.allclose(data.llr, data.llr10 * np.log(10)))
    True
    >>> llr, y = load_cartridge_case(return_X_y=True)
    >>> round(cllr(y, llr), 4)
    0.6488
    """
    same, different = _read_llr10(_SAME), _read_llr10(_DIFFERENT)
    llr10 = np.concatenate([same, different])
    llr = llr10 * math.log(10.0)
    target = np.concatenate(
        [np.ones(same.shape[0], dtype=np.int64), np.zeros(different.shape[0], np.int64)]
    )
    frame = None
    if as_frame:
        import pandas as pd

        frame = pd.DataFrame({"llr": llr, "llr10": llr10, "target": target})
        llr, llr10, target = frame["llr"], frame["llr10"], frame["target"]
    if return_X_y:
        return llr, target
    return Bunch(
        llr=llr,
        llr10=llr10,
        target=target,
        target_names=np.array(["different source", "same source"]),
        frame=frame,
        DESCR=_DESCR,
    )
