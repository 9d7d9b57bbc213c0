"""Whether an object is a Dask collection, without importing Dask needlessly.

The only part of :mod:`skcalib._dask` that the estimators' base class and the
metrics import at module level.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["is_dask_collection", "any_dask_collection"]


def is_dask_collection(x: Any) -> bool:
    """Whether ``x`` is a Dask collection, without importing Dask needlessly.

    If Dask has not been imported yet, nothing can be a Dask collection, so
    this returns False without importing it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._dask import is_dask_collection
    >>> is_dask_collection(np.arange(3))
    False
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return bool(dask.is_dask_collection(x))


def any_dask_collection(*args: Any) -> bool:
    """Whether any argument is a Dask collection (see :func:`is_dask_collection`)."""
    if "dask" not in sys.modules:
        return False
    return any(is_dask_collection(a) for a in args)
