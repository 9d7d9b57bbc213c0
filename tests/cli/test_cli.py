"""Tests of the ``skcalib`` command line (in-process and through subprocesses)."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import skcalib
from skcalib import _cli
from skcalib._cli import Progress, main
from skcalib._cli._demo import _DEMO_CALIBRATORS
from skcalib.datasets import make_gaussian_scores
from skcalib.metrics import actual_dcf, cllr, eer, min_cllr, min_dcf


def _write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return str(path)


def _run(*args, cwd=None):
    """Run ``python -m skcalib ARGS`` and return the completed process."""
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, "-m", "skcalib", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


@pytest.fixture
def data():
    s, y, llr = make_gaussian_scores(60, target_std=1.5, random_state=0)
    return s, y, llr


def _two_column(path, scores, y, *, sep=" ", header=False, labels=("0", "1")):
    lines = ["score,label" if sep == "," else "score label"] if header else []
    lines += [
        f"{float(s)!r}{sep}{labels[int(t)]}" for s, t in zip(scores, y, strict=True)
    ]
    return _write(path, "\n".join(lines) + "\n")


def _trials(tmp_path, scores, y, *, shuffle_key=True):
    ids = [(f"m{i % 7}", f"seg{i}") for i in range(len(scores))]
    score_file = _write(
        tmp_path / "scores.txt",
        "".join(
            f"{m} {g} {float(s)!r}\n" for (m, g), s in zip(ids, scores, strict=True)
        ),
    )
    order = np.random.RandomState(0).permutation(len(ids)) if shuffle_key else None
    key_rows = [
        f"{ids[i][0]} {ids[i][1]} {'target' if y[i] else 'nontarget'}\n"
        for i in (order if order is not None else range(len(ids)))
    ]
    key_file = _write(tmp_path / "key.txt", "".join(key_rows))
    return score_file, key_file


# --- malformed input: each case exits 2 with one line naming file and line ---

MALFORMED = {
    "missing column": ("1.5 target\n-2\n", "s.txt, line 2: missing column"),
    "extra column": ("1.5 target\n-2 0 7 8\n", "s.txt, line 2: extra column"),
    "non-numeric score": (
        "1.5 target\nabc nontarget\n",
        "s.txt, line 2: score 'abc' is not a number",
    ),
    "nan score": ("1.5 target\nnan nontarget\n", "s.txt, line 2: score is NaN"),
    "unknown label": (
        "1.5 target\n# comment\n2 maybe\n",
        "s.txt, line 3: unknown label 'maybe'",
    ),
    "empty file": ("", "s.txt, line 1: empty file"),
    "only comments": ("# nothing\n\n", "s.txt, line 3: empty file"),
    "header only": ("score label\n", "s.txt, line 2: no trials after the header"),
    "one class": ("1 target\n2 target\n", "s.txt, lines 1-2: no non-target"),
    "three columns without key": ("a b 1.0\n", "s.txt, line 1: three columns"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_evaluate_malformed_in_process(case, tmp_path, capsys, monkeypatch):
    text, message = MALFORMED[case]
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "s.txt", text)
    assert main(["evaluate", "s.txt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("skcalib: error: ")
    assert message in err


def _key_cases(tmp_path):
    scores = _write(tmp_path / "scores.txt", "m1 s1 1.0\nm1 s2 -1.0\nm2 s3 0.5\n")
    cases = {
        "score trial not in key": (
            "m1 s1 target\nm1 s2 nontarget\n",
            "scores.txt, line 3: trial (m2, s3) is not in the key file",
        ),
        "unknown key label": (
            "m1 s1 target\nm1 s2 impostr\nm2 s3 target\n",
            "key.txt, line 2: unknown label 'impostr'",
        ),
        "duplicate key trial": (
            "m1 s1 target\nm1 s1 target\n",
            "key.txt, line 2: duplicate trial (m1, s1)",
        ),
        "key missing column": ("m1 s1\n", "key.txt, line 1: missing column"),
        "empty key": ("\n", "key.txt, line 2: empty file"),
    }
    return scores, cases


@pytest.mark.parametrize(
    "case",
    [
        "score trial not in key",
        "unknown key label",
        "duplicate key trial",
        "key missing column",
        "empty key",
    ],
)
def test_key_score_mismatch(case, tmp_path, capsys, monkeypatch):
    _, cases = _key_cases(tmp_path)
    key_text, message = cases[case]
    _write(tmp_path / "key.txt", key_text)
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "scores.txt", "--key", "key.txt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


@pytest.mark.slow
def test_malformed_input_subprocess(tmp_path):
    """Malformed input end to end through ``python -m skcalib``.

    The processes run concurrently (two at a time) to keep the wall time low.
    """
    # One process per malformed-input category of the issue (missing column,
    # non-numeric score, unknown label, key/score mismatch both ways, empty
    # file); the variants of each are covered in-process above.
    jobs = []
    subset = {"missing column", "non-numeric score", "unknown label", "empty file"}
    key_subset = {"score trial not in key", "duplicate key trial"}
    for i, (case, (text, message)) in enumerate(sorted(MALFORMED.items())):
        if case not in subset:
            continue
        d = tmp_path / f"case{i}"
        d.mkdir()
        _write(d / "s.txt", text)
        jobs.append((case, message, ["evaluate", "s.txt"], d))
    _, key_cases = _key_cases(tmp_path)
    for i, (case, (key_text, message)) in enumerate(sorted(key_cases.items())):
        if case not in key_subset:
            continue
        d = tmp_path / f"key{i}"
        d.mkdir()
        shutil.copy(tmp_path / "scores.txt", d / "scores.txt")
        _write(d / "key.txt", key_text)
        jobs.append((case, message, ["evaluate", "scores.txt", "--key", "key.txt"], d))
    env = dict(os.environ, MPLBACKEND="Agg")
    pending = list(jobs)
    running = []
    results = []
    while pending or running:
        while pending and len(running) < 2:
            case, message, argv, d = pending.pop()
            proc = subprocess.Popen(
                [sys.executable, "-m", "skcalib", *argv],
                cwd=d,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            running.append((case, message, proc))
        case, message, proc = running.pop(0)
        out, err = proc.communicate(timeout=120)
        results.append((case, message, proc.returncode, out, err))
    assert sorted(r[0] for r in results) == sorted(subset | key_subset)
    for case, message, code, out, err in results:
        assert code == 2, (case, err)
        assert "Traceback" not in err, case
        assert err.count("\n") == 1, (case, err)
        assert message in err, (case, err)
        assert out == "", case


@pytest.mark.parametrize("fast", [True, False])
def test_key_may_hold_more_trials_than_the_scores(fast, tmp_path, capsys, monkeypatch):
    # a master key evaluated on one condition's scores: the key trials without
    # a score are left out and counted, by the fast and the careful reader
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 60).astype(bool)
    y[:2] = [True, False]
    s = (rng.normal(size=60) + 2 * y).tolist()
    ids = [(f"m{i % 7}", f"s{i}") for i in range(90)]
    # a quoted field, a key header: the careful pass reads both files
    quote = "" if fast else '"'
    _write(
        tmp_path / "scores.txt",
        "".join(
            f"{quote}{m}{quote},{g},{v!r}\n"
            for (m, g), v in zip(ids[:60], s, strict=True)
        ),
    )
    labels = np.concatenate([y, rng.randint(0, 2, 30).astype(bool)])
    key_lines = [
        f"{m} {g} {'target' if t else 'nontarget'}\n"
        for (m, g), t in zip(ids, labels, strict=True)
    ]
    header = "" if fast else "model segment label\n"
    _write(tmp_path / "key.txt", header + "".join(key_lines[::-1]))
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "scores.txt", "--key", "key.txt", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_key_trials_unscored"] == 30
    assert (out["n_target"], out["n_nontarget"]) == (int(y.sum()), int((~y).sum()))
    assert out["eer"] == pytest.approx(skcalib.metrics.eer(y, np.array(s)))
    assert main(["evaluate", "scores.txt", "--key", "key.txt"]) == 0
    captured = capsys.readouterr()  # a note: on stderr, the data on stdout
    assert "no score" not in captured.out
    assert (
        "skcalib: note: key.txt: 30 key trials have no score in scores.txt and "
        "are left out"
    ) in captured.err
    argv = ["calibrate", "--method", "platt", "--train", "scores.txt"]
    assert main([*argv, "--train-key", "key.txt", "--save-model", "m.pkl"]) == 0
    assert "skcalib: note: key.txt: 30 key trials have no score" in (
        capsys.readouterr().err
    )


def test_duplicate_scored_trial(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "s.txt", "m1 s1 1.0\nm1 s1 2.0\n")
    _write(tmp_path / "k.txt", "m1 s1 target\n")
    assert main(["evaluate", "s.txt", "--key", "k.txt"]) == 2
    assert "s.txt, line 2: duplicate trial (m1, s1)" in capsys.readouterr().err


def test_missing_and_binary_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "nope.txt"]) == 2
    assert "nope.txt: no such file" in capsys.readouterr().err
    _write(tmp_path / "bin.txt", b"1 target\n\xff\xfe\x00 x\n", mode="wb")
    assert main(["evaluate", "bin.txt"]) == 2
    assert "bin.txt, line 2: not UTF-8 text" in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_calibrate_malformed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "t.txt", "1 target\ninf nontarget\n0 0\n")
    _write(tmp_path / "a.txt", "1\n2\nx\n")
    _write(tmp_path / "ok.txt", "1 target\n-1 nontarget\n0.5 1\n-0.2 0\n")
    argv = ["calibrate", "--method", "pav-llr", "--train"]
    assert main([*argv, "t.txt", "--apply", "ok.txt"]) == 2
    assert "t.txt, line 2: score 'inf' must be finite" in capsys.readouterr().err
    assert main([*argv, "ok.txt", "--apply", "a.txt"]) == 2
    assert "a.txt, line 3: score 'x' is not a number" in capsys.readouterr().err
    _write(tmp_path / "model.pkl", "not a pickle")
    assert main(["calibrate", "--load-model", "model.pkl", "--apply", "ok.txt"]) == 2
    err = capsys.readouterr().err
    assert "model.pkl: not a saved skcalib model" in err and "line 1" not in err
    joblib.dump({"a": 1}, tmp_path / "dict.pkl")
    assert main(["calibrate", "--load-model", "dict.pkl", "--apply", "ok.txt"]) == 2
    assert "not a saved skcalib calibrator (found dict)" in capsys.readouterr().err
    assert main(["calibrate", "--apply", "ok.txt"]) == 2
    assert "needs --train" in capsys.readouterr().err
    assert main(["calibrate", "--train", "ok.txt", "--apply", "ok.txt"]) == 2
    assert "--method is required" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["calibrate", "--apply", "s"], "calibrate needs --train TRAIN (or "),
        (["fuse", "--apply", "s"], "fuse needs --train TRAIN ... (or "),
        (["calibrate", "--train", "t"], "give --apply SCORES and/or --save-model."),
        (["fuse", "--train", "t"], "give --apply SCORES ... and/or --save-model."),
        (
            ["calibrate", "--train", "t", "--load-model", "m", "--apply", "s"],
            "give either --train or --load-model, not both.",
        ),
        (
            ["fuse", "--train", "t", "--load-model", "m", "--apply", "s"],
            "give either --train or --load-model, not both.",
        ),
        (
            ["calibrate", "--load-model", "m", "--apply", "s", "--prior", "0.3"],
            "--prior: only for training",
        ),
        (
            ["fuse", "--load-model", "m", "--apply", "s", "--prior", "0.3"],
            "--prior: only for training",
        ),
    ],
)
def test_calibrate_and_fuse_take_a_model_by_the_same_rules(argv, message, capsys):
    """Trained or loaded, never both, something to do with it, and no
    training option with a loaded model: one check for both commands, before
    any file is read."""
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["evaluate", "x", "--p-target", "1.5"]) == 2
    assert "must be in (0, 1)" in capsys.readouterr().err
    assert main(["calibrate", "--method", "nope"]) == 2
    assert main(["--version"]) == 0
    assert skcalib.__version__ in capsys.readouterr().out


# --- evaluate ----------------------------------------------------------------


def _expected(y, s, p_target=0.5, c_miss=1.0, c_fa=1.0):
    app = {"p_target": p_target, "c_miss": c_miss, "c_fa": c_fa}
    return {
        "eer": eer(y, s),
        "min_dcf": min_dcf(y, s, **app),
        "actual_dcf": actual_dcf(y, s, **app),
        "cllr": cllr(y, s),
        "min_cllr": min_cllr(y, s),
    }


@pytest.mark.parametrize("sep, header", [(" ", False), (",", True), ("\t", False)])
def test_evaluate_matches_metric_functions(sep, header, data, tmp_path, capsys):
    s, y, llr = data
    path = _two_column(tmp_path / "s.txt", llr, y, sep=sep, header=header)
    argv = ["evaluate", path, "--json", "--p-target", "0.2", "--c-fa", "3"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_target"] == int(y.sum()) and out["n_nontarget"] == int((1 - y).sum())
    assert out["effective_prior"] == pytest.approx(0.2 / (0.2 + 0.8 * 3))
    for k, v in _expected(y, llr, 0.2, 1.0, 3.0).items():
        assert out[k] == pytest.approx(v, rel=1e-12, abs=1e-15), k


def test_evaluate_label_spellings(data, tmp_path, capsys):
    s, y, _ = data
    a = _two_column(tmp_path / "a.txt", s, y, labels=("nontarget", "target"))
    b = _two_column(tmp_path / "b.txt", s, y, labels=("-1", "+1"))
    c = _two_column(tmp_path / "c.txt", s, y, labels=("FALSE", "True"))
    results = []
    for path in (a, b, c):
        assert main(["evaluate", path, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        results.append({k: out[k] for k in ("eer", "cllr", "min_dcf")})
    assert results[0] == results[1] == results[2]


def test_evaluate_text_table(data, tmp_path, capsys):
    s, y, llr = data
    path = _two_column(tmp_path / "s.txt", llr, y)
    assert main(["evaluate", path]) == 0
    out = capsys.readouterr().out
    for label in ("EER", "min DCF", "actual DCF", "Cllr (bits)", "min Cllr (bits)"):
        assert label in out
    expected = _expected(y, llr)
    assert f"{expected['min_dcf']:.4f}" in out
    assert f"{expected['cllr']:.4f}" in out


def test_evaluate_separated_classes_print_no_negative_zero(tmp_path, capsys):
    path = _write(tmp_path / "s.txt", "-2 0\n-1 0\n1 1\n2 1\n")
    assert main(["evaluate", path]) == 0
    out = capsys.readouterr().out
    assert "-0.0" not in out and "0.00%" in out


def test_evaluate_infinite_llr(tmp_path, capsys):
    path = _write(tmp_path / "s.txt", "inf 1\n-inf 0\n1.0 1\n-inf 1\n")
    assert main(["evaluate", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cllr"] == "Infinity"  # a confidently wrong target: strict JSON
    assert out["n_confidently_wrong"] == 1


def test_evaluate_key_equals_two_columns(data, tmp_path, capsys):
    s, y, llr = data
    two = _two_column(tmp_path / "two.txt", llr, y)
    score_file, key_file = _trials(tmp_path, llr, y)
    assert main(["evaluate", two, "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["evaluate", score_file, "--key", key_file, "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    for k in ("eer", "min_dcf", "actual_dcf", "cllr", "min_cllr", "n_target"):
        assert a[k] == b[k]


@pytest.mark.slow
def test_evaluate_plot_subprocess(data, tmp_path):
    s, y, llr = data
    path = _two_column(tmp_path / "s.txt", llr, y)
    proc = _run("evaluate", path, "--plot", tmp_path / "be.png", "-q")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    with open(tmp_path / "be.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert "EER" in proc.stdout
    # an unwritable plot path is bad input, not a traceback
    proc = _run("evaluate", path, "--plot", tmp_path / "no" / "dir" / "be.png")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot write" in proc.stderr


# --- calibrate ---------------------------------------------------------------


def _calibrators():
    return {
        "pav-llr": skcalib.PAVLLRCalibrator(),
        "pav": skcalib.PAVCalibrator(),
        "platt": skcalib.PlattCalibrator(),
        "affine": skcalib.ProperScoringAffineCalibrator(
            alpha=2.0, beta=1.0, p_target=0.3
        ),
        "beta": skcalib.BetaCalibrator(alpha=2.0, beta=1.0, p_target=0.3),
        "venn-abers": skcalib.VennAbersCalibrator(),
        "auto": skcalib.AutoCalibrator(),
    }


@pytest.mark.parametrize("l2", [None, "0", "0.01"])
def test_calibrate_affine_l2(l2, tmp_path):
    """The default penalty, and --l2 (0: the exact unpenalized fit)."""
    s = np.array([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0])  # separable
    y = (s > 0).astype(int)
    train = _two_column(tmp_path / "train.txt", s, y, header=True)
    out = tmp_path / "out.txt"
    argv = ["calibrate", "--method", "affine", "--train", train, "--apply", train]
    argv += ["-o", str(out), "-q", "--output", "proba"]
    assert main(argv + ([] if l2 is None else ["--l2", l2])) == 0
    params = {} if l2 is None else {"l2": float(l2)}
    cal = skcalib.ProperScoringAffineCalibrator(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # l2=0: separable
        expected = cal.fit(s, y).predict_proba(s)[:, 1]
    _, got = _read_values(out, 0)
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    if l2 == "0":
        assert got.min() == 0 and got.max() == 1
    else:
        assert (0 < got).all() and (got < 1).all()


def _read_values(path, col):
    with open(path) as f:
        rows = [ln.replace(",", " ").split() for ln in f if ln.strip()]
    return rows, np.array([float(r[col]) for r in rows[1:] if r])


@pytest.mark.parametrize(
    "method", ["pav-llr", "pav", "platt", "affine", "beta", "venn-abers", "auto"]
)
def test_calibrate_matches_estimator(method, data, tmp_path, capsys):
    cals = _calibrators()
    s, y, _ = data
    train = _two_column(tmp_path / "train.txt", s, y)
    s2, y2, _ = make_gaussian_scores(40, target_std=1.5, random_state=1)
    apply = _two_column(tmp_path / "apply.csv", s2, y2, sep=",", header=True)
    out = tmp_path / "out.csv"
    extra = (
        ["--alpha", "2", "--beta", "1", "--p-target", "0.3"]
        if method in ("affine", "beta")
        else []
    )
    argv = ["calibrate", "--method", method, "--train", train, "--apply", apply]
    assert main([*argv, "-o", str(out), "-q", *extra]) == 0
    expected = cals[method].fit(s, y).decision_function(s2)
    with open(out) as f:
        lines = f.read().splitlines()
    assert lines[0] == "llr,label"  # header kept, score column renamed
    got = np.array([float(ln.split(",")[0]) for ln in lines[1:]])
    labels = [ln.split(",")[1] for ln in lines[1:]]
    assert labels == [str(int(t)) for t in y2]
    np.testing.assert_array_equal(got, expected)  # written exactly (repr)
    # probabilities at the calibrator's prior
    out_p = tmp_path / "out_p.csv"
    assert main([*argv, "-o", str(out_p), "--output", "proba", *extra]) == 0
    got_p = np.array(
        [float(ln.split(",")[0]) for ln in open(out_p).read().splitlines()[1:]]
    )
    np.testing.assert_allclose(
        got_p, cals[method].predict_proba(s2)[:, 1], rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("method", ["beta", "venn-abers", "auto"])
def test_newer_calibrators_save_load_and_options(method, data, tmp_path, capsys):
    s, y, _ = data
    train = _two_column(tmp_path / "train.txt", s, y)
    model = str(tmp_path / "m.pkl")
    argv = ["calibrate", "-q", "--method", method, "--train", train]
    assert main([*argv, "--save-model", model, "--prior", "0.2"]) == 0
    cal = joblib.load(model)
    assert (
        type(cal).__name__
        == {
            "beta": "BetaCalibrator",
            "venn-abers": "VennAbersCalibrator",
            "auto": "AutoCalibrator",
        }[method]
    )
    assert cal.prior == 0.2
    assert main(["calibrate", "--load-model", model, "--apply", train]) == 0
    rows = capsys.readouterr().out.splitlines()
    got = np.array([float(r.split()[0]) for r in rows])
    np.testing.assert_array_equal(got, cal.decision_function(s))
    if method == "beta":  # the rule options reach BetaCalibrator
        opts = ["--alpha", "2", "--beta", "0.5", "--p-target", "0.1", "--l2", "0"]
        assert main([*argv, "--save-model", model, *opts]) == 0
        params = joblib.load(model).get_params()
        assert (params["alpha"], params["beta"]) == (2.0, 0.5)
        assert (params["p_target"], params["l2"]) == (0.1, 0.0)
    else:
        assert main([*argv, "--save-model", model, "--p-target", "0.1"]) == 2
        assert capsys.readouterr().err == (
            "skcalib: error: --p-target applies to --method affine and beta only, "
            f"not {method}.\n"
        )


def test_calibrate_trials_format_and_model_roundtrip(data, tmp_path, capsys):
    s, y, _ = data
    train_scores, train_key = _trials(tmp_path, s, y)
    apply = _write(tmp_path / "apply.txt", "mA segX 0.25\nmB segY -3\nmA segZ 4.5\n")
    model = tmp_path / "model.joblib"
    argv = ["calibrate", "--method", "pav-llr", "--train", train_scores]
    assert main([*argv, "--train-key", train_key, "--save-model", str(model)]) == 0
    assert isinstance(joblib.load(model), skcalib.PAVLLRCalibrator)
    # one confirmation line on stderr, none with -q
    assert capsys.readouterr().err == f"PAVLLRCalibrator: model saved to {model}\n"
    assert (
        main(["-q", *argv, "--train-key", train_key, "--save-model", str(model)]) == 0
    )
    assert capsys.readouterr().err == ""
    assert main(["calibrate", "--load-model", str(model), "--apply", apply]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split()[:2] for ln in out] == [
        ["mA", "segX"],
        ["mB", "segY"],
        ["mA", "segZ"],
    ]
    expected = skcalib.PAVLLRCalibrator().fit(s, y).decision_function([0.25, -3, 4.5])
    np.testing.assert_allclose([float(ln.split()[2]) for ln in out], expected)


def test_calibrate_plain_score_column(data, tmp_path, capsys):
    s, y, _ = data
    train = _two_column(tmp_path / "train.txt", s, y)
    apply = _write(tmp_path / "apply.txt", "# raw scores\n0.1\n2.5\n")
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", apply]
    assert main(argv) == 0
    out = capsys.readouterr().out.split()
    expected = skcalib.PAVCalibrator().fit(s, y).decision_function([0.1, 2.5])
    np.testing.assert_allclose(np.array(out, dtype=float), expected)


def test_calibrate_output_reads_back(data, tmp_path, capsys):
    # calibrate's CSV output (header "llr,label") is valid evaluate input
    s, y, _ = data
    train = _two_column(tmp_path / "train.csv", s, y, sep=",", header=True)
    out = str(tmp_path / "cal.csv")
    argv = ["calibrate", "--method", "platt", "--train", train, "--apply", train]
    assert main([*argv, "-o", out, "-q"]) == 0
    assert open(out).readline() == "llr,label\n"
    assert main(["evaluate", out, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    llr = skcalib.PlattCalibrator().fit(s, y).decision_function(s)
    assert got["cllr"] == pytest.approx(cllr(y, llr), rel=1e-12)
    # a malformed first line is not mistaken for a header
    bad = _write(tmp_path / "bad.txt", "abc 1\n2 0\n")
    assert main(["evaluate", bad]) == 2
    assert "bad.txt, line 1: score 'abc' is not a number" in capsys.readouterr().err


@pytest.mark.slow
def test_calibrate_then_evaluate_subprocess(data, tmp_path):
    s, y, _ = data
    train = _two_column(tmp_path / "train.txt", s, y)
    proc = _run(
        "calibrate",
        "--method",
        "pav-llr",
        "--train",
        train,
        "--apply",
        train,
        "-o",
        tmp_path / "cal.txt",
    )
    assert proc.returncode == 0, proc.stderr
    proc = _run("evaluate", tmp_path / "cal.txt", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # calibrated on itself, the PAV-LLR reaches min Cllr up to the
    # rule-of-succession smoothing of the default extremes
    assert out["cllr"] >= out["min_cllr"] - 1e-12
    assert out["cllr"] < out["min_cllr"] + 0.1


# --- demo, progress, entry points --------------------------------------------


@pytest.mark.slow
def test_demo_subprocess(tmp_path):
    proc = _run("demo", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "skcalib_demo.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    for name in _DEMO_CALIBRATORS:
        if hasattr(skcalib, name):
            assert name in proc.stdout
    assert "true LLR" in proc.stdout and "Cllr" in proc.stdout


def test_demo_json_in_process(tmp_path, capsys):
    plot = tmp_path / "demo.png"
    argv = ["demo", "--plot", str(plot), "--json", "-q", "--n-test", "1000"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert plot.exists()
    systems = out["systems"]
    for name in _DEMO_CALIBRATORS:
        assert (name in systems) == hasattr(skcalib, name)
    ref = systems["true LLR (Bayes, reference)"]
    raw = systems["raw naive Bayes log-odds"]
    # the true LLR is the best possible system on every metric (large n)
    assert ref["min_dcf"] <= raw["min_dcf"] and ref["cllr"] < raw["cllr"]
    for m in systems.values():
        assert m["min_dcf"] <= m["actual_dcf"] + 1e-12


def test_demo_shows_newer_calibrators_and_no_infinite_cllr(tmp_path, capsys):
    from sklearn.naive_bayes import GaussianNB

    from skcalib._cli._demo import _draw

    plot = tmp_path / "demo.png"
    argv = ["demo", "--plot", str(plot), "--n-test", "1000"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    rows = {ln.split()[0]: ln.split()[1:] for ln in captured.out.splitlines()}
    for name in ("BetaCalibrator", "VennAbersCalibrator", "AutoCalibrator"):
        assert name in rows and len(rows[name]) == 5
    # every Cllr of the table is finite: no row of probability-0/1 ends
    assert "inf" not in captured.out and "PAVCalibrator " not in captured.out
    # why scikit-learn's isotonic fit is left out: a note on stderr, with the
    # count of its confidently wrong test trials, recomputed here
    train, cal, test = _draw(500, 500, 1000, 0)
    clf = GaussianNB().fit(train[0], train[1])

    def log_odds(X):
        log_proba = clf.predict_log_proba(X)
        return log_proba[:, 1] - log_proba[:, 0]

    p = skcalib.PAVCalibrator().fit(log_odds(cal[0]), cal[1])
    p = p.predict_proba(log_odds(test[0]))[:, 1]
    n_wrong = int(np.sum((p == 0) & (test[1] == 1)) + np.sum((p == 1) & (test[1] == 0)))
    assert n_wrong > 0
    assert (
        "skcalib: note: PAVCalibrator (scikit-learn's isotonic regression) is not "
        "in the table: its two end blocks give probability 0 or 1, an infinite "
        f"LLR, and {n_wrong} of the 1000 test trials lie there on the wrong side"
    ) in captured.err
    assert "inf" not in captured.out


def test_progress_line():
    stream = io.StringIO()
    p = Progress(False, delay=0.0, stream=stream)
    p.update("reading x")
    p.done()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("skcalib: reading x [") and lines[-1].startswith(
        "skcalib: done"
    )
    stream = io.StringIO()
    p = Progress(True, delay=0.0, stream=stream)
    p.update("reading x")
    p.done()
    assert stream.getvalue() == ""
    stream = io.StringIO()
    p = Progress(False, delay=60.0, stream=stream)  # fast work: nothing shown
    p.update("reading x")
    p.done()
    assert stream.getvalue() == ""


def test_progress_shown_on_slow_input(tmp_path, capsys, monkeypatch, data):
    s, y, llr = data
    path = _two_column(tmp_path / "s.txt", llr, y)
    monkeypatch.setattr(_cli.Progress, "__init__", _fast_progress_init)
    assert main(["evaluate", path]) == 0
    assert "skcalib: read " in capsys.readouterr().err
    assert main(["-q", "evaluate", path]) == 0
    assert capsys.readouterr().err == ""
    assert main(["evaluate", "-q", path]) == 0
    assert capsys.readouterr().err == ""


_original_init = Progress.__init__


def _fast_progress_init(self, quiet, *, delay=2.0, interval=0.5, stream=None):
    _original_init(self, quiet, delay=0.0, interval=0.0, stream=stream)


@pytest.mark.slow
def test_console_script():
    exe = shutil.which("skcalib")
    if exe is None:
        pytest.skip("skcalib console script not installed")
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "evaluate" in proc.stdout and "calibrate" in proc.stdout


# --- messages ------------------------------------------------------------------


def test_messages(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "ok.txt", "1 target\n-1 nontarget\n0.5 1\n-0.2 0\n")
    _write(tmp_path / "inf.txt", "1\n-inf\n")
    _write(tmp_path / "trials.txt", "m1 s1 1.0\nm1 s2 -1.0\n")
    train = ["calibrate", "--method", "pav-llr", "--train"]
    # an infinite score to calibrate is not a training problem
    assert main([*train, "ok.txt", "--apply", "inf.txt"]) == 2
    err = capsys.readouterr().err
    assert "inf.txt, line 2: score '-inf' must be finite to be calibrated" in err
    assert "train" not in err
    # the key option of calibrate is --train-key
    assert main([*train, "trials.txt", "--apply", "ok.txt"]) == 2
    err = capsys.readouterr().err
    assert "trials.txt, line 1: three columns" in err
    assert err.rstrip().endswith("pass --train-key KEY.")
    assert main(["evaluate", "trials.txt"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("pass --key KEY.")
    # training options with a loaded model are refused, not ignored
    assert main([*train, "ok.txt", "--save-model", "m.pkl"]) == 0
    capsys.readouterr()
    load = ["calibrate", "--load-model", "m.pkl", "--apply", "ok.txt"]
    assert main([*load, "--method", "platt"]) == 2
    assert "--method: only for training" in capsys.readouterr().err
    assert main([*load, "--alpha", "2", "--prior", "0.2"]) == 2
    assert "--alpha, --prior: only for training" in capsys.readouterr().err
    assert main([*load, "-q"]) == 0
    # the first bad line, not the lexicographically first bad label
    _write(tmp_path / "bad.txt", "1 target\n2 zz\n3 aa\n4 0\n")
    assert main(["evaluate", "bad.txt"]) == 2
    assert "bad.txt, line 2: unknown label 'zz'" in capsys.readouterr().err
    _write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 zz\nm2 s2 aa\n")
    assert main(["evaluate", "trials.txt", "--key", "k.txt"]) == 2
    assert "k.txt, line 2: unknown label 'zz'" in capsys.readouterr().err
    # affine-only options with another method
    assert main([*train, "ok.txt", "--apply", "ok.txt", "--alpha", "2"]) == 2
    assert "--alpha applies to --method affine and beta only, not pav-llr" in (
        capsys.readouterr().err
    )
    assert main([*train, "ok.txt", "--apply", "ok.txt", "--l2", "0"]) == 2
    assert "--l2 applies to --method affine and beta only" in capsys.readouterr().err


def _strict_json(text):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_json_infinities_are_strict_json(tmp_path, capsys):
    path = _write(tmp_path / "s.txt", "inf 0\n-inf 1\n1.0 1\n-1 0\n")
    assert main(["evaluate", path, "--json"]) == 0
    out = _strict_json(capsys.readouterr().out)
    assert out["cllr"] == "Infinity" and float(out["cllr"]) == np.inf
    assert out["n_confidently_wrong"] == 2
    assert main(["--help"]) == 0
    assert '"Infinity" and "-Infinity"' in " ".join(capsys.readouterr().out.split())


def test_infinite_cllr_is_explained(tmp_path, capsys):
    path = _write(tmp_path / "s.txt", "inf 0\n-inf 1\n-inf 1\n1.0 1\n-1 0\n")
    assert main(["evaluate", path]) == 0
    captured = capsys.readouterr()  # a note: on stderr, the data on stdout
    assert "confidently" not in captured.out and "Cllr" in captured.out
    err = captured.err
    assert "skcalib: note: Cllr is infinite: 3 trials are confidently wrong" in err
    assert "2 target trials at LLR -inf, 1 non-target trials at +inf" in err
    assert "extremes='raw'" in err


# --- demo sizes ----------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--n-calibration", "--n-train", "--n-test"])
def test_demo_smallest_sets(flag, tmp_path, capsys):
    argv = ["demo", "--plot", str(tmp_path / "d.png"), "--json", "-q"]
    assert main([*argv, flag, "2"]) == 0
    captured = capsys.readouterr()
    systems = _strict_json(captured.out)["systems"]
    assert set(_DEMO_CALIBRATORS) <= set(systems)
    # warnings (e.g. separable calibration data) are one line each, no source
    for line in captured.err.splitlines():
        assert line.startswith("skcalib: warning: "), line
    assert main([*argv, flag, "1"]) == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be at least 2 (one sample of each class)" in err


# --- startup -------------------------------------------------------------------


def test_cli_import_is_light():
    """--help and --version must not wait for scikit-learn, SciPy, matplotlib."""
    code = (
        "import sys\n"
        "from skcalib._cli import main\n"
        "for argv in (['--version'], ['--help'], ['evaluate', '--help']):\n"
        "    assert main(argv) == 0\n"
        "heavy = ('sklearn', 'scipy', 'matplotlib', 'joblib', 'pandas', 'dask')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def _bench_scripts():
    folder = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "benchmarks")
    return sorted(
        os.path.join(folder, f)
        for f in os.listdir(folder)
        if f.startswith("bench_") and f.endswith(".py")
    )


@pytest.mark.slow
@pytest.mark.parametrize("script", _bench_scripts(), ids=os.path.basename)
def test_benchmark_options_have_help_with_defaults(script):
    proc = subprocess.run(
        [sys.executable, script, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, COLUMNS="200"),
    )
    assert proc.returncode == 0, proc.stderr
    entries = []
    for line in proc.stdout.splitlines():
        if re.match(r"^  -", line):
            entries.append(line)
        elif entries and line.startswith("    "):
            entries[-1] += "  " + line.strip()
        elif not line.strip():
            entries.append(None)  # a section break ends the entry
    for entry in filter(None, entries):
        option, _, text = entry.strip().partition("  ")
        if option.startswith("-h"):
            continue
        assert text.strip(), f"{option}: no help text"
        takes_value = re.search(r"--?[\w-]+ [A-Z{\[]", option) is not None
        if takes_value:
            assert "default" in text.lower(), f"{option}: no default in {text!r}"


def _same_sort(trials, before):
    """Whether ``trials`` still hold the validated arrays and the PAV blocks
    of ``before`` (``(as_arrays(), pav_llr())`` taken earlier): nothing was
    validated or sorted again."""
    arrays, (_, lo, hi) = before
    _, lo_now, hi_now = trials.pav_llr()
    return trials.as_arrays() is arrays and lo_now is lo and hi_now is hi


def test_metrics_table_asks_one_scored_trials():
    """EER, min DCF, actual DCF, Cllr and min Cllr of ``evaluate`` come from
    one ScoredTrials, sorted once."""
    from skcalib._cli._commands import metrics_table, scored_trials
    from skcalib.metrics import Application

    rng = np.random.default_rng(0)
    y = (rng.random(500) < 0.3).astype(int)
    llr = rng.normal(size=500) + 2.0 * y
    trials = scored_trials(y, llr)
    before = trials.as_arrays(), trials.pav_llr()
    table = metrics_table(trials, Application(0.1, 1.0, 2.0))
    assert _same_sort(trials, before)
    app = {"p_target": 0.1, "c_miss": 1.0, "c_fa": 2.0}
    assert table == {
        "eer": eer(y, llr),
        "min_dcf": min_dcf(y, llr, **app),
        "actual_dcf": actual_dcf(y, llr, **app),
        "cllr": cllr(y, llr),
        "min_cllr": min_cllr(y, llr),
    }


def test_evaluate_with_every_plot_validates_and_sorts_once(
    data, tmp_path, monkeypatch, capsys
):
    """``evaluate --plot --det --tippett``: one ScoredTrials for the metrics
    and the three plots, its scores sorted once."""
    from skcalib._cli._commands import check_application_options, evaluate
    from skcalib._cli._output import evaluation_plots
    from skcalib._cli._parser import build_parser

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    _, y, llr = data
    path = _two_column(tmp_path / "scores.txt", llr, y)
    args = ["-q", "evaluate", str(path), "--json"]
    parsed = build_parser().parse_args(
        args + ["--plot", "b.png", "--det", "d.png", "--tippett", "t.png"]
    )
    check_application_options(parsed)  # the defaults, as the command fills them
    result = evaluate(parsed, Progress(True))
    before = result.trials.as_arrays(), result.trials.pav_llr()
    assert evaluation_plots(result, parsed, Progress(True)) == {}
    assert _same_sort(result.trials, before)
    assert result.metrics["min_dcf"] == min_dcf(y, llr, p_target=0.5)
    for name in ("b.png", "d.png", "t.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
    assert main(args) == 0  # the command prints the same metrics
    assert json.loads(capsys.readouterr().out)["min_dcf"] == result.metrics["min_dcf"]
