"""The audit contract: every certifier family fills it, capabilities are
refused in one place, and one budget type serves two labels and K."""

import inspect

import numpy as np
import pytest
from brute_force_multiclass import tiny_case
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier
from sklearn_multiplicity._core import ClassBudget, LabelCeilings, admits
from sklearn_multiplicity._engine import (
    AuditSession,
    MulticlassSession,
    Session,
    UnsupportedCapability,
    require,
)
from sklearn_multiplicity._engine.session._contract import CAPABILITIES
from sklearn_multiplicity.constraints import Signs


def test_every_family_fills_the_whole_contract():
    for family in (AuditSession, MulticlassSession):
        assert issubclass(family, Session)
        assert not inspect.isabstract(family), family.__abstractmethods__
        assert family.capabilities <= set(CAPABILITIES)


def test_a_family_missing_a_method_cannot_be_built():
    class Half(Session):
        def summary(self):
            return None

    with pytest.raises(TypeError, match="abstract"):
        Half()


def test_capabilities_are_declared_and_refused_in_one_place():
    assert "coefficient_ranges" in AuditSession.capabilities
    assert not MulticlassSession.capabilities
    require(AuditSession, "constraints")  # declared: no error
    with pytest.raises(UnsupportedCapability, match="two labels; the target has 3"):
        require(MulticlassSession, "constraints", n_classes=3)
    with pytest.raises(KeyError, match="unknown capability"):
        require(AuditSession, "teleport")
    # Both kinds of error a caller may expect.
    assert issubclass(UnsupportedCapability, ValueError)
    assert issubclass(UnsupportedCapability, NotImplementedError)


def test_k_labels_meet_the_missing_capabilities_with_the_same_sentences():
    X, y, _ = tiny_case(0)
    X, y = np.vstack([X, X]), np.concatenate([y, y])
    with pytest.raises(ValueError, match=CAPABILITIES["integer_weights"][:30]):
        ZeroOneLinearClassifier(weights="integer").fit(X, y)
    with pytest.raises(ValueError, match="apply to two labels; the target has 3"):
        MultiplicityAuditor(constraints=[Signs({0: 1})]).fit(X, y)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    with pytest.raises(NotImplementedError, match="available for two labels"):
        auditor.coefficient_ranges(0.1)


def test_one_budget_type_for_two_labels_and_k():
    assert ClassBudget is LabelCeilings
    pair = ClassBudget(false_positives=3.0, false_negatives=4.0)
    assert pair == LabelCeilings((3.0, 4.0)) == LabelCeilings(3, 4)
    assert pair.ceilings == (3.0, 4.0) and pair.total == 7.0
    assert (pair.false_positives, pair.false_negatives) == (3.0, 4.0)
    # Per label, one argument per label or one array of them; arrays too.
    assert pair.admits(3.0, 4.0) and not pair.admits(3.5, 0.0)
    assert pair.admits(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(
        pair.admits(np.array([1.0, 4.0]), np.array([2.0, 5.0])), [True, False]
    )
    assert f"{pair}" == "FP<=3, FN<=4"
    assert f"{LabelCeilings((1, 2, 3))}" == "errors per label <= (1, 2, 3)"

    class Binary:  # a model of two labels, as verified ones carry
        errors, false_positives, false_negatives = 5.0, 2.0, 3.0

    class Labels:  # a model of K labels
        errors, label_errors = 5.0, np.array([1.0, 2.0, 2.0])

    assert admits(Binary, pair) and not admits(Binary, LabelCeilings(1, 9))
    assert admits(Labels, LabelCeilings((1, 2, 2))) and admits(Labels, 5.0)
    assert not admits(Labels, LabelCeilings((1, 2, 1.5)))
