"""The arena panel's pieces (benchmarks/bench_arena.py, calarena_adapter.py):
its statistics on a worked example, the cache against a live classifier, the
halves, and the CalArena adapter."""

import io
import os
import sys

import numpy as np
import pytest
from _sklearn_checks import needs_sklearn_temperature

BENCH = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "benchmarks"
)
sys.path.insert(0, BENCH)

ba = pytest.importorskip("bench_arena")
bq = pytest.importorskip("bench_quality")
ca = pytest.importorskip("calarena_adapter")
tasks = pytest.importorskip("_arena_tasks")


def _cell(task, **ll):
    return {
        "task": task,
        "classifier": "c",
        "n_classes": 2,
        "n_cal": 100,
        "methods": {
            m: (
                {"status": "ok", "log_loss": v, "times": [0.001]}
                if v is not None
                else {"status": "error", "times": [0.002]}
            )
            for m, v in ll.items()
        },
    }


def test_statistics_worked_example():
    names = ["temperature", "sigmoid", "isotonic", "a"]
    cells = [
        _cell("t1", temperature=0.5, sigmoid=0.4, isotonic=0.6, a=0.45),
        _cell("t2", temperature=0.2, sigmoid=0.25, isotonic=0.21, a=0.4),
        _cell("t3", temperature=0.3, sigmoid=0.3, isotonic=0.3, a=None),
    ]
    s = ba.statistics(cells, names)["a"]
    # ok in t1, t2: ratios to TS 0.9 and 2.0; to the sk3 oracle 1.125 and 2.0
    assert s["gm_ts"] == pytest.approx(np.sqrt(0.9 * 2.0))
    assert s["gm_sk3"] == pytest.approx(np.sqrt(1.125 * 2.0))
    assert s["win_ts"] == pytest.approx(0.5)
    assert s["over_sk3"] == pytest.approx(1.0)
    assert s["over_ts15"] == pytest.approx(0.5)
    assert s["failed"] == 1 and s["n_cells"] == 3
    # best of the cell: t1 sigmoid 0.4 (0.45 / 0.4 > 1.02), t2 TS 0.2
    assert s["within_best"] == pytest.approx(0.0)
    # ranks: t1 2nd of 4, t2 4th, t3 failed: last (4th)
    assert s["mean_rank"] == pytest.approx((2 + 4 + 4) / 3)
    assert s["median_ms"] == pytest.approx(1.0)
    t = ba.statistics(cells, names)["temperature"]
    assert t["gm_ts"] == pytest.approx(1.0)
    assert t["win_ts"] == pytest.approx(0.5)
    # t3: all three tie at 0.3, rank 2 (average of 1..3)
    assert t["mean_rank"] == pytest.approx((3 + 1 + 2) / 3)


@needs_sklearn_temperature
def test_cache_matches_live_classifier(tmp_path):
    """A method over the cache gives bench_quality's number on the live,
    frozen classifier: same data, split, classifier and calibration."""
    methods = ["temperature", "sigmoid", "platt", "default"]
    ba.build_cell(str(tmp_path), "sk_breast_cancer", "logreg", 0)
    path = ba.cell_path(str(tmp_path), "sk_breast_cancer", "logreg", 0)
    cached = ba.run_file(path, methods, [])
    live = bq.run_task("breast_cancer", "logreg", 0, methods, [])
    for m in methods:
        got = cached["methods"][m]
        assert got["status"] == "ok", got
        want = live["methods"][m]["scores"][0]
        assert got["log_loss"] == pytest.approx(want, rel=1e-9)
    # a second build leaves the cached file alone
    assert ba.build_cell(str(tmp_path), "sk_breast_cancer", "logreg", 0)[1] == 0.0


def test_halves_fixed_and_both_used():
    assert tasks.half("sk_digits") == tasks.half("sk_digits")
    for binary in (True, False):
        halves = {tasks.half(t.name) for t in tasks.TASKS if t.binary == binary}
        assert halves == {"tune", "heldout"}
    assert sum(t.binary for t in tasks.TASKS) >= 40
    assert sum(not t.binary for t in tasks.TASKS) >= 20


