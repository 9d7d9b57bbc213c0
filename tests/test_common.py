"""scikit-learn's common estimator checks over every skcalib estimator."""

import ast
import functools
import re
from pathlib import Path

import pytest
from _calibrators import calibrators
from _sklearn_checks import parametrize_with_checks
from sklearn.linear_model import LogisticRegression

import skcalib
from skcalib import (
    CalibratedClassifier,
    ProperScoringFusion,
    ScoreTransformer,
)

# Accepting a vector of scores is the natural interface (one column of scores).
# A calibrator is a classifier of one column of scores (so that a Pipeline
# ending in one is a classifier) and a transformer of each of several columns.
# The classifier checks call predict on two feature columns, which a
# calibrator refuses with an explicit error (the checks of a one-column
# classifier run in tests/test_score_transformer.py on a Pipeline).
ONE_COLUMN = "predict needs one column of scores; the check's X has two"
EXPECTED_FAILED = {
    "check_fit1d": "1-D X is accepted: a vector of scores is one column",
    "check_classifier_data_not_an_array": ONE_COLUMN,
    "check_classifiers_classes": ONE_COLUMN,
    "check_classifiers_train": ONE_COLUMN,
    "check_supervised_y_2d": ONE_COLUMN,
}

MIN_CHECKS_PER_ESTIMATOR = 40


def _expected_failed(estimator):
    return EXPECTED_FAILED


# The one-column calibrators in every configuration the checks run
# (tests/_calibrators.py, tag "common"). The checks' scores are uniform in
# [0, 1], which BetaCalibrator() reads as log-odds and, by design, warns of
# as probabilities.
@pytest.mark.filterwarnings("ignore:Every value of `X` lies in:UserWarning")
@parametrize_with_checks(calibrators("common"), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# The affine models of several columns. Without a penalty, the small common-
# check data sets are separable by the scores, so the objective has no finite
# minimizer and the fit stops at the documented bound with a warning; where it
# stops depends on the path, so weights and repeated rows agree only with
# l2 > 0 (the defaults and the penalized variants run every check).
# Temperature and vector scaling need one score column per class, which the
# common checks' data do not have: tests/test_multiclass_affine.py covers them.
AFFINE_MODELS = calibrators("columns")

SEPARABLE = (
    "the check's data are separable: without l2 the fit stops at a bound "
    "that depends on the path"
)


def _affine_expected_failed(estimator):
    failed = {}
    if isinstance(estimator, ProperScoringFusion):
        failed["check_fit1d"] = EXPECTED_FAILED["check_fit1d"]
    if estimator.l2 == 0:
        failed["check_sample_weight_equivalence_on_dense_data"] = SEPARABLE
    return failed


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(AFFINE_MODELS, expected_failed_checks=_affine_expected_failed)
def test_affine_models_sklearn_compatible(estimator, check):
    check(estimator)


def _n_checks(estimator):
    decorator = parametrize_with_checks(
        [estimator], expected_failed_checks=_expected_failed
    )
    return len(decorator.mark.args[1])


# Every public estimator: every calibrator of the one list and the two
# wrappers; the full checks of the others run in their own test files (with
# their own expected failures), here only the floor is enforced.
WRAPPERS = [
    ScoreTransformer(LogisticRegression()),
    CalibratedClassifier(LogisticRegression()),
]
ALL_ESTIMATORS = calibrators() + WRAPPERS


def test_common_checks_are_not_vacuous(calibrator):
    assert _n_checks(calibrator) >= MIN_CHECKS_PER_ESTIMATOR


@pytest.mark.parametrize("estimator", WRAPPERS, ids=repr)
def test_wrappers_common_checks_are_not_vacuous(estimator):
    assert _n_checks(estimator) >= MIN_CHECKS_PER_ESTIMATOR


def test_every_public_estimator_is_covered():
    public = {
        name
        for name in skcalib.__all__
        if isinstance(getattr(skcalib, name), type) and name != "BaseCalibrator"
    }
    assert public == {type(e).__name__ for e in ALL_ESTIMATORS}


def _test_modules(word):
    """Each Python file of the suite that holds ``word``, and its syntax tree
    (a file without the word cannot offend: only those are parsed)."""
    return [
        (path, ast.parse(text))
        for path, text in _test_sources()
        if re.search(word, text)
    ]


@functools.cache
def _test_sources():
    return [(p, p.read_text()) for p in sorted(Path(__file__).parent.rglob("*.py"))]


def test_checks_are_parametrized_as_a_list():
    # scikit-learn < 1.9.1 hands pytest a generator of checks, which pytest 9
    # deprecates (an error here): every test file takes the listed checks of
    # tests/_sklearn_checks.py instead
    offenders = []
    for path, tree in _test_modules("parametrize_with_checks"):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "sklearn.utils.estimator_checks"
                and any(a.name == "parametrize_with_checks" for a in node.names)
                and path.name != "_sklearn_checks.py"
            ):
                offenders.append(path.name)
    assert offenders == []


def test_one_factory_and_one_list():
    # test data come from tests/_scores.py (make_scores) and calibrators
    # from tests/_calibrators.py: no test module defines a private ``_data``
    # helper or a list of calibrators of its own
    offenders = []
    for path, tree in _test_modules(r"(?m)^def _\w*data|CALIBRATORS\s*="):
        if path.name in ("_scores.py", "_calibrators.py"):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and re.fullmatch(
                r"_(\w+_)?data\d*", node.name
            ):
                offenders.append(f"{path.name}: def {node.name}")
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name)
                and t.id.endswith("CALIBRATORS")
                and isinstance(node.value, (ast.List, ast.Tuple, ast.Dict))
                for t in node.targets
            ):
                offenders.append(f"{path.name}: {ast.unparse(node.targets[0])}")
    assert offenders == []
