"""A constructor's arguments stored as the attributes of their names."""

from __future__ import annotations

__all__ = ["store_arguments"]


def store_arguments(obj, arguments) -> None:
    """Set each of ``arguments`` (a constructor's ``locals()``, taken before
    it binds any other name) as the attribute of its name on ``obj``.

    All that a scikit-learn estimator's ``__init__`` or a display's
    constructor does: store its arguments unchanged, under their own names
    (``self``, and the ``__class__`` cell of a method calling ``super()``,
    left out).
    """
    for key, value in arguments.items():
        if key != "self" and not key.startswith("__"):
            setattr(obj, key, value)
