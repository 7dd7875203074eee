"""numpydoc validation of the public API's docstrings.

Every object of ``sklearn_multiplicity.__all__`` and of
``sklearn_multiplicity.constraints.__all__``, every public method (and
property) of their classes defined in this package, and
``sklearn_multiplicity.datasets.load_compas`` must pass
:func:`numpydoc.validate.validate`, except for the style-only checks in
``IGNORED``. The Examples sections themselves are run by ``--doctest-modules``
(see ``[tool.pytest.ini_options]`` in ``pyproject.toml``).
"""

import inspect

import pytest

import sklearn_multiplicity

numpydoc_validate = pytest.importorskip("numpydoc.validate")

#: Checks that are about style, not completeness. Everything else is enforced,
#: in particular GL08 (no docstring), PR01/PR02 (undocumented or unknown
#: parameters), PR04 (parameter without type), PR07/PR08 (parameter without a
#: well-formed description), RT01 (no Returns section) and RT03 (returned
#: value without description).
IGNORED = {
    # Whitespace between the opening quotes, the summary and the sections.
    "GL01",
    "GL02",
    # Summary in the third person ("Returns ...") rather than the imperative:
    # grammar only.
    "SS05",
    # A named single return value (``self : Estimator``) is scikit-learn's
    # convention for ``fit`` and ``plot``.
    "RT02",
    # Extended summary, See Also and Examples sections are welcome but not
    # required of every method and small class; the Examples that exist are
    # run as doctests.
    "ES01",
    "SA01",
    "EX01",
}

PACKAGE = sklearn_multiplicity.__name__


def _defined_here(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _public_members(cls):
    """Public methods and properties of ``cls`` defined in this package."""
    names = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property):
            target = attr.fget
        elif isinstance(attr, (classmethod, staticmethod)):
            target = attr.__func__
        elif inspect.isfunction(attr):
            target = attr
        elif inspect.isfunction(getattr(attr, "fn", None)):
            target = attr.fn  # sklearn's available_if descriptor
        else:
            continue
        if _defined_here(target):
            names.append(name)
    return names


def _public_names():
    names = []
    for name in sorted(sklearn_multiplicity.__all__):
        if name.startswith("__"):  # __version__
            continue
        obj = getattr(sklearn_multiplicity, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        names.append(f"{PACKAGE}.{name}")
        if inspect.isclass(obj):
            names += [f"{PACKAGE}.{name}.{member}" for member in _public_members(obj)]
    names.append(f"{PACKAGE}.datasets.load_compas")
    from sklearn_multiplicity import constraints

    for name in constraints.__all__:
        names.append(f"{PACKAGE}.constraints.{name}")
        obj = getattr(constraints, name)
        names += [
            f"{PACKAGE}.constraints.{name}.{member}" for member in _public_members(obj)
        ]
    return names


PUBLIC_NAMES = _public_names()


def test_public_names_are_collected():
    assert f"{PACKAGE}.MultiplicityPathDisplay.from_auditor" in PUBLIC_NAMES
    assert f"{PACKAGE}.SamplingAuditor.fit" in PUBLIC_NAMES
    # Inherited from scikit-learn, hence not ours to document.
    assert f"{PACKAGE}.SamplingAuditor.get_params" not in PUBLIC_NAMES


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_docstring(name):
    result = numpydoc_validate.validate(name)
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code not in IGNORED
    ]
    if errors:
        location = f"{result['file']}:{result['file_line']}"
        pytest.fail(f"{name} ({location}):\n  " + "\n  ".join(errors))
