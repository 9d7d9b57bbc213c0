"""The docstring blocks that several calibrators share.

Filled into their docstrings by :func:`~skcalib.utils._docstrings.fill_doc`
(on a class: its docstring and its methods'): a line ``{binary_attributes}``
becomes the attributes every binary calibrator sets in ``fit``, at that
line's indent; ``{fit_scores}`` and ``{scores}`` the scores a calibrator
takes; :func:`newton_docs` the controls of a fit by Newton's method.
"""

from __future__ import annotations

from ._docstrings import doc_blocks

__all__ = ["CALIBRATOR_DOCS", "newton_docs"]

#: What ``fit`` of every binary calibrator sets, ``prior_`` aside.
_FITTED = """
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the target.
    n_features_in_ : int
        Number of score columns seen in ``fit``.
    calibration_prior_ : float
        Weighted target proportion of the calibration data.
    prior_ : float
"""

CALIBRATOR_DOCS = doc_blocks(
    # the last two attributes in either wording
    binary_attributes=_FITTED
    + "        Prior used by ``predict_proba`` and ``predict``.\n",
    binary_attributes_given=_FITTED
    + "        ``prior`` if given, else ``calibration_prior_``.\n",
    fit_scores="""
        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
            Uncalibrated scores; each column is calibrated independently.
        y : array-like of shape (n_samples,)
            Binary labels (any two values); ``classes_[1]`` is the target.
        """,
    scores="""
        X : array-like of shape (n_samples,) or (n_samples, 1)
            Scores.
        """,
)


def newton_docs(iterations: str = "") -> dict[str, str]:
    """The block ``{newton_parameters}``: ``tol`` and ``max_iter`` of a fit by
    Newton's method, whose iterations count ``iterations`` (e.g. ``" per
    column"``)."""
    return doc_blocks(
        newton_parameters=f"""
            tol : float, default=1e-8
                Convergence tolerance of Newton's method.
            max_iter : int, default=100
                Maximum number of Newton iterations{iterations}.
            """
    )
