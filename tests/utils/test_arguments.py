"""The constructor's arguments stored as attributes (utils/_arguments.py)."""

from sklearn.base import BaseEstimator, clone

from skcalib.utils._arguments import store_arguments


class _Base(BaseEstimator):
    def __init__(self, *, a=1, b=None):
        store_arguments(self, locals())


class _Child(_Base):
    # super() puts the __class__ cell in locals(): it must not be stored
    def __init__(self, *, a=1, b=None, c="x"):
        super().__init__(a=a, b=b)
        store_arguments(self, locals())


def test_every_argument_is_stored_under_its_name_and_nothing_else():
    est = _Child(a=2, c="y")
    assert vars(est) == {"a": 2, "b": None, "c": "y"}
    assert est.get_params() == {"a": 2, "b": None, "c": "y"}
    assert vars(clone(est)) == vars(est)


def test_values_are_stored_unchanged():
    value = [1, 2]
    est = _Base(b=value)
    assert est.b is value
