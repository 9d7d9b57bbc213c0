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


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--ci", "95"], "must be in (0, 1); got 95 (for 95%, write 0.95)"),
        (["--ci", "0.95", "--n-resamples", "1"], "at least 40 are needed"),
        (["--ci", "0.995", "--n-resamples", "399"], "too few for 99.5% intervals"),
        (["--ci-method", "basic"], "--ci-method chooses how --ci resamples"),
        (["--ci", "0.9", "--ci-method", "BCa"], "invalid choice: 'BCa'"),
    ],
)
def test_bad_interval_options_are_explained(files, argv, message, capsys):
    # one resample gave an "interval" of one replicate, which may exclude the
    # estimate: refuse fewer than one resample beyond each end
    assert main(["evaluate", files["two"], *argv]) == 2
    assert message in capsys.readouterr().err


def test_fewest_resamples_leave_one_beyond_each_end(files, capsys):
    from skcalib._cli._commands import min_resamples

    for level, least in ((0.9, 20), (0.95, 40), (0.99, 200), (0.5, 4)):
        assert min_resamples(level) == least
        assert least * (1 - level) / 2 == pytest.approx(1.0)
    argv = ["-q", "evaluate", files["two"], "--ci", "0.95", "--n-resamples", "40"]
    assert main(argv) == 0
    assert (
        "95% bootstrap intervals (percentile, 40 resamples" in capsys.readouterr().out
    )


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_ci_method_is_bootstrap_ci_method(files, method, capsys):
    argv = ["-q", "evaluate", files["two"], "--ci", "0.9", "--n-resamples", "60"]
    assert main([*argv, "--ci-method", method, "--p-target", "0.2", "--json"]) == 0
    ci = json.loads(capsys.readouterr().out)["ci"]
    assert ci["method"] == method
    res = bootstrap_ci(
        min_dcf,
        files["y"],
        files["llr"],
        p_target=0.2,
        n_resamples=60,
        confidence_level=0.9,
        method={"bca": "BCa"}.get(method, method),
        random_state=0,
    )
    np.testing.assert_allclose(ci["min_dcf"], res.confidence_interval)
    assert main([*argv, "--ci-method", method]) == 0
    assert f"90% bootstrap intervals ({method}, 60 resamples" in capsys.readouterr().out