@needs_sklearn_temperature
def test_calarena_adapter_calibrates_probabilities():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    p1 = 1 / (1 + np.exp(-(2.0 * y - 1 + rng.normal(0, 1.5, 400))))
    cal = ca.CUSTOM_CALIBRATORS["skcalib-default"]()
    out_1d = cal.fit(p1, y).predict_proba(p1)
    out_2d = (
        ca.SkcalibCalArena("default")
        .fit(np.column_stack([1 - p1, p1]), y)
        .predict_proba(np.column_stack([1 - p1, p1]))
    )
    assert out_1d.shape == (400, 2)
    np.testing.assert_allclose(out_1d.sum(axis=1), 1.0)
    np.testing.assert_allclose(out_1d, out_2d)
    # scikit-learn's temperature through the adapter is scikit-learn's own
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    P = np.column_stack([1 - p1, p1])
    ref = CalibratedClassifierCV(
        FrozenEstimator(ca.ProbabilityClassifier(2)), method="temperature"
    ).fit(P, y)
    got = ca.CUSTOM_CALIBRATORS["sklearn-temperature"]().fit(p1, y).predict_proba(p1)
    np.testing.assert_allclose(got, ref.predict_proba(P))


def test_calarena_rank_reads_result_csvs(tmp_path):
    pd = pytest.importorskip("pandas")
    folder = tmp_path / "toy-binary"
    folder.mkdir()
    ll = {"TS": [0.5, 0.2], "Isotonic": [0.6, 0.21], "Platt-probs": [0.4, 0.25]}
    ll["skcalib-default"] = [0.45, 0.4]
    for name, v in ll.items():
        pd.DataFrame(
            {
                "dataset": ["d1", "d2"],
                "model": ["m", "m"],
                "cal_size": [100, 100],
                "test_size": [50, 50],
                f"{name}_logloss": v,
                f"{name}_time": [0.01, 0.03],
            }
        ).to_csv(folder / f"{name}.csv", index=False)
    stats = ca.rank(str(folder), out=open(os.devnull, "w"))
    s = stats["skcalib-default"]
    assert s["gm_ts"] == pytest.approx(np.sqrt(0.9 * 2.0))
    assert s["gm_sk3"] == pytest.approx(np.sqrt(1.125 * 2.0))
    assert s["median_ms"] == pytest.approx(20.0)


def test_merge_json_joins_method_sets(tmp_path):
    import json

    def run(path, methods, cells):
        meta = {"methods": methods, "commit": "x", "repeats": 1}
        path.write_text(json.dumps({"meta": meta, "cells": cells}))
        return str(path)

    a = _cell("t1", temperature=0.5, sigmoid=0.4, isotonic=0.6)
    b = _cell("t2", temperature=0.2, sigmoid=0.25, isotonic=0.21)
    core = run(tmp_path / "core.json", ["temperature", "sigmoid", "isotonic"], [a, b])
    p1 = run(tmp_path / "p1.json", ["a"], [_cell("t1", a=0.45)])
    p2 = run(tmp_path / "p2.json", ["a"], [_cell("t2", a=0.4)])
    meta, cells = ba.merge_json([core, p1, p2])
    assert meta["methods"] == ["temperature", "sigmoid", "isotonic", "a"]
    assert [c["task"] for c in cells] == ["t1", "t2"]
    assert cells[1]["methods"]["a"]["log_loss"] == 0.4
    # a cell some method did not run in is left out
    meta, cells = ba.merge_json([core, p1])
    assert [c["task"] for c in cells] == ["t1"]


def test_peers_added_to_named_methods():
    registry = {"temperature": None, "default": None, "p1": None, "p2": None}
    peers = {"p1": None, "p2": None}
    # --methods default --peers: the peers join the named method
    assert bq.method_names_of(["default"], registry, peers) == ["default", "p1", "p2"]
    # a peer named in --methods is not repeated
    assert bq.method_names_of(["p2", "default"], registry, peers) == [
        "p2",
        "default",
        "p1",
    ]
    assert bq.method_names_of(None, registry, {}) == list(registry)
    assert bq.method_names_of(["default"], registry, {}) == ["default"]


