"""``skcalib demo``: classifier, calibrators, metrics and plot on built-in data."""

from __future__ import annotations

import json
import math

import numpy as np

from ._commands import application, confidently_wrong, metrics_table, scored_trials
from ._common import Progress, json_number, note, warnings_as_notes
from ._output import app_line, bayes_error_plot, check_outputs, fmt, report_metrics

_DEMO_CALIBRATORS = (
    "PAVLLRCalibrator",
    "PlattCalibrator",
    "ProperScoringAffineCalibrator",
    "BetaCalibrator",
    "VennAbersCalibrator",
    "AutoCalibrator",
)


def _isotonic_note(n_wrong: int, n_test: int) -> str:
    """Why the table has no PAVCalibrator row (scikit-learn's isotonic fit)."""
    return (
        "PAVCalibrator (scikit-learn's isotonic regression) is not in the table: "
        "its two end blocks give probability 0 or 1, an infinite LLR, and "
        f"{n_wrong} of the {n_test} test trials lie there on the wrong side, "
        f"so its Cllr is {'infinite' if n_wrong else 'finite here, by luck'}; "
        "PAVLLRCalibrator is the same fit with finite LLRs at the ends "
        "(extremes='succession')."
    )


def _draw(n_train: int, n_cal: int, n_test: int, random_state: int):
    """Three independent draws of the waveform data, each with both classes.

    ``make_waveform`` gives ``n // 2`` samples of class 0 and the rest of class
    1, so every set holds both classes from two samples on.
    """
    from ..datasets import make_waveform

    states = np.random.RandomState(random_state).randint(0, 2**31 - 1, size=3)
    return [
        make_waveform(n, return_llr=True, random_state=int(state))
        for n, state in zip((n_train, n_cal, n_test), states, strict=True)
    ]


def cmd_demo(args) -> int:
    from sklearn.naive_bayes import GaussianNB

    import skcalib

    check_outputs({"--plot": args.plot}, {}, figures=("--plot",))
    progress = Progress(args.quiet)
    # Rakotomalala's protocol: train / tuning (calibration) / test sets from the
    # two-class waveform data; naive Bayes gives badly calibrated scores.
    n_train, n_cal, n_test = args.n_train, args.n_calibration, args.n_test
    train, cal, test = _draw(n_train, n_cal, n_test, args.random_state)
    clf = GaussianNB().fit(train[0], train[1])
    progress.update("classifier trained")

    def raw_llr(X):
        with np.errstate(divide="ignore"):
            log_proba = clf.predict_log_proba(X)
        return log_proba[:, 1] - log_proba[:, 0]

    raw_cal, raw_te = raw_llr(cal[0]), raw_llr(test[0])
    systems = [("raw naive Bayes log-odds", raw_te)]
    with warnings_as_notes():
        for name in _DEMO_CALIBRATORS:
            cls = getattr(skcalib, name)
            cal_model = cls().fit(raw_cal, cal[1])
            systems.append((name, cal_model.decision_function(raw_te)))
            progress.update(f"{name} fitted")
        isotonic = skcalib.PAVCalibrator().fit(raw_cal, cal[1])
        with np.errstate(divide="ignore"):  # its 0/1 ends: infinite LLRs
            isotonic_llr = isotonic.decision_function(raw_te)
    systems.append(("true LLR (Bayes, reference)", test[2]))
    y_te = test[1].astype(bool)
    trials = {name: scored_trials(y_te, llr) for name, llr in systems}
    app = application(args)
    results = {name: metrics_table(trials[name], app) for name, _ in systems}
    wrong = {name: sum(confidently_wrong(y_te, llr)) for name, llr in systems}
    isotonic_wrong = sum(confidently_wrong(y_te, isotonic_llr))

    plotted = [(name, trials[name], i == 0) for i, (name, _) in enumerate(systems[:-1])]
    progress.update(f"writing {args.plot}")
    bayes_error_plot(
        plotted,
        args.plot,
        application(args),
        "Two-class waveform, naive Bayes: calibrated vs raw scores",
    )
    progress.done()
    note(_isotonic_note(isotonic_wrong, n_test), quiet=args.quiet)
    for name, m in results.items():
        if math.isinf(m["cllr"]):
            note(
                f"{name}: Cllr is infinite: {wrong[name]} test trials are "
                "confidently wrong (probability 0 or 1, an infinite LLR, for a "
                "trial of the other class).",
                quiet=args.quiet,
            )
    if args.json:
        print(
            json.dumps(
                {
                    "data": "make_waveform (Breiman), classes 0/1",
                    "n_train": n_train,
                    "n_calibration": n_cal,
                    "n_test": n_test,
                    "classifier": "GaussianNB",
                    "p_target": args.p_target,
                    "c_miss": args.c_miss,
                    "c_fa": args.c_fa,
                    "systems": {
                        name: {
                            **{k: json_number(v) for k, v in m.items()},
                            "n_confidently_wrong": wrong[name],
                        }
                        for name, m in results.items()
                    },
                    "plot": args.plot,
                },
                indent=2,
                allow_nan=False,
            )
        )
        return 0
    print(
        f"skcalib demo: two-class waveform data (Breiman), GaussianNB trained on "
        f"{n_train}, calibrated on {n_cal}, tested on {n_test} samples"
    )
    print(app_line(args, application(args)))
    name_width = max(len(n) for n in results)
    metrics = report_metrics()
    head = "  ".join(f"{m.label:>15}" for m in metrics)
    print(f"{'system':<{name_width}}  {head}")
    for name, m in results.items():
        cells = "  ".join(f"{fmt(r.format, m[r.key]):>15}" for r in metrics)
        print(f"{name:<{name_width}}  {cells}")
    print(f"Bayes error plot written to {args.plot}")
    return 0
