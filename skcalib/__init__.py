"""skcalib: calibration of binary classifier scores, scikit-learn style.

Calibrators are transformers (``fit``/``transform``) that follow a classifier
in a ``Pipeline``; metrics and scorers live in :mod:`skcalib.metrics`, data
generators in :mod:`skcalib.datasets`.
"""

from ._affine import ProperScoringAffineCalibrator
from ._base import BaseCalibrator
from ._calibrated_classifier import CalibratedClassifier
from ._pav_calibrators import PAVCalibrator, PAVLLRCalibrator
from ._platt import PlattCalibrator
from ._score_transformer import ScoreTransformer

__version__ = "0.1.0.dev0"

__all__ = [
    "BaseCalibrator",
    "CalibratedClassifier",
    "PAVCalibrator",
    "PAVLLRCalibrator",
    "PlattCalibrator",
    "ProperScoringAffineCalibrator",
    "ScoreTransformer",
    "__version__",
]
