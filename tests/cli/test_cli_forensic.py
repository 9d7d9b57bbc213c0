"""Tests of ``skcalib evaluate --report forensic`` on the cartridge-case LLRs."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from skcalib._cli import main
from skcalib.datasets import load_cartridge_case
from skcalib.metrics import (
    ScoredTrials,
    bootstrap_ci,
    cllr,
    cllr_cal,
    devpav,
    eer,
    elub_bounds,
    expected_likelihood_ratios,
    invariance_bounds,
    min_cllr,
    misleading_evidence_rates,
)

#: The forensic report's metrics by JSON key, from the metric functions.
_KEYS = (
    "eer",
    "cllr",
    "min_cllr",
    "cllr_cal",
    "devpav",
    "elub_llr",
    "elub_lr",
    "invariance_llr",
    "invariance_lr",
    "misleading_h1",
    "misleading_h2",
    "expected_inverse_lr_h1",
    "expected_lr_h2",
)


def _expected(y, llr):
    elub, inv = elub_bounds(y, llr), invariance_bounds(y, llr)
    h1, h2 = misleading_evidence_rates(y, llr)
    inv_h1, lr_h2 = expected_likelihood_ratios(y, llr)
    return {
        "eer": eer(y, llr),
        "cllr": cllr(y, llr),
        "min_cllr": min_cllr(y, llr),
        "cllr_cal": cllr_cal(y, llr),
        "devpav": devpav(y, llr),
        "elub_llr": list(elub),
        "elub_lr": [math.exp(v) for v in elub],
        "invariance_llr": list(inv),
        "invariance_lr": [math.exp(v) for v in inv],
        "misleading_h1": h1,
        "misleading_h2": h2,
        "expected_inverse_lr_h1": inv_h1,
        "expected_lr_h2": lr_h2,
    }


@pytest.fixture(scope="module")
def cartridge():
    # natural-log LLRs (the loader's ``llr``; the file's base-10 values are
    # ``llr10``), written as the command reads them
    data = load_cartridge_case()
    assert np.allclose(data.llr, data.llr10 * np.log(10), rtol=1e-15, atol=0)
    return data.target.astype(bool), data.llr


@pytest.fixture
def files(cartridge, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    y, llr = cartridge
    path = tmp_path / "cartridge.txt"
    path.write_text(
        "".join(f"{float(v)!r} {int(t)}\n" for v, t in zip(llr, y, strict=True))
    )
    return {"path": str(path), "y": y, "llr": llr}


def test_json_equals_the_metric_functions(files, capsys):
    assert (
        main(["-q", "evaluate", files["path"], "--report", "forensic", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    expected = _expected(files["y"], files["llr"])
    assert [k for k in out if k in expected] == list(_KEYS)
    for key in _KEYS:
        np.testing.assert_allclose(out[key], expected[key], rtol=1e-12, err_msg=key)
    assert out["report"] == "forensic"
    assert (out["n_target"], out["n_nontarget"]) == (188, 477)
    # no application: nothing in the forensic report depends on one
    assert "p_target" not in out and "min_dcf" not in out and "ci" not in out
    # the published values: Cllr 0.648786 (the issue), all LRs finite
    assert out["cllr"] == pytest.approx(0.648786, abs=1e-6)
    assert out["elub_lr"][0] < 1 < out["elub_lr"][1]


def test_text_equals_the_metric_functions(files, capsys):
    assert main(["-q", "evaluate", files["path"], "--report", "forensic"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(
        "665 trials (188 target, 477 non-target); scores read as natural-log LLRs"
    )
    assert lines[1].startswith("forensic validation: H1 = target")
    assert not any(line.startswith("application:") for line in lines)
    e = _expected(files["y"], files["llr"])
    rows = {
        "EER": f"{e['eer']:.2%}",
        "Cllr (bits)": f"{e['cllr']:.4f}",
        "min Cllr (bits)": f"{e['min_cllr']:.4f}",
        "Cllr_cal (bits)": f"{e['cllr_cal']:.4f}",
        "devPAV (LLR)": f"{e['devpav']:.4f}",
        "ELUB bounds (LLR)": "[{:.4f}, {:.4f}]".format(*e["elub_llr"]),
        "ELUB bounds (LR)": "[{:.4g}, {:.4g}]".format(*e["elub_lr"]),
        "invariance bounds (LLR)": "[{:.4f}, {:.4f}]".format(*e["invariance_llr"]),
        "invariance bounds (LR)": "[{:.4g}, {:.4g}]".format(*e["invariance_lr"]),
        "misleading evidence, H1 (LR < 1)": f"{e['misleading_h1']:.2%}",
        "misleading evidence, H2 (LR > 1)": f"{e['misleading_h2']:.2%}",
        "E[1/LR | H1]": f"{e['expected_inverse_lr_h1']:.4g}",
        "E[LR | H2]": f"{e['expected_lr_h2']:.4g}",
    }
    table = lines[2:]
    assert len(table) == len(rows)
    for line, (label, value) in zip(table, rows.items(), strict=True):
        assert line.startswith(f"  {label} ") and line.endswith(f" {value}"), line


def test_standard_report_is_the_default(files, capsys):
    assert main(["-q", "evaluate", files["path"]]) == 0
    default = capsys.readouterr().out
    assert main(["-q", "evaluate", files["path"], "--report", "standard"]) == 0
    assert capsys.readouterr().out == default
    assert "min DCF" in default and "Cllr_cal" not in default
    assert main(["-q", "evaluate", files["path"], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"] == "standard" and out["p_target"] == 0.5
    assert "devpav" not in out and "elub_llr" not in out


def test_figures_with_the_forensic_report(files, capsys, tmp_path):
    argv = ["-q", "evaluate", files["path"], "--report", "forensic"]
    argv += ["--ece-plot", "ece.png", "--reliability", "rel.png", "--tippett", "t.png"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ECE plot written to ece.png" in out
    assert "reliability diagram written to rel.png" in out
    assert "Tippett plot written to t.png" in out
    for name in ("ece.png", "rel.png", "t.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["ece_plot"], out["reliability"]) == ("ece.png", "rel.png")
    # a Bayes error plot is drawn at an application: then it is printed
    argv = ["-q", "evaluate", files["path"], "--report", "forensic"]
    assert main([*argv, "--plot", "b.png", "--p-target", "0.1"]) == 0
    text = capsys.readouterr().out
    assert "application: p_target=0.1 c_miss=1 c_fa=1" in text
    assert "Bayes error plot written to b.png" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--p-target", "0.1"], "--p-target sets the application of the DCF"),
        (["--c-miss", "10"], "--c-miss sets the application of the DCF"),
        (["--c-fa", "10", "--ece-plot", "e.png"], "--c-fa sets the application"),
        (["--groups", "model"], "--groups chooses how --ci resamples; give --ci"),
        (["--ci", "0.95", "--n-resamples", "10"], "--n-resamples 10 is too few"),
        (["--ece-plot", "no/such/e.png"], "no/such/e.png: cannot write (--ece-plot)"),
        (["--reliability", "r.png", "--ece-plot", "r.png"], "the same file is given"),
        (["--ece-plot", "e.xyz"], "e.xyz"),
    ],
)
def test_bad_combinations_are_one_line_errors(
    files, extra, message, capsys, monkeypatch, tmp_path
):
    from skcalib._cli import _commands

    def work(*args, **kwargs):
        raise AssertionError("the command started its work")

    monkeypatch.setattr(_commands, "read_scores", work)
    argv = ["evaluate", files["path"], "--report", "forensic", *extra]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("skcalib: error: ") and captured.err.count("\n") == 1
    assert message in captured.err
    assert [p for p in os.listdir(tmp_path) if p.endswith(".part")] == []


def test_unknown_report_is_a_usage_error(files, capsys):
    assert main(["evaluate", files["path"], "--report", "lab"]) == 2
    err = capsys.readouterr().err
    assert "argument --report: invalid choice: 'lab'" in err


def test_ci_bootstraps_what_a_resample_gives(files, capsys):
    argv = ["-q", "evaluate", files["path"], "--report", "forensic"]
    argv += ["--ci", "0.9", "--n-resamples", "60", "--seed", "3"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ci = out["ci"]
    interval_keys = ["eer", "cllr", "min_cllr", "cllr_cal"]
    assert [k for k in ci if k in _KEYS] == interval_keys
    trials = ScoredTrials(files["y"], files["llr"])
    results = bootstrap_ci(
        [lambda t, k=k: getattr(t, k)() for k in interval_keys],
        trials,
        n_resamples=60,
        confidence_level=0.9,
        random_state=3,
    )
    for key, res in zip(interval_keys, results, strict=True):
        np.testing.assert_allclose(ci[key], res.confidence_interval, rtol=1e-12)
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == (
        "90% bootstrap intervals (percentile, 60 resamples of trials, seed 3) of "
        "EER, Cllr, min Cllr and Cllr_cal"
    )
    low, high = ci["cllr_cal"]
    cal = next(line for line in lines if line.startswith("  Cllr_cal"))
    assert cal.endswith(f"  [{low:.4f}, {high:.4f}]")
    devpav_line = next(line for line in lines if line.startswith("  devPAV"))
    assert "[" not in devpav_line


def test_forensic_report_validates_the_trials_once(files, command_bootstrap, capsys):
    # as for the standard report: one ScoredTrials, validated and sorted
    # once, which every metric, plot and bootstrap resample reads
    from skcalib._cli._commands import (
        check_application_options,
        check_ci_options,
        evaluate,
    )
    from skcalib._cli._common import Progress
    from skcalib._cli._output import evaluation_plots
    from skcalib._cli._parser import build_parser

    argv = ["-q", "evaluate", files["path"], "--report", "forensic", "--json"]
    argv += ["--ci", "0.95", "--n-resamples", "50", "--ece-plot", "ece.png"]
    args = build_parser().parse_args(argv)
    check_application_options(args)  # as the command does: the defaults
    check_ci_options(args)
    result = evaluate(args, Progress(True))
    trials = result.trials
    arrays, (_, lo, hi) = trials.as_arrays(), trials.pav_llr()
    assert evaluation_plots(result, args, Progress(True)) == {}
    # nothing validated or sorted again by the metrics and the plot
    _, lo_now, hi_now = trials.pav_llr()
    assert trials.as_arrays() is arrays and lo_now is lo and hi_now is hi
    # the intervals are the bootstrap's of that one object: EER, Cllr,
    # min Cllr and Cllr_cal on the data and on 50 resamples
    intervals, seen = command_bootstrap(result, "forensic", 50)
    assert result.intervals == intervals
    assert len(seen) == 4 * 51 and sum(t is trials for t in seen) == 4
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["devpav"] == pytest.approx(devpav(files["y"], files["llr"]), rel=1e-12)


# --- standard output and files, as for the standard report --------------------


def _popen(args, **kwargs):
    import skcalib

    # the skcalib under test, whatever the working folder
    root = os.path.dirname(os.path.dirname(os.path.abspath(skcalib.__file__)))
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "skcalib", *map(str, args)],
        env=dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=path),
        **kwargs,
    )


@pytest.mark.slow
def test_closed_pipe_and_full_device(files):
    argv = ["-q", "evaluate", files["path"], "--report", "forensic", "--json"]
    proc = _popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert err == "" and proc.returncode == 141
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = _popen(argv[:-1], stdout=full, stderr=subprocess.PIPE, text=True)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert err == (
        "skcalib: error: cannot write to standard output: No space left on device.\n"
    )


def test_failed_figure_keeps_the_report(files, capsys, full_disk_for, tmp_path):
    full_disk_for("ece.png")
    argv = ["-q", "evaluate", files["path"], "--report", "forensic"]
    argv += ["--ece-plot", "ece.png", "--reliability", "rel.png", "--json"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "skcalib: error: ece.png: cannot write: No space left on device.\n"
    )
    out = json.loads(captured.out)
    assert out["reliability"] == "rel.png" and "ece_plot" not in out
    assert out["cllr_cal"] == pytest.approx(cllr_cal(files["y"], files["llr"]))
    assert not (tmp_path / "ece.png").exists()
    assert [p for p in os.listdir(tmp_path) if p.endswith(".part")] == []
