"""Synthetic data sets for calibration experiments.

- :func:`make_gaussian_scores`: scores with Gaussian class-conditional
  densities and their exact log-likelihood-ratio, so that a calibrator can be
  judged against the truth.
- :func:`make_waveform`: Breiman's waveform recognition problem (21 noisy
  features) restricted to its first two classes, the data set of
  Rakotomalala's course notes on score calibration.
"""

from ._samples_generator import make_gaussian_scores, make_waveform

__all__ = ["make_gaussian_scores", "make_waveform"]
