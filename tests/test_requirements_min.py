"""requirements-min.txt pins exactly the floors of pyproject.toml.

CI installs requirements-min.txt to run the suite at the oldest versions
``pyproject.toml`` allows (see .ci/run); the two files must not drift.
"""

from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: pytest brings tomli
    tomllib = pytest.importorskip("tomli")

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _floors():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    floors = {}
    for line in project["dependencies"] + project["optional-dependencies"]["test"]:
        req = Requirement(line)
        (spec,) = req.specifier  # one bound per dependency
        assert spec.operator == ">=", f"{line!r}: the floor must be '>='"
        floors[req.name.lower()] = (sorted(req.extras), spec.version)
    return floors


def _pins():
    pins = {}
    for line in (ROOT / "requirements-min.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        assert spec.operator == "==", f"{line!r}: a pin must be '=='"
        assert req.name.lower() not in pins, f"{req.name} pinned twice"
        pins[req.name.lower()] = (sorted(req.extras), spec.version)
    return pins


def test_requirements_min_pins_the_floors_of_pyproject():
    floors, pins = _floors(), _pins()
    # every dependency pinned at its floor; other pins (transitive packages
    # of the floors' time) may follow
    assert {name: pins.get(name) for name in floors} == floors
