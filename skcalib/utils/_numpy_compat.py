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


__all__ = ["count_nonzero", "einsum"]
