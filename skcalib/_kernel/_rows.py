"""Reductions along the rows of an ``(n, K)`` array of a few columns.

NumPy reduces along the last axis of a C-ordered ``(n, K)`` array with an
inner loop per row, whose overhead dominates when rows are short: at
6,500 x 2, ``a.max(axis=1)`` costs about 40 times ``np.maximum`` of the two
columns, and ``a.sum(axis=1)`` about 15 times their sum. The multiclass maps
reduce such arrays several times per Newton step, so they reduce column by
column here: one vectorized pass per column. Below eight columns the sums
are those of ``a.sum(axis=1)`` bitwise (NumPy adds fewer than eight entries
from left to right); from eight on they differ from its pairwise sums by
rounding only. From :data:`MAX_COLUMNS` columns on, NumPy's per-row loop is
the faster and is used.
"""

from __future__ import annotations

import numpy as np

#: Columns from which NumPy's own reduction along the rows is used.
MAX_COLUMNS = 32


def _reduce_rows(ufunc, a):
    """``ufunc.reduce(a, axis=1)``, column by column below MAX_COLUMNS."""
    if a.shape[1] >= MAX_COLUMNS:
        return ufunc.reduce(a, axis=1)
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        ufunc(out, a[:, k], out=out)
    return out


def row_max(a):
    """The largest entry of each row of a 2-D array (NaN where a row has one).

    Examples
    --------
    >>> import numpy as np
    >>> row_max(np.array([[1.0, 3.0], [2.0, -1.0]])).tolist()
    [3.0, 2.0]
    """
    return _reduce_rows(np.maximum, a)


def row_sum(a):
    """The sum of each row of a 2-D array.

    Examples
    --------
    >>> import numpy as np
    >>> row_sum(np.array([[1.0, 3.0], [2.0, -1.0]])).tolist()
    [4.0, 1.0]
    """
    return _reduce_rows(np.add, a)


def log_softmax_rows(z):
    """``scipy.special.log_softmax(z, axis=1)`` of a 2-D float array of
    finite entries, with its operations (the row's largest entry subtracted
    first) reduced column by column.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import log_softmax
    >>> z = np.array([[0.0, 1.0, 2.0], [5.0, 5.0, -1.0]])
    >>> bool(np.allclose(log_softmax_rows(z), log_softmax(z, axis=1)))
    True
    """
    return log_normalize_rows(z - row_max(z)[:, None])


def log_normalize_rows(shifted):
    """Rows of log-scores whose largest entry is 0, minus their logsumexp:
    the last step of :func:`log_softmax_rows`, for callers that shift (and
    scale) the rows themselves.

    Examples
    --------
    >>> import numpy as np
    >>> log_normalize_rows(np.array([[0.0, 0.0]])).round(6).tolist()
    [[-0.693147, -0.693147]]
    """
    return shifted - np.log(row_sum(np.exp(shifted)))[:, None]
