"""The hypothesis class an estimator's parameters and its backend's declared
capabilities imply (``_core/_hypothesis.py``)."""

import pytest

from sklearn_multiplicity._core import BoxMargin, IntegerWeights, make_hypothesis_class


def test_auto_weights_follow_the_backends_capability():
    continuous = make_hypothesis_class("auto", 0.01, 3)
    assert continuous == BoxMargin(margin=0.01)
    integer = make_hypothesis_class("auto", 0.01, 3, integer_only=True)
    assert integer == IntegerWeights(max_weight=3)


@pytest.mark.parametrize("integer_only", [False, True])
def test_integer_weights_suit_every_backend(integer_only):
    hypothesis = make_hypothesis_class("integer", 0.01, 4, integer_only=integer_only)
    assert hypothesis == IntegerWeights(max_weight=4)


def test_continuous_weights_are_refused_by_name_for_integer_only_backends():
    with pytest.raises(ValueError, match="solver='cpsat' solves integer problems"):
        make_hypothesis_class("continuous", 0.01, 3, integer_only=True, solver="cpsat")
    with pytest.raises(ValueError, match="solver='mine' solves integer problems"):
        make_hypothesis_class("continuous", 0.01, 3, integer_only=True, solver="mine")


def test_unknown_weights_are_refused():
    with pytest.raises(ValueError, match="weights must be"):
        make_hypothesis_class("binary", 0.01, 3)
