"""Data sets for calibration experiments: synthetic, and real forensic LLRs.

- :func:`make_gaussian_scores`: scores with Gaussian class-conditional
  densities and their exact log-likelihood-ratio, so that a calibrator can be
  judged against the truth.
- :func:`make_waveform`: Breiman's waveform recognition problem (21 noisy
  features) restricted to its first two classes, the data set of
  Rakotomalala's course notes on score calibration.
- :func:`load_cartridge_case`: real likelihood ratios of a forensic
  comparison system for cartridge cases (Baiker-Sørensen et al., 2023).
"""

from ._forensic import load_cartridge_case
from ._samples_generator import make_gaussian_scores, make_waveform

__all__ = ["load_cartridge_case", "make_gaussian_scores", "make_waveform"]
