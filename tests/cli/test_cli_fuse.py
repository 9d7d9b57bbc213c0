"""Tests of ``skcalib fuse``: trial matching, messages, results."""

import os
import subprocess
import sys

import numpy as np
import pytest

from skcalib import ProperScoringFusion
from skcalib._cli import main


def _write(path, lines):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return str(path)


def _systems(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    X = np.column_stack([rng.normal(y * (1.0 + j), 1.0 + 0.5 * j) for j in range(k)])
    return X, y


def _labelled(tmp_path, name, scores, y):
    return _write(
        tmp_path / name,
        [
            f"{float(s)!r} {'target' if t else 'nontarget'}"
            for s, t in zip(scores, y, strict=False)
        ],
    )


def _trials(tmp_path, name, scores, ids, order):
    return _write(
        tmp_path / name,
        [f"{ids[i][0]} {ids[i][1]} {float(scores[i])!r}" for i in order],
    )


def _read_column(path, col):
    with open(path) as f:
        return np.array([float(line.split()[col]) for line in f if line.strip()])


def _fail(args, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    return err[0]


def test_labelled_files_by_row_order(tmp_path, capsys):
    X, y = _systems()
    Xe, ye = _systems(200, seed=1)
    train = [_labelled(tmp_path, f"dev{j}.txt", X[:, j], y) for j in range(3)]
    apply = [_labelled(tmp_path, f"eval{j}.txt", Xe[:, j], ye) for j in range(3)]
    out = str(tmp_path / "fused.txt")
    args = [
        "fuse",
        "--train",
        *train,
        "--apply",
        *apply,
        "-o",
        out,
        "--p-target",
        "0.2",
    ]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "ProperScoringFusion: fused llr = " in err and out in err
    expected = ProperScoringFusion(p_target=0.2).fit(X, y).decision_function(Xe)
    np.testing.assert_allclose(_read_column(out, 0), expected, rtol=1e-12)
    with open(out) as f:  # labels kept, in the first apply file's format
        assert [line.split()[1] for line in f][:3] == [
            "target" if t else "nontarget" for t in ye[:3]
        ]


def test_trials_matched_by_name_in_any_order(tmp_path, capsys):
    X, y = _systems(120, k=2)
    ids = [(f"m{i % 5}", f"seg{i}") for i in range(120)]
    rng = np.random.default_rng(0)
    orders = [rng.permutation(120) for _ in range(4)]
    key = _write(
        tmp_path / "key.txt",
        [
            f"{m} {g} {'target' if t else 'nontarget'}"
            for (m, g), t in zip(ids, y, strict=False)
        ],
    )
    train = [
        _trials(tmp_path, f"dev{j}.txt", X[:, j], ids, orders[j]) for j in range(2)
    ]
    apply = [
        _trials(tmp_path, f"eval{j}.txt", X[:, j], ids, orders[2 + j]) for j in range(2)
    ]
    out = str(tmp_path / "fused.txt")
    args = ["fuse", "--train", *train, "--train-key", key, "--apply", *apply, "-o", out]
    assert main(args) == 0
    fusion = ProperScoringFusion().fit(X, y)
    expected = fusion.decision_function(X)[orders[2]]  # first apply file's order
    np.testing.assert_allclose(_read_column(out, 2), expected, rtol=1e-12)
    with open(out) as f:
        first = f.readline().split()
    assert first[:2] == list(ids[orders[2][0]])


def test_proba_output_at_prior(tmp_path, capsys):
    X, y = _systems(100, k=2)
    files = [_labelled(tmp_path, f"s{j}.txt", X[:, j], y) for j in range(2)]
    out = str(tmp_path / "p.txt")
    args = ["fuse", "-q", "--train", *files, "--apply", *files, "-o", out]
    assert main([*args, "--output", "proba", "--prior", "0.1"]) == 0
    assert capsys.readouterr().err == ""
    expected = ProperScoringFusion(prior=0.1).fit(X, y).predict_proba(X)[:, 1]
    np.testing.assert_allclose(_read_column(out, 0), expected, rtol=1e-12)


# ------------------------------------------------------------------ mismatches
def _trial_files(tmp_path, rows_a, rows_b):
    a = _write(tmp_path / "a.txt", rows_a)
    b = _write(tmp_path / "b.txt", rows_b)
    key = _write(
        tmp_path / "key.txt", ["m1 s1 target", "m1 s2 nontarget", "m2 s1 nontarget"]
    )
    return a, b, key


@pytest.mark.parametrize(
    "rows_b, message",
    [
        (
            ["m1 s1 0.5", "m2 s1 0.1"],
            "b.txt: no score for trial (m1, s2) of {a}, line 2",
        ),
        (
            ["m1 s1 0.5", "m1 s2 0.3", "m2 s1 0.1", "m3 s9 1.0"],
            "b.txt, line 4: trial (m3, s9) is not in {a}",
        ),
        (
            ["m1 s1 0.5", "m1 s2 0.3", "m1 s1 0.7", "m2 s1 0.1"],
            "b.txt, line 3: duplicate trial (m1, s1) (first on line 1)",
        ),
        (["0.5 target", "0.3 nontarget", "0.1 nontarget"], "'score label' lines, but"),
    ],
)
def test_mismatched_trials_name_file_and_trial(tmp_path, capsys, rows_b, message):
    a, b, key = _trial_files(tmp_path, ["m1 s1 1.0", "m1 s2 -1.0", "m2 s1 0.0"], rows_b)
    err = _fail(["fuse", "--train", a, b, "--train-key", key, "--apply", a, b], capsys)
    assert message.format(a=a) in err


def test_mismatched_rows_name_file_and_line(tmp_path, capsys):
    a = _write(tmp_path / "a.txt", ["# dev", "1.0 1", "-1.0 0", "0.5 1"])
    b = _write(tmp_path / "b.txt", ["1.0 1", "-1.0 1", "0.5 1"])
    c = _write(tmp_path / "c.txt", ["1.0 1", "-1.0 0"])
    err = _fail(["fuse", "--train", a, b, "--apply", a, b], capsys)
    assert err.endswith(
        f"b.txt, line 2: trial 2 is a target trial, but a non-target one in {a}, "
        "line 3: files without trial names are matched by row order, so each must "
        "list the same trials in the same order."
    )
    err = _fail(["fuse", "--train", a, c, "--apply", a, c], capsys)
    assert f"c.txt: 2 trials, but {a} has 3" in err


def test_usage_errors(tmp_path, capsys):
    a = _write(tmp_path / "a.txt", ["1.0 1", "-1.0 0", "0.5 1"])
    b = _write(tmp_path / "b.txt", ["1.0 1", "-1.0 0", "0.5 1"])
    err = _fail(["fuse", "--train", a, b, "--apply", a], capsys)
    assert "--apply: 1 files, but --train has 2" in err
    err = _fail(["fuse", "--train", a, b, "--apply", a, b, "-o", b], capsys)
    assert "is also an input" in err
    assert main(["fuse", "--train", a, "--apply", a, "--l2", "-1"]) == 2
    assert "--l2" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.txt", ["1.0 1", "x 0", "0.5 1"])
    err = _fail(["fuse", "--train", a, bad, "--apply", a, b], capsys)
    assert "bad.txt, line 2: score 'x' is not a number" in err


def test_fuse_subprocess_help_and_run(tmp_path):
    X, y = _systems(80, k=2)
    files = [_labelled(tmp_path, f"s{j}.txt", X[:, j], y) for j in range(2)]
    env = dict(os.environ, MPLBACKEND="Agg")
    run = subprocess.run(
        [sys.executable, "-m", "skcalib", "fuse", "--train", *files, "--apply", *files],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == 80
    helped = subprocess.run(
        [sys.executable, "-m", "skcalib", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "fuse" in helped.stdout


def test_save_and_load_model(tmp_path, capsys, monkeypatch):
    # fuse saves and loads its model as calibrate does (atomic joblib files,
    # a confirmation on stderr, training options refused with a loaded model)
    import io

    import joblib

    X, y = _systems()
    Xe, ye = _systems(50, seed=1)
    train = [_labelled(tmp_path, f"dev{j}.txt", X[:, j], y) for j in range(3)]
    apply = [_labelled(tmp_path, f"eval{j}.txt", Xe[:, j], ye) for j in range(3)]
    model = str(tmp_path / "fusion.joblib")
    argv = ["fuse", "--train", *train, "--p-target", "0.2", "--save-model", model]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"ProperScoringFusion: model saved to {model}" in err
    saved = joblib.load(model)
    assert isinstance(saved, ProperScoringFusion) and saved.p_target == 0.2
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]
    expected = ProperScoringFusion(p_target=0.2).fit(X, y).decision_function(Xe)
    assert main(["fuse", "--load-model", model, "--apply", *apply]) == 0
    out = capsys.readouterr()
    np.testing.assert_allclose(
        [float(v.split()[0]) for v in out.out.splitlines()], expected, rtol=1e-12
    )
    assert f" * {apply[0]} + " in out.err or f" * {apply[0]} - " in out.err
    load = ["fuse", "--load-model", model, "--apply", *apply]
    for extra, message in (
        (["--l2", "1", "--alpha", "2"], "--alpha, --l2: only for training"),
        (["--train-key", "k.txt"], "--train-key: only for training"),
        (["--save-model", "m2"], "--save-model: the model from --load-model"),
    ):
        assert message in _fail([*load, *extra], capsys)
    assert "--apply: 2 files, but the fusion from --load-model" in _fail(
        ["fuse", "--load-model", model, "--apply", *apply[:2]], capsys
    )
    assert "give either --train or --load-model" in _fail(
        [*load, "--train", *train], capsys
    )
    assert "fuse needs --train" in _fail(["fuse", "--apply", *apply], capsys)
    assert "nothing to do" in _fail(["fuse", "--train", *train], capsys)
    # a calibrator is not a fusion, and the other way round
    cal = str(tmp_path / "cal.joblib")
    assert main(["-q", "calibrate", "--method", "platt", "--train", train[0]]) == 2
    capsys.readouterr()
    argv = ["-q", "calibrate", "--method", "platt", "--train", train[0]]
    assert main([*argv, "--save-model", cal]) == 0
    assert "load it with 'skcalib calibrate --load-model'" in _fail(
        ["fuse", "--load-model", cal, "--apply", *apply], capsys
    )
    assert "load it with 'skcalib fuse --load-model'" in _fail(
        ["calibrate", "--load-model", model, "--apply", apply[0]], capsys
    )
    # the model file may not overwrite an input
    assert "is also an input" in _fail(
        ["fuse", "--train", *train, "--save-model", train[1]], capsys
    )
    # a system read from standard input is named so, not "-"
    with open(train[1], "rb") as f:
        data = f.read()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    argv = ["fuse", "--train", train[0], "-", train[2], "--apply", *apply]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert " * standard input + " in err or " * standard input - " in err
    assert " * - " not in err
