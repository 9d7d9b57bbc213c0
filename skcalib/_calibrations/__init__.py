"""Fitted calibrations of a classifier's scores (see :mod:`._fitted`)."""

from ._fitted import *  # noqa: F403
from ._fitted import __all__  # noqa: F401
