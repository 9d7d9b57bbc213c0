"""The one module that imports NumPy's private API.

The compiled functions behind two NumPy wrappers that the metrics call
several times on every evaluation: on a hundred samples the wrappers'
argument handling costs about as much as the work (``np.einsum`` checks
its ``optimize`` argument in Python, ``np.count_nonzero`` its ``axis``
through the array-function dispatcher). A NumPy that moves them gives the
public functions, with the same results.
"""

import numpy as np

try:
    from numpy._core.multiarray import c_einsum as einsum
    from numpy._core.multiarray import count_nonzero
except ImportError:  # pragma: no cover - numpy < 2
    try:
        from numpy.core.multiarray import c_einsum as einsum
        from numpy.core.multiarray import count_nonzero
    except ImportError:
        einsum, count_nonzero = np.einsum, np.count_nonzero


def _einsum_is_quiet() -> bool:
    """Whether ``einsum`` leaves floating-point errors unreported (as NumPy
    2 does: it is not a ufunc), checked once on ``inf * 0``."""
    with np.errstate(invalid="raise"):
        try:
            einsum("i,i->", np.array([np.inf]), np.array([0.0]))
        except FloatingPointError:  # pragma: no cover - another NumPy
            return False
    return True


#: Whether ``einsum`` needs no ``np.errstate`` to keep ``inf * 0`` quiet.
EINSUM_IS_QUIET = _einsum_is_quiet()

__all__ = ["EINSUM_IS_QUIET", "count_nonzero", "einsum"]
