"""The package's import graph: no cycles, and layers import downward only.

Every ``import`` statement of every module under ``skcalib/`` counts, also
those inside functions (a lazy import still ties two modules together);
only imports under ``if TYPE_CHECKING:`` are left out, since they never run.
"""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import skcalib

ROOT = Path(skcalib.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(node) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path) -> set[str]:
    """skcalib modules imported anywhere in the module (TYPE_CHECKING aside)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skip.update(id(n) for n in ast.walk(node))
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                base = ".".join(base + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from pkg import mod` imports the module pkg.mod
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _estimator_modules() -> set[str]:
    """Modules defining a scikit-learn estimator class."""
    out = set()
    for info in pkgutil.walk_packages(skcalib.__path__, "skcalib."):
        if "._cli" in info.name:
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == info.name and issubclass(obj, BaseEstimator):
                out.add(info.name)
    return out


def _reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for w in GRAPH[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def test_the_walker_sees_the_imports():
    # a module-level, a relative and a function-level import
    assert "skcalib._dask" in GRAPH["skcalib._base"]
    assert "skcalib._dask._training" in GRAPH["skcalib._base"]
    assert "skcalib._kernel._solver" in GRAPH["skcalib._affine"]
    assert "skcalib._base" in _estimator_modules()


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_cycle_detection_works():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]
    ]


@pytest.mark.parametrize(
    "layer",
    sorted(
        name
        for name in MODULES
        if name.startswith(("skcalib._dask", "skcalib._kernel", "skcalib._data"))
    ),
)
def test_kernels_and_dask_know_no_estimator(layer):
    """Kernels and the Dask layer import no estimator, metric or CLI module,
    directly or through another module."""
    below = _reachable(layer)
    assert not below & _estimator_modules()
    assert not {m for m in below if m.startswith(("skcalib.metrics", "skcalib._cli"))}


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if n.startswith("skcalib._kernel"))
)
def test_the_kernel_imports_nothing_of_skcalib_but_utils(name):
    """The math folder stands on NumPy, SciPy and :mod:`skcalib.utils` only."""
    outside = {
        m for m in GRAPH[name] if not m.startswith(("skcalib._kernel", "skcalib.utils"))
    }
    assert outside == set()


#: The package root holds the estimators and the package's face only; the
#: math lives in ``_kernel``, the training-data objects in ``_data``.
PACKAGE_FACE = {"skcalib", "skcalib.__main__"}


def test_the_package_root_holds_estimators_only():
    root = {
        name
        for name in MODULES
        if name.count(".") == 1 and not MODULES[name].name == "__init__.py"
    }
    assert root - PACKAGE_FACE - _estimator_modules() == set()


def test_estimators_know_no_command_line():
    for name in _estimator_modules():
        assert not {m for m in _reachable(name) if m.startswith("skcalib._cli")}


def _private_names_imported_from(package: str):
    """``(module, name)`` of underscore names imported from ``package`` by
    modules outside it (the displays live inside ``skcalib.metrics``)."""
    out = []
    for name, path in MODULES.items():
        if name == package or name.startswith(package + "."):
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        own = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = own.split(".")[: len(own.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == package or target.startswith(package + "."):
                out += [(name, a.name) for a in node.names if a.name.startswith("_")]
    return out


def test_no_private_metric_helper_is_imported_from_outside():
    """The command line and the rest reach the metrics through their public
    names (ScoredTrials, Application, the functions), never through a
    private helper of ``skcalib.metrics``."""
    assert _private_names_imported_from("skcalib.metrics") == []


def test_command_line_imports_no_private_module_of_another_package():
    """The command line reaches the rest of skcalib through public names
    (``skcalib``, ``skcalib.metrics``, ``skcalib.datasets``) and the
    documented helpers of ``skcalib.utils``, never through a private module
    such as ``skcalib.metrics._bootstrap`` or ``skcalib._base``."""
    found = {
        (name, target)
        for name in MODULES
        if name.startswith("skcalib._cli")
        for target in GRAPH[name]
        if not target.startswith(("skcalib._cli", "skcalib.utils."))
        and any(part.startswith("_") for part in target.split(".")[1:])
    }
    assert found == set()


#: scikit-learn's private helpers, passed through the one compatibility
#: module that may import them (house style), keep their own names.
SKLEARN_PASSTHROUGH = "skcalib.utils._sklearn_compat"


@pytest.mark.parametrize(
    "package",
    ["skcalib.utils", "skcalib.metrics", "skcalib._dask", "skcalib.datasets"],
)
def test_no_underscore_name_crosses_a_subpackage(package):
    """A subpackage's underscore names are its own: the others import its
    documented internal API (public names of its private modules) only."""
    found = [
        (module, name)
        for module, name in _private_names_imported_from(package)
        if not (
            package == "skcalib.utils"
            and _imported_module(module, name) == SKLEARN_PASSTHROUGH
        )
    ]
    assert found == []


def _imported_module(module: str, name: str) -> str:
    """The module ``module`` imports ``name`` from (first match)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    own = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and name in {a.name for a in node.names}:
            if node.level:
                base = own.split(".")[: len(own.split(".")) - node.level + 1]
                return ".".join(base + ([node.module] if node.module else []))
            return node.module or ""
    return ""


