import numpy as np
import pytest

from sklearn_multiplicity._core import PatternProblem
from sklearn_multiplicity._core._hypothesis import (
    BoxMargin,
    MulticlassBoxMargin,
    predict,
)
from sklearn_multiplicity._core._hypothesis import in_label_class as in_class
from sklearn_multiplicity._core._problem import MAX_CLASSES
from sklearn_multiplicity._core._problem import PatternProblem as MulticlassProblem
from sklearn_multiplicity._mip import _multiclass as formulations


def test_counts_hold_the_weight_of_every_label_on_every_pattern():
    X = np.array([[0, 1], [0, 1], [1, 0], [0, 1], [1, 1], [1, 1]], dtype=float)
    y = np.array(["b", "a", "c", "b", "a", "c"])
    w = np.array([1.0, 2.0, 3.0, 0.5, 0.0, 4.0])  # row 4 has no weight
    problem = MulticlassProblem.from_data(X, y, w)
    np.testing.assert_array_equal(problem.classes, ["a", "b", "c"])
    np.testing.assert_array_equal(problem.patterns, [[0, 1], [1, 0], [1, 1]])
    np.testing.assert_array_equal(problem.inverse, [0, 0, 1, 0, -1, 2])
    np.testing.assert_allclose(problem.counts, [[2, 1.5, 0], [0, 0, 3], [0, 0, 4]])
    assert problem.total_weight == 10.5
    assert problem.unavoidable_errors == 1.5  # pattern 0 keeps 2 of 3.5
    assert problem.errors([0, 2, 2]) == 1.5
    np.testing.assert_allclose(problem.errors([[0, 2, 2], [1, 0, 0]]), [1.5, 9.0])
    assert not problem.weights_are_integral
    assert problem.weight_unit == 1.5  # the lightest label of a pattern


def test_canonical_columns_and_weight_unit_are_the_binary_problems():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 30), np.full(30, 7.0)])
    X = np.column_stack([X, 2 * X[:, 0] + 1])  # affinely redundant
    y = rng.integers(0, 3, 30)
    w = 3.0 * rng.integers(1, 3, 30)
    problem = MulticlassProblem.from_data(X, y, w)
    binary = PatternProblem.from_data(X, y == 0, w)
    np.testing.assert_array_equal(problem.kept_columns, binary.kept_columns)
    np.testing.assert_allclose(problem.canonical(), binary.canonical())
    assert problem.weight_unit == binary.weight_unit == 3.0
    assert problem.n_kept == 1


@pytest.mark.parametrize("n_classes", [1, MAX_CLASSES + 1])
def test_too_few_or_too_many_labels_are_refused(n_classes):
    X = np.arange(2 * n_classes, dtype=float).reshape(-1, 1)
    y = np.arange(2 * n_classes) % n_classes
    with pytest.raises(ValueError, match="labels"):
        MulticlassProblem.from_data(X, y)


def test_bad_input_is_refused():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="one label per row"):
        MulticlassProblem.from_data(X, [0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        MulticlassProblem.from_data(X, [0, 1, 2], [1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="outside"):
        MulticlassProblem.from_data(X, [0, 1, 5], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="margin"):
        MulticlassBoxMargin(margin=0.0)


def test_a_label_absent_from_y_is_kept_when_declared():
    X = np.arange(4.0).reshape(-1, 1)
    problem = MulticlassProblem.from_data(X, [0, 0, 2, 2], classes=[0, 1, 2])
    assert problem.n_classes == 3
    assert problem.counts[:, 1].sum() == 0


def test_two_classes_are_the_binary_class():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(12, 2)).astype(float)
    problem = MulticlassProblem.from_data(X, rng.integers(0, 2, 12))
    binary, multi = BoxMargin(), MulticlassBoxMargin()
    for mine, theirs in zip(
        multi.weight_bounds(problem), binary.weight_bounds(problem), strict=True
    ):
        np.testing.assert_array_equal(mine, theirs)
    # The label is 1 iff the score difference w . x + b is positive, and the
    # margin is on that difference.
    W, b = np.array([[0.5, -1.0]]), np.array([0.2])
    Xc = problem.canonical()
    scores = Xc @ W[0] + b[0]
    np.testing.assert_array_equal(predict(W, b, Xc), scores > 0)
    inside = bool(np.all(np.abs(scores) >= multi.margin))
    assert in_class(problem, multi, W, b) == inside


def test_constant_models_are_in_the_class():
    X = np.arange(6.0).reshape(-1, 2)
    problem = MulticlassProblem.from_data(X, [0, 1, 2])
    hypothesis = MulticlassBoxMargin()
    for label in range(3):
        W, b = hypothesis.constant_model(problem, label)
        assert in_class(problem, hypothesis, W, b)
        assert (predict(W, b, problem.canonical()) == label).all()


def test_models_of_the_class_satisfy_the_mip_rows_and_others_do_not():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(9, 2)).astype(float)
    problem = MulticlassProblem.from_data(X, rng.integers(0, 3, 9))
    hypothesis = MulticlassBoxMargin()
    enc = formulations.encode(problem, hypothesis)
    mip = formulations.min_error(enc)
    checked = 0
    for _ in range(200):
        W = rng.uniform(-1, 1, size=(2, 2))
        b = rng.uniform(-1, 1, size=2)
        x = enc.encode(W, b)
        if in_class(problem, hypothesis, W, b):
            checked += 1
            assert mip.max_violation(x) <= 1e-9
            labels = predict(W, b, enc.X)
            assert mip.evaluate(x) * mip.objective_unit == problem.errors(labels)
        else:
            assert mip.max_violation(x) > 0
    assert checked > 20


def test_repeating_the_data_changes_no_solver_input():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(9, 2)).astype(float)
    y = rng.integers(0, 3, 9)
    once = formulations.encode(MulticlassProblem.from_data(X, y), MulticlassBoxMargin())
    thrice = formulations.encode(
        MulticlassProblem.from_data(np.repeat(X, 3, axis=0), np.repeat(y, 3)),
        MulticlassBoxMargin(),
    )
    labels = np.zeros(once.n_patterns, dtype=int)
    for build in (
        lambda enc: formulations.min_error(enc),
        lambda enc: formulations.flip(enc, 0, 1, max_errors=enc.problem.total_weight),
        lambda enc: formulations.max_disagreement(enc, labels, 3 * enc.unit),
    ):
        a, b = build(once), build(thrice)
        np.testing.assert_array_equal(a.objective, b.objective)
        np.testing.assert_array_equal(a.row_upper, b.row_upper)
        assert b.objective_unit == 3 * a.objective_unit
