"""The ROC convex hull and its equal error rate."""

from __future__ import annotations

from ..utils._docstrings import REFERENCES, fill_doc
from ..utils._sklearn_compat import validate_params
from ._params import SCORE_METRIC_PARAMS, TRIALS_DOCS
from ._trials import ScoredTrials

__all__ = ["rocch", "eer"]


@validate_params(SCORE_METRIC_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS, REFERENCES)
def rocch(y_true, y_score, *, sample_weight=None, pos_label=None):
    """Vertices of the ROC convex hull, as miss and false-alarm rates.

    Vertex ``k`` is the operating point that rejects the ``k`` lowest PAV
    blocks of the scores and accepts the rest, from accept-all
    ``(pmiss, pfa) = (0, 1)`` to reject-all ``(1, 0)``. Tied scores are never
    split.

    {score_parameters}

    Returns
    -------
    pmiss : ndarray of shape (n_vertices,)
        Miss rate at each vertex, increasing from 0 to 1.
    pfa : ndarray of shape (n_vertices,)
        False-alarm rate at each vertex, decreasing from 1 to 0.

    See Also
    --------
    eer : The equal error rate of this hull.
    sklearn.metrics.roc_curve : The full (non-convex) ROC curve.

    Notes
    -----
    The hull segment of PAV block :math:`b` has slope
    :math:`(T_b/N_{tar}) / (N_b/N_{non})`, which is the block's likelihood
    ratio: the hull vertices are the cumulative :math:`(P_{miss}, P_{fa})` at
    the PAV block boundaries.

    {fawcett_references}

    Examples
    --------
    >>> from skcalib.metrics import rocch
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> pmiss, pfa = rocch(y, [0.1, 0.2, 0.3, 0.4, 0.4, 0.9])
    >>> pmiss.round(3).tolist()
    [0.0, 0.0, 0.667, 1.0]
    >>> pfa.round(3).tolist()
    [1.0, 0.333, 0.0, 0.0]
    """
    trials = ScoredTrials._from_metric_inputs(y_true, y_score, sample_weight, pos_label)
    return trials.rocch()


@validate_params(
    {**SCORE_METRIC_PARAMS, "return_threshold": ["boolean"]},
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS)
def eer(y_true, y_score, *, sample_weight=None, pos_label=None, return_threshold=False):
    """Equal error rate of the ROC convex hull (ROCCH-EER).

    The error rate at which the convex hull of the ROC crosses
    ``P_miss == P_fa``, i.e. the EER achievable by thresholds on the scores
    when randomizing between two neighbouring thresholds is allowed. Unlike
    an EER read off the raw ROC it is well defined with ties and small data.

    {score_parameters}
    return_threshold : bool, default=False
        Whether to return, too, the score threshold of the hull vertex
        nearest the EER (see Notes).

    Returns
    -------
    eer : float
        The ROCCH-EER, in [0, 0.5].
    threshold : float
        Only if ``return_threshold``: a score of the trials; deciding
        "target" for the scores ``>= threshold`` gives the hull vertex
        nearest the EER.

    See Also
    --------
    rocch : The hull vertices.
    min_dcf : Minimum cost at one application.

    Notes
    -----
    The ROCCH-EER equals the largest unnormalized minimum DCF over all
    effective priors, :math:`\\max_{\\pi} \\min_{\\text{hull}}
    (\\pi P_{miss} + (1-\\pi) P_{fa})`.

    The threshold: hull vertex :math:`k` rejects the :math:`k` lowest PAV
    blocks of the scores, i.e. accepts the scores at or above the lowest
    score of block :math:`k`, which is its threshold. Where the hull
    crosses :math:`P_{miss} = P_{fa}` at a vertex, that vertex's threshold
    is returned; where it crosses inside a segment, the EER is reached only
    by randomizing over the block between the segment's ends (its trials
    accepted with some probability), and the threshold returned is that of
    the end nearer the diagonal (smaller :math:`|P_{miss} - P_{fa}|`), the
    lower threshold on a tie. The error rates at that threshold then
    straddle the EER: one at or below it, the other at or above.

    References
    ----------
    .. [1] N. Brümmer and E. de Villiers, "The BOSARIS toolkit" (rocch2eer).

    Examples
    --------
    >>> from skcalib.metrics import eer
    >>> round(eer([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.4, 0.9]), 4)
    0.2222
    >>> float(eer([0, 1], [0.0, 0.0]))  # one tied block: chance level
    0.5
    >>> value, threshold = eer([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.4, 0.9],
    ...                        return_threshold=True)
    >>> round(value, 4), threshold   # accept the scores >= 0.3
    (0.2222, 0.3)
    """
    trials = ScoredTrials._from_metric_inputs(y_true, y_score, sample_weight, pos_label)
    return trials.eer(return_threshold=return_threshold)
