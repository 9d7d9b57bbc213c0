"""Reading order of the example gallery (sphinx-gallery's
``within_subsection_order``): the quick start first, then from the basics to
the specialised topics; an example not listed comes last, by file name."""

from pathlib import Path

ORDER = [
    "plot_quick_start.py",
    "plot_bayes_error.py",
    "plot_reliability_waveform.py",
    "plot_rocch_pav.py",
    "plot_compare_calibrated_classifier.py",
    "plot_prior_weighted_rules.py",
    "plot_fusion_waveform.py",
    "plot_confidence_intervals.py",
    "plot_multiclass_digits.py",
]


def example_order(filename) -> tuple:
    name = Path(filename).name
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)
