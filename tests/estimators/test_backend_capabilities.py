"""The estimators read the hypothesis class off the backend's declared
capabilities (``Backend.supports_continuous``), not off the solver's name:
a backend instance solving integer problems only gets integer weights under
``weights="auto"``."""

import numpy as np
import pytest
from brute_force import Truth, random_tiny

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier
from sklearn_multiplicity.backends import get_backend
from sklearn_multiplicity.backends._mathopt import HighsBackend


class IntegerOnlyHighs(HighsBackend):
    """HiGHS declaring that it solves integer problems only."""

    name = "integer-highs"
    supports_continuous = False


def integer_only_backends():
    return [IntegerOnlyHighs(), get_backend("cpsat")]


@pytest.mark.parametrize("backend", integer_only_backends(), ids=lambda b: b.name)
def test_an_integer_only_backend_instance_gets_integer_weights(backend):
    X, y = random_tiny(3, n=10, d=2, levels=3)
    clf = ZeroOneLinearClassifier(solver=backend, max_weight=3, time_limit=20)
    clf.fit(X, y)
    assert clf.hypothesis_class_.startswith("integer weights |w_j| <= 3")
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == Truth(X, y).min_error
    assert np.sum(clf.predict(X) != y) == clf.n_errors_
    # The same class as asking for integer weights by name.
    by_name = ZeroOneLinearClassifier(weights="integer", max_weight=3, time_limit=20)
    assert by_name.fit(X, y).hypothesis_class_ == clf.hypothesis_class_


@pytest.mark.parametrize("backend", integer_only_backends(), ids=lambda b: b.name)
def test_an_integer_only_backend_instance_refuses_continuous_weights(backend):
    X, y = random_tiny(3, n=10, d=2, levels=3)
    match = f"solver={backend.name!r} solves integer problems only"
    with pytest.raises(ValueError, match=match):
        ZeroOneLinearClassifier(solver=backend, weights="continuous").fit(X, y)


def test_the_auditor_audits_over_integer_weights_with_such_a_backend():
    X, y = random_tiny(4, n=10, d=2, levels=3)
    auditor = MultiplicityAuditor(
        solver=IntegerOnlyHighs(), max_weight=3, time_limit=20
    )
    auditor.fit(X, y)
    assert auditor.hypothesis_class_.startswith("integer weights |w_j| <= 3")


def test_backends_with_continuous_support_keep_continuous_weights():
    X, y = random_tiny(3, n=10, d=2, levels=3)
    clf = ZeroOneLinearClassifier(solver=get_backend("highs"), time_limit=20)
    assert clf.fit(X, y).hypothesis_class_.startswith("continuous weights")
