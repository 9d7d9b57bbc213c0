"""skcalib: calibration of classifier scores, binary or multiclass, scikit-learn style.

Calibrators are transformers (``fit``/``transform``) that follow a classifier
in a ``Pipeline``; metrics and scorers live in :mod:`skcalib.metrics`, data
generators in :mod:`skcalib.datasets`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0.dev0"

# Public names load on first use (PEP 562), so that ``import skcalib`` and the
# command line's ``--help``/``--version`` do not pay for scikit-learn and SciPy.
_LAZY = {
    "AutoCalibrator": "._auto",
    "BaseCalibrator": "._base",
    "BetaCalibrator": "._beta",
    "BoundedCalibrator": "._bounded",
    "CalibratedClassifier": "._calibrated_classifier",
    "MulticlassAffineCalibrator": "._multiclass_affine",
    "PAVCalibrator": "._pav_calibrators",
    "PAVLLRCalibrator": "._pav_calibrators",
    "PlattCalibrator": "._platt",
    "ProperScoringAffineCalibrator": "._affine",
    "ProperScoringFusion": "._fusion",
    "QuadraticCalibrator": "._quadratic",
    "ScoreTransformer": "._score_transformer",
    "VennAbersCalibrator": "._venn_abers",
}

if TYPE_CHECKING:
    from ._affine import ProperScoringAffineCalibrator
    from ._auto import AutoCalibrator
    from ._base import BaseCalibrator
    from ._beta import BetaCalibrator
    from ._bounded import BoundedCalibrator
    from ._calibrated_classifier import CalibratedClassifier
    from ._fusion import ProperScoringFusion
    from ._multiclass_affine import MulticlassAffineCalibrator
    from ._pav_calibrators import PAVCalibrator, PAVLLRCalibrator
    from ._platt import PlattCalibrator
    from ._quadratic import QuadraticCalibrator
    from ._score_transformer import ScoreTransformer
    from ._venn_abers import VennAbersCalibrator

__all__ = [
    "AutoCalibrator",
    "BaseCalibrator",
    "BetaCalibrator",
    "BoundedCalibrator",
    "CalibratedClassifier",
    "MulticlassAffineCalibrator",
    "PAVCalibrator",
    "PAVLLRCalibrator",
    "PlattCalibrator",
    "ProperScoringAffineCalibrator",
    "ProperScoringFusion",
    "QuadraticCalibrator",
    "ScoreTransformer",
    "VennAbersCalibrator",
    "__version__",
]


_SUBMODULES = ("datasets", "metrics", "utils")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
