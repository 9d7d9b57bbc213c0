"""Tests of ``skcalib evaluate --ci/--groups/--det/--tippett``."""

import json

import numpy as np
import pytest

from skcalib._cli import main
from skcalib.datasets import make_gaussian_scores
from skcalib.metrics import bootstrap_ci, min_dcf


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    s, y, llr = make_gaussian_scores(200, random_state=0)
    two = _write(
        tmp_path / "two.txt",
        "".join(f"{float(v)!r} {int(t)}\n" for v, t in zip(llr, y, strict=True)),
    )
    ids = [(f"m{i % 9}", f"seg{i % 23}_{i}") for i in range(len(llr))]
    scores = _write(
        tmp_path / "trials.txt",
        "".join(f"{m} {g} {float(v)!r}\n" for (m, g), v in zip(ids, llr, strict=True)),
    )
    key = _write(
        tmp_path / "key.txt",
        "".join(
            f"{m} {g} {'target' if t else 'nontarget'}\n"
            for (m, g), t in zip(ids, y, strict=True)
        ),
    )
    return {"two": two, "trials": scores, "key": key, "y": y, "llr": llr, "ids": ids}


def test_groups_needs_ci(files, capsys):
    assert main(["evaluate", files["two"], "--groups", "model"]) == 2
    assert "give --ci too" in capsys.readouterr().err


def test_groups_needs_a_trial_file(files, capsys):
    assert main(["evaluate", files["two"], "--ci", "0.9", "--groups", "model"]) == 2
    assert "needs a three-column trial file" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["1.5", "0", "x"])
def test_ci_level_is_a_probability(files, bad, capsys):
    assert main(["evaluate", files["two"], "--ci", bad]) == 2
    assert "--ci" in capsys.readouterr().err


def test_same_file_for_two_plots(files, capsys):
    args = ["evaluate", files["two"], "--det", "a.png", "--tippett", "a.png"]
    assert main(args) == 2
    assert "the same file is given to --det and --tippett" in capsys.readouterr().err


def test_text_output_with_intervals(files, capsys):
    args = ["-q", "evaluate", files["two"], "--ci", "0.9", "--n-resamples", "50"]
    assert main([*args, "--p-target", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "90% bootstrap intervals (percentile, 50 resamples of trials, seed 0)" in out
    line = next(v for v in out.splitlines() if v.strip().startswith("min DCF"))
    res = bootstrap_ci(
        min_dcf,
        files["y"],
        files["llr"],
        p_target=0.01,
        n_resamples=50,
        confidence_level=0.9,
        random_state=0,
    )
    low, high = res.confidence_interval
    assert f"[{low:.4f}, {high:.4f}]" in line


def test_json_groups_and_plots(files, capsys, tmp_path):
    args = [
        "-q",
        "evaluate",
        files["trials"],
        "--key",
        files["key"],
        "--ci",
        "0.95",
        "--groups",
        "model",
        "--p-target",
        "0.01",
        "--n-resamples",
        "40",
        "--det",
        "det.png",
        "--tippett",
        "tippett.png",
        "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    ci = out["ci"]
    assert ci["resampled"] == "model" and ci["n_resamples"] == 40
    for key in ("eer", "min_dcf", "actual_dcf", "cllr", "min_cllr"):
        low, high = ci[key]
        assert low <= high
    assert out["det"] == "det.png" and out["tippett"] == "tippett.png"
    for name in ("det.png", "tippett.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG")
    # the intervals resample models: bootstrap_ci with the model groups
    models = np.array([m for m, _ in files["ids"]])
    res = bootstrap_ci(
        min_dcf,
        files["y"],
        files["llr"],
        p_target=0.01,
        groups=models,
        n_resamples=40,
        random_state=0,
    )
    np.testing.assert_allclose(ci["min_dcf"], res.confidence_interval)


def test_plots_written_in_text_mode(files, capsys, tmp_path):
    assert main(["-q", "evaluate", files["two"], "--det", "d.png"]) == 0
    assert "DET plot written to d.png" in capsys.readouterr().out
    assert (tmp_path / "d.png").stat().st_size > 0