def test_long_bootstrap_shows_progress(files, capsys, monkeypatch):
    # 1e6 trials took minutes without a word: progress lines name the metric,
    # the resamples (and the BCa jackknife) done and the time left
    from skcalib._cli import Progress

    original = Progress.__init__

    def eager(self, quiet, *, delay=2.0, interval=0.5, stream=None):
        original(self, quiet, delay=0.0, interval=0.0, stream=stream)

    monkeypatch.setattr(Progress, "__init__", eager)
    argv = ["evaluate", files["two"], "--ci", "0.9", "--n-resamples", "30"]
    assert main([*argv, "--ci-method", "bca"]) == 0
    err = capsys.readouterr().err
    # every metric on each resample: one count of resamples for the five
    assert "bootstrap (5 metrics): 30 of 30 resamples of trials, about" in err
    assert "bootstrap (5 metrics): 1 of 30 resamples" in err
    assert "bootstrap 1/5 (EER): BCa jackknife, 200 of 200 trials left out" in err
    assert "bootstrap 5/5 (min Cllr): BCa jackknife, 200 of 200 trials" in err
    assert "left for this metric" in err
    assert main(["-q", *argv]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_ci_of_an_infinite_cllr(files, tmp_path, method, capsys):
    # one target trial at LLR -inf: Cllr is inf, and so is most of its
    # bootstrap distribution; basic printed [nan, inf], BCa [nan, nan] and
    # scipy's DegenerateDataWarning on stderr
    llr = files["llr"].copy()
    llr[np.flatnonzero(files["y"])[0]] = -np.inf
    path = _write(
        tmp_path / "wrong.txt",
        "".join(
            f"{float(v)!r} {int(t)}\n" for v, t in zip(llr, files["y"], strict=True)
        ),
    )
    argv = ["-q", "evaluate", path, "--ci", "0.9", "--n-resamples", "60"]
    assert main([*argv, "--ci-method", method]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "nan" not in out.lower()
    cllr_line = next(line for line in out.splitlines() if "Cllr (bits)" in line)
    value, low, high = cllr_line.split()[2:]
    assert value == "inf" and high == "inf]"
    assert low == "[inf," if method == "basic" else 0 < float(low[1:-1]) < 2
    assert main([*argv, "--ci-method", method, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    low, high = json.loads(out)["ci"]["cllr"]
    assert high == "Infinity"
    assert (low == "Infinity") if method == "basic" else isinstance(low, float)


def _extreme_file(tmp_path, files, big):
    """The LLR file with a few trials at +/-``big`` of both classes."""
    llr, y = files["llr"].copy(), files["y"]
    tar, non = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    llr[tar[:3]] = [big, -big, -big]
    llr[non[:3]] = [big, big, -big]
    return _write(
        tmp_path / f"extreme_{big}.txt",
        "".join(f"{float(v)!r} {int(t)}\n" for v, t in zip(llr, y, strict=True)),
    )


@pytest.mark.parametrize("big", [np.inf, 1.7e308])
def test_det_plot_of_extreme_llrs(files, tmp_path, big, capsys):
    # +/-inf LLRs: exit 1 with a traceback from scikit-learn's det_curve;
    # +/-1.7e308 leaked warnings
    path = _extreme_file(tmp_path, files, big)
    png = tmp_path / "det.png"
    argv = ["-q", "evaluate", path, "--p-target", "0.01", "--det", str(png)]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert png.stat().st_size > 0


@pytest.mark.parametrize("big", [np.inf, 1.7e308])
def test_tippett_plot_of_extreme_llrs(files, tmp_path, big, capsys):
    # +/-1.7e308 LLRs: exit 1 with matplotlib's LinAlgError (singular matrix)
    path = _extreme_file(tmp_path, files, big)
    png = tmp_path / "tippett.png"
    assert main(["-q", "evaluate", path, "--tippett", str(png)]) == 0
    assert capsys.readouterr().err == ""
    assert png.stat().st_size > 0


def test_ci_resamples_the_one_validated_trials(files, command_bootstrap, capsys):
    # `evaluate --ci` validated the trials 109 times and ran the kernel 7
    # times at 50 resamples: now one ScoredTrials is built, and the bootstrap
    # draws every resample of every metric from that object
    from skcalib._cli._commands import (
        check_application_options,
        check_ci_options,
        evaluate,
    )
    from skcalib._cli._common import Progress
    from skcalib._cli._parser import build_parser
    from skcalib.metrics import ScoredTrials

    argv = ["evaluate", files["two"], "--ci", "0.95", "--n-resamples", "50", "--json"]
    args = build_parser().parse_args(argv)
    check_application_options(args)  # as the command does: the defaults
    check_ci_options(args)
    result = evaluate(args, Progress(True))
    # the command's intervals are the bootstrap's of its one trials object
    trials = result.trials
    intervals, seen = command_bootstrap(result, "standard", 50)
    assert result.intervals == intervals
    # the metrics on the data and on 50 resamples, five metrics each
    assert len(seen) == 5 * 51
    assert sum(t is trials for t in seen) == 5
    replicas = [t for t in seen if t is not trials]
    assert all(isinstance(t, ScoredTrials) for t in replicas)
    # a resample is the trials reweighted, not a validated copy of rows
    with pytest.raises(ValueError, match="weights over the sorted trials"):
        replicas[0].as_arrays()
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["min_dcf"] == min_dcf(files["y"], files["llr"], p_target=0.5)


def test_ece_plot_and_reliability_diagram(files, tmp_path, capsys):
    args = ["evaluate", files["two"], "--ece-plot", "ece.png"]
    args += ["--reliability", "rel.svg", "--tippett", "t.png"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "ECE plot written to ece.png" in text
    assert "reliability diagram written to rel.svg" in text
    assert (tmp_path / "ece.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "rel.svg").read_bytes()[:400]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ece_plot"] == "ece.png" and out["reliability"] == "rel.svg"


def test_ece_plot_output_checks(files, tmp_path, capsys):
    args = ["evaluate", files["two"], "--ece-plot", "a.png", "--reliability", "a.png"]
    assert main(args) == 2
    assert "the same file is given to --ece-plot and --reliability" in (
        capsys.readouterr().err
    )
    assert main(["evaluate", files["two"], "--ece-plot", files["two"]]) == 2
    assert not (tmp_path / "a.png").exists()


def test_ece_plot_of_infinite_llrs(files, tmp_path, capsys):
    llr = np.array(files["llr"], dtype=float)
    y = files["y"]
    llr[np.flatnonzero(y == 1)[0]] = -np.inf  # a confidently wrong target
    path = tmp_path / "inf.txt"
    path.write_text(
        "".join(f"{float(v)!r} {int(t)}\n" for v, t in zip(llr, y, strict=True))
    )
    assert main(["-q", "evaluate", str(path), "--ece-plot", "inf.png"]) == 0
    assert (tmp_path / "inf.png").read_bytes().startswith(b"\x89PNG")
