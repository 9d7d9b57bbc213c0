"""skcalib: calibration of binary classifier scores, scikit-learn style."""
__version__ = "0.1.0.dev0"
