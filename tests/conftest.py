"""Shared fixtures of the test suite.

The suite mirrors the package: ``tests/kernel`` the math of
``skcalib/_kernel``, ``tests/metrics`` (and ``tests/metrics/plot``) the
metrics and displays, ``tests/cli``, ``tests/datasets``, ``tests/dask`` and
``tests/utils`` their packages, and the files at this level the estimators
of the package root and the project-wide checks (docs, examples, imports,
scikit-learn's common checks). This folder is on ``sys.path`` (pytest puts a
root ``conftest.py``'s folder there), so every test file can import the
shared helpers of ``_sklearn_checks.py``.
"""