#: The modules that may use scipy's and scikit-learn's private API.
COMPAT_MODULES = {
    "skcalib.utils._sklearn_compat",
    "skcalib.utils._scipy_compat",
    "skcalib.utils._numpy_compat",
}
_THIRD_PARTY = ("scipy", "sklearn")


def _is_private_path(dotted: str) -> bool:
    """Whether a dotted name of scipy or scikit-learn has a private part."""
    parts = dotted.split(".")
    return parts[0] in _THIRD_PARTY and any(p.startswith("_") for p in parts[1:])


def _dotted(node) -> str | None:
    """``a.b.c`` for a chain of attribute accesses on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _private_third_party_uses(source: str) -> list[tuple[int, str]]:
    """(line, name) of every use of a private scipy or scikit-learn name:
    ``from scipy.x._y import f``, ``from sklearn.utils import _f``,
    ``import sklearn._x``, ``importlib.import_module("scipy._x")`` and
    attribute access such as ``sklearn.utils._param_validation``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [
                (node.lineno, a.name) for a in node.names if _is_private_path(a.name)
            ]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out += [
                (node.lineno, f"{node.module}.{a.name}")
                for a in node.names
                if _is_private_path(f"{node.module}.{a.name}")
            ]
        elif isinstance(node, ast.Attribute):
            name = _dotted(node)
            if name is not None and _is_private_path(name):
                out.append((node.lineno, name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_private_path(node.value) and " " not in node.value:
                out.append((node.lineno, node.value))
    return out


@pytest.mark.parametrize(
    "source, found",
    [
        (
            "from scipy.optimize._pava_pybind import pava",
            ["scipy.optimize._pava_pybind.pava"],
        ),
        (
            "from sklearn.utils._param_validation import Interval",
            ["sklearn.utils._param_validation.Interval"],
        ),
        ("from sklearn.utils import _safe_indexing", ["sklearn.utils._safe_indexing"]),
        ("import sklearn._config", ["sklearn._config"]),
        (
            "import sklearn.utils._param_validation as pv",
            ["sklearn.utils._param_validation"],
        ),
        (
            "import sklearn\nsklearn.utils._param_validation.Interval",
            [
                "sklearn.utils._param_validation.Interval",
                "sklearn.utils._param_validation",
            ],
        ),
        (
            "import importlib\nimportlib.import_module('scipy.optimize._pava_pybind')",
            ["scipy.optimize._pava_pybind"],
        ),
        ("from scipy.optimize import isotonic_regression", []),
        ("from sklearn.utils.validation import check_array", []),
        ("import sklearn\nsklearn.base.clone", []),
        ("from ._sklearn_compat import _fit_context", []),
        ("import numpy as np\nnp._core", []),
    ],
)
def test_the_private_import_finder_sees_them(source, found):
    assert [name for _, name in _private_third_party_uses(source)] == found


def test_private_scipy_and_sklearn_names_only_in_the_compat_modules():
    """scipy's and scikit-learn's private API is reached through the
    compatibility modules only, so that a release that moves a private name
    breaks one file."""
    found = {
        (name, line, target)
        for name, path in MODULES.items()
        if name not in COMPAT_MODULES
        for line, target in _private_third_party_uses(path.read_text())
    }
    assert found == set()


def test_the_compat_modules_exist():
    assert COMPAT_MODULES <= MODULES.keys()


def _root_modules() -> list[str]:
    """The modules at the package root (the estimators and the package face)."""
    return sorted(
        name
        for name in MODULES
        if name.count(".") == 1 and MODULES[name].name != "__init__.py"
    )


@pytest.mark.parametrize(
    "source", [*_root_modules(), "skcalib._kernel", "skcalib._data"]
)
def test_no_underscore_name_leaves_an_estimator_module_or_the_kernel(source):
    """An estimator module, the kernel and the training data share what they
    share under public names of their private modules (their internal API):
    no ``from ._affine import _helper`` between estimator modules, and no
    ``from ._kernel._pav import _helper`` outside the kernel."""
    found = {
        (module, _imported_module(module, name), name)
        for module, name in _private_names_imported_from(source)
    }
    assert found == set()


def test_the_private_import_check_sees_them(tmp_path, monkeypatch):
    # the walker behind the check finds a module-level and a lazy import
    source = (
        "from ._affine import _helper\ndef f():\n    from ._kernel._pav import _pool\n"
    )
    path = tmp_path / "_probe.py"
    path.write_text(source)
    monkeypatch.setitem(MODULES, "skcalib._probe", path)
    assert ("skcalib._probe", "_helper") in _private_names_imported_from(
        "skcalib._affine"
    )
    assert ("skcalib._probe", "_pool") in _private_names_imported_from(
        "skcalib._kernel"
    )
