"""The math of skcalib: pool-adjacent-violators, the special functions of the
proper scoring rules, the Newton solver and the forensic bounds.

Every module here works on plain NumPy arrays; the package imports nothing of
skcalib but :mod:`skcalib.utils`, and the estimators, metrics and the Dask
layer build on it.
"""
