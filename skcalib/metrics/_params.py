"""What the metric functions share: their constraints and their docs.

Every binary metric takes ``(y_true, llr or y_score, ..., sample_weight,
pos_label)``, every multiclass one ``(y_true, y_prob, ..., labels,
sample_weight)``: :func:`trials_constraints` and
:func:`classes_constraints` give their ``validate_params`` dictionaries and
:data:`TRIALS_DOCS` the blocks of their docstrings (filled by
:func:`~skcalib.utils._docstrings.fill_doc`).
"""

from __future__ import annotations

from ..utils._docstrings import doc_blocks
from ._trials import _POS_LABEL

__all__ = [
    "LLR_METRIC_PARAMS",
    "SCORE_METRIC_PARAMS",
    "TRIALS_DOCS",
    "classes_constraints",
    "trials_constraints",
]


def trials_constraints(score: str, **others) -> dict:
    """``validate_params`` constraints of a metric of ``y_true``, the scores
    ``score``, the ``others`` and ``sample_weight``, ``pos_label``."""
    return {
        "y_true": ["array-like"],
        score: ["array-like"],
        **others,
        "sample_weight": ["array-like", None],
        "pos_label": _POS_LABEL,
    }


def classes_constraints(predictions: str = "y_prob", **others) -> dict:
    """``validate_params`` constraints of a multiclass metric of ``y_true``,
    the ``predictions``, the ``others`` and ``labels``, ``sample_weight``."""
    return {
        "y_true": ["array-like"],
        predictions: ["array-like"],
        **others,
        "labels": ["array-like", None],
        "sample_weight": ["array-like", None],
    }


#: The constraints of a metric of LLRs, or of scores, and nothing else.
LLR_METRIC_PARAMS = trials_constraints("llr")
SCORE_METRIC_PARAMS = trials_constraints("y_score")

TRIALS_DOCS = doc_blocks(
    y_true="""
        y_true : array-like of shape (n_samples,)
            True binary labels.
        """,
    y_score="""
        y_score : array-like of shape (n_samples,)
            Scores, higher favouring the target class; +/-inf allowed.
        """,
    forensic_llr="""
        llr : array-like of shape (n_samples,)
            Natural-log likelihood ratios in favour of the target class (H1);
            +/-inf allowed.
        """,
    y_classes="""
        y_true : array-like of shape (n_samples,)
            True classes: indices ``0..n_classes-1`` of the columns of
            ``y_prob``, or labels listed in ``labels``.
        """,
    labels="""
        labels : array-like of shape (n_classes,), default=None
            The class labels in the order of the columns of ``y_prob`` (e.g. a
            classifier's ``classes_``). If None, ``y_true`` must hold column
            indices.
        """,
    weight_label="""
        sample_weight : array-like of shape (n_samples,), default=None
            Trial weights; zero-weight trials are ignored.
        pos_label : int, float, bool or str, default=None
            The target label. May be omitted for labels in {0, 1}, {-1, 1} or
            booleans.
        """,
)
_HEADER = "Parameters\n----------\n"
#: The whole Parameters section of a forensic metric (of LLRs) and of a
#: metric of scores that takes nothing else.
TRIALS_DOCS["llr_parameters"] = _HEADER + "\n".join(
    TRIALS_DOCS[key] for key in ("y_true", "forensic_llr", "weight_label")
)
TRIALS_DOCS["score_parameters"] = _HEADER + "\n".join(
    TRIALS_DOCS[key] for key in ("y_true", "y_score", "weight_label")
)
