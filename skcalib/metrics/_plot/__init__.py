"""Display classes (scikit-learn style) for calibration and DCF plots.

matplotlib is imported lazily inside the plotting methods, so importing
skcalib never imports it (install the ``plot`` extra to draw).
"""

from ._bayes_error import BayesErrorDisplay
from ._calibration_transform import CalibrationTransformDisplay
from ._cross_entropy import ECEDisplay, empirical_cross_entropy
from ._det import DETDisplay
from ._reliability import ReliabilityDisplay
from ._rocch import ROCConvexHullDisplay
from ._tippett import TippettDisplay

__all__ = [
    "BayesErrorDisplay",
    "CalibrationTransformDisplay",
    "DETDisplay",
    "ECEDisplay",
    "empirical_cross_entropy",
    "ReliabilityDisplay",
    "ROCConvexHullDisplay",
    "TippettDisplay",
]
