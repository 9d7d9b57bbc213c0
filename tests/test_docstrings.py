"""numpydoc validation of the public API's docstrings.

Checked: every parameter documented and no unknown ones (PR01, PR02), the
parameter and summary formatting rules. Not checked: RT02 (scikit-learn's
``name : type`` Returns style, which the house style follows) and SS05 (it
misreads summaries that start with a noun, such as "Bayes decisions ...").
"""

import inspect

import numpydoc.validate as numpydoc_validate
import pytest

import skcalib
import skcalib.datasets
import skcalib.metrics

CHECKED = {
    "GL02",  # closing quotes on their own line
    "GL03",  # double line breaks
    "PR01",  # parameters not documented
    "PR02",  # unknown parameters documented
    "PR03",  # wrong parameter order
    "PR06",  # type names like 'string' instead of 'str'
    "PR08",  # parameter description starts lowercase
    "PR09",  # parameter description does not end with a period
    "PR10",  # missing space before the colon
    "SS01",  # no summary
    "SS03",  # summary does not end with a period
    "RT01",  # no Returns section
}
METHODS = (
    "fit",
    "transform",
    "fit_transform",
    "decision_function",
    "predict_proba",
    "predict",
    "plot",
    "from_predictions",
    "from_estimator",
)


def _public_objects():
    for module in (skcalib, skcalib.metrics, skcalib.datasets):
        for name in module.__all__:
            if name.startswith("__"):
                continue
            obj = getattr(module, name)
            qualname = f"{module.__name__}.{name}"
            yield qualname
            if inspect.isclass(obj):
                for method in METHODS:
                    if callable(getattr(obj, method, None)):
                        yield f"{qualname}.{method}"


@pytest.mark.parametrize("name", sorted(set(_public_objects())))
def test_public_docstring(name):
    result = numpydoc_validate.validate(name)
    errors = [f"{code}: {msg}" for code, msg in result["errors"] if code in CHECKED]
    assert not errors, "\n".join(errors)
