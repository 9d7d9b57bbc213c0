"""Shared fixtures of the command-line tests."""

import errno
import os

import pytest


@pytest.fixture
def watched_evaluate(monkeypatch):
    """Record what ``evaluate`` builds and bootstraps.

    Returns ``(built, received, resamples)``: each ``ScoredTrials`` the
    command builds, the trials each ``bootstrap_ci`` call receives, and the
    trials every bootstrapped metric is computed on (the data's and every
    resample's).
    """
    import skcalib.metrics as metrics
    from skcalib._cli import _commands

    built, received, resamples = [], [], []
    build, bootstrap = _commands.scored_trials, metrics.bootstrap_ci

    def building(y, llr):
        built.append(build(y, llr))
        return built[-1]

    def recording(metric, y_true, y_score=None, **kwargs):
        received.append((y_true, y_score))

        def watched(m):
            def statistic(t):
                resamples.append(t)
                return m(t)

            return statistic

        return bootstrap([watched(m) for m in metric], y_true, y_score, **kwargs)

    monkeypatch.setattr(_commands, "scored_trials", building)
    monkeypatch.setattr(metrics, "bootstrap_ci", recording)
    return built, received, resamples


@pytest.fixture
def full_disk_for(monkeypatch):
    """``full_disk_for(suffix)``: figures whose path ends with ``suffix``
    fail at writing time with a full disk, the others are written."""
    from skcalib._cli import _output

    original = _output.save_figure

    def install(suffix):
        def save(fig, path):
            if path.endswith(suffix):
                with _output.atomic_output(path, "wb"):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            original(fig, path)

        monkeypatch.setattr(_output, "save_figure", save)

    return install
