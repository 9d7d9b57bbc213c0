"""skcalib: calibration of binary classifier scores, scikit-learn style.

Calibrators are transformers (``fit``/``transform``) that follow a classifier
in a ``Pipeline``; metrics live in :mod:`skcalib.metrics`.
"""

from ._base import BaseCalibrator
from ._pav_calibrators import PAVCalibrator, PAVLLRCalibrator

__version__ = "0.1.0.dev0"

__all__ = [
    "BaseCalibrator",
    "PAVCalibrator",
    "PAVLLRCalibrator",
    "__version__",
]