def test_oracle_and_readme_table():
    names = ["temperature", "sigmoid", "isotonic", "default", "betacal", "venn_abers"]
    cells = [
        {
            **_cell(
                "t1",
                temperature=0.5,
                sigmoid=0.4,
                isotonic=0.6,
                default=0.38,
                betacal=0.36,
                venn_abers=0.45,
            ),
            "half": "heldout",
        },
        {
            **_cell(
                "t2",
                temperature=0.2,
                sigmoid=0.25,
                isotonic=0.21,
                default=0.2,
                betacal=0.3,
                venn_abers=0.22,
            ),
            "half": "heldout",
        },
    ]
    # per cell: best of all 0.36 / sk3 0.4, 0.2 / 0.2
    assert ba.oracle_sk3(cells, names) == pytest.approx(np.sqrt(0.9 * 1.0))
    stats = ba.all_statistics(cells, names)
    text = ba.readme_table(stats)
    assert "gm/sk3 0.9487" in text
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ")]
    # the default, scikit-learn's three and the peers, by mean rank
    assert rows[0] == "| method"
    assert set(rows[1:]) == {f"| {m}" for m in names}


def test_namesake_ratios_worked_example():
    registry = bq.build_methods()
    registry.update({k: v[1] for k, v in ba.peer_registry().items()})
    names = ["platt", "sigmoid", "beta", "betacal", "default"]
    cells = [
        _cell("t1", platt=0.505, sigmoid=0.5, beta=0.4, betacal=0.5, default=0.3),
        _cell("t2", platt=0.2, sigmoid=0.25, beta=None, betacal=0.2, default=0.3),
    ]
    cells[1]["methods"]["betacal"]["status"] = "ok"
    pairs = ba.namesake_pairs(names, registry)
    # the default's namesake ('best') is not a pair
    assert pairs == [("platt", "sigmoid"), ("beta", "betacal")]
    r = ba.namesake_ratios(cells, pairs)
    platt = r[("platt", "sigmoid", "binary")]
    assert platt["n"] == 2 and platt["over"] == 0 and platt["failed"] == 0
    assert platt["gm"] == pytest.approx(np.sqrt(1.01 * 0.8))
    assert platt["worst"] == pytest.approx((1.01, "t1", "c"))
    beta = r[("beta", "betacal", "binary")]
    assert beta["n"] == 1 and beta["failed"] == 1 and beta["gm"] == pytest.approx(0.8)
    assert ("platt", "sigmoid", "multiclass") not in r
    out = io.StringIO()
    ba.print_namesakes(cells, names, registry, out)
    text = out.getvalue()
    # scikit-learn's namesake: every cell within 1.02; a peer: the gm within 1.01
    assert "platt / sigmoid" in text and "beta / betacal" in text
    assert text.count(" yes") == 1 and "NO (1 failed)" in text


def test_list_and_saved_run_namesakes_of_one_half(tmp_path, capfd):
    import json

    assert ba.main(["--list"]) == 0
    listed = capfd.readouterr().out.splitlines()
    assert {line.split()[1] for line in listed if line.split()} >= {"tune", "heldout"}
    cells = [
        dict(_cell(f"t{half}", temperature=0.5, temp=0.49), half=half)
        for half in ("tune", "heldout")
    ]
    meta = {"methods": ["temperature", "temp"], "commit": "x", "repeats": 1}
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"meta": meta, "cells": cells}))
    assert ba.main(["--from-json", str(saved), "--half", "heldout", "--namesakes"]) == 0
    namesakes = capfd.readouterr().out.split("namesakes", 1)[1]
    row = next(line for line in namesakes.splitlines() if "temp / temperature" in line)
    assert row.split()[4] == "1"  # cells: the held-out one only


def test_a_closed_pipe_ends_a_benchmark_quietly():
    # `bench_arena.py --list | head -1`: the reader is gone before the
    # script writes; status 141 as after SIGPIPE, and no traceback
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, os.path.join(BENCH, "bench_arena.py"), "--list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141
    assert err == b""
