"""The math of skcalib: the labelled sort, pool-adjacent-violators, the
Venn-Abers tables, the special functions of the proper scoring rules, the
Newton solver and the objectives of linear rules, and the forensic bounds.

Every module here works on plain NumPy arrays; the package imports nothing of
skcalib but :mod:`skcalib.utils`, and the estimators, metrics and the Dask
layer build on it through its modules' public names.
"""
