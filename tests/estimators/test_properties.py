"""Property-based tests: many small random problems, checked against enumeration.

Every example is a tiny integer-grid data set (4-9 rows, 1-3 columns with values
0..3, duplicate rows allowed, both classes present, optionally integer sample
weights 1..3), small enough for the brute-force ground truth of
``brute_force.Truth`` (every linear dichotomy of the distinct points).
"""

import copy
import math
import os
import warnings

import numpy as np
import pytest
from brute_force import Truth
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from relations import check_auditor, check_frame, check_path
from sklearn.exceptions import ConvergenceWarning
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    ZeroOneLinearClassifier,
)
from sklearn_multiplicity.constraints import MaxNonzero, Signs

#: Examples per property test; ``PROPERTY_EXAMPLES=40`` searches further.
EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "10"))

pytestmark = pytest.mark.property

EPSILONS = (0.0, 0.1, 0.2, 0.4)
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,  # write nothing into the repository
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # Many tiny LogisticRegression fits (warm starts, heuristics): BLAS threads
    # only add overhead here (6x slower on 2 cores). Results are unchanged.
    with threadpool_limits(limits=1):
        yield


@st.composite
def problems(draw, min_rows=4, max_rows=9):
    """``(X, y, sample_weight)``: an integer grid problem with both classes."""
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(1, 3))
    cells = draw(st.lists(st.integers(0, 3), min_size=n * d, max_size=n * d))
    X = np.array(cells, dtype=float).reshape(n, d)
    if (X == X[0]).all():
        # At least two distinct rows (one pattern has its own test below).
        X[0, 0] = (X[0, 0] + 1) % 4
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    weight = None
    if draw(st.booleans()):
        weight = np.array(
            draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=float
        )
    return X, y, weight


def weighted_errors(predictions, y, weight):
    wrong = np.asarray(predictions) != np.asarray(y)
    return float(wrong.sum() if weight is None else weight[wrong].sum())


def extra_errors(eps, total_weight):
    """The level-set allowance ``floor(eps * W)`` for integral weights."""
    return math.floor(eps * total_weight + 1e-9)


def make_auditor(baseline, strategy="each"):
    estimator = LogisticRegression() if baseline == "logistic" else None
    return MultiplicityAuditor(estimator, time_limit=10, strategy=strategy)


def baseline_truth(auditor, X, y, weight):
    """Enumerated truth plus the baseline's predictions on its points."""
    truth = Truth(X, y, weight)
    z0 = auditor.predict(truth.points) == auditor.classes_[1]
    err0 = float((~z0) @ truth.pos + z0 @ truth.neg)
    return truth, z0, err0


# --------------------------------------------------------------------------
# 1. Ordering, monotonicity, certificates (and agreement with enumeration)
# --------------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(
    data=problems(),
    baseline=st.sampled_from(["logistic", "zero-one"]),
    strategy=st.sampled_from(["each", "batch"]),
)
def test_measures_are_ordered_monotone_certified_and_exact(data, baseline, strategy):
    X, y, weight = data
    auditor = make_auditor(baseline, strategy).fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    assert auditor.baseline_errors_ == err0
    previous = (0.0, 0.0)
    for eps in EPSILONS:
        amb_lo, amb_hi = auditor.ambiguity_bounds(eps)
        disc_lo, disc_hi = auditor.discrepancy_bounds(eps)
        assert amb_lo == amb_hi, f"ambiguity not certified at eps={eps}"
        assert disc_lo == disc_hi, f"discrepancy not certified at eps={eps}"
        assert 0.0 <= disc_lo <= amb_lo + 1e-12 <= 1.0 + 1e-12
        assert disc_lo >= previous[0] - 1e-12
        assert amb_lo >= previous[1] - 1e-12
        previous = (disc_lo, amb_lo)
        assert amb_lo == pytest.approx(truth.ambiguity(z0, err0, eps), abs=1e-12)
        assert disc_lo == pytest.approx(truth.discrepancy(z0, err0, eps), abs=1e-12)


@pytest.mark.parametrize("baseline", ["zero-one", "logistic"])
def test_single_pattern_data_is_fitted(baseline):
    X = np.zeros((4, 1))
    y = np.array([1, 0, 0, 0])
    auditor = make_auditor(baseline).fit(X, y)
    # The baseline predicts the majority (1 error); flipping everybody costs 3.
    assert auditor.min_error_bounds_ == (1.0, 1.0)
    assert auditor.ambiguity(0.25) == auditor.discrepancy(0.25) == 0.0
    assert auditor.ambiguity(0.5) == auditor.discrepancy(0.5) == 1.0


# --------------------------------------------------------------------------
# 2. Proposition 1 of Marx, Calmon & Ustun: discrepancy <= 2 err(h0) + eps
# --------------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(data=problems(), baseline=st.sampled_from(["logistic", "zero-one"]))
def test_proposition_one_bounds_discrepancy(data, baseline):
    # A row on which h and h0 disagree is an error of one of them, so
    # disagreement(h, h0) <= err(h) + err(h0) <= 2 err(h0) + floor(eps W) / W,
    # which is at most the paper's 2 err(h0) + eps.
    X, y, weight = data
    auditor = make_auditor(baseline).fit(X, y, sample_weight=weight)
    total = float(len(y) if weight is None else weight.sum())
    err0 = weighted_errors(auditor.predict(X), y, weight) / total
    assert auditor.baseline_error_ == pytest.approx(err0, abs=1e-12)
    for eps in EPSILONS:
        _, disc_hi = auditor.discrepancy_bounds(eps)
        tight = 2 * err0 + extra_errors(eps, total) / total
        assert disc_hi <= tight + 1e-12
        assert disc_hi <= 2 * err0 + eps + 1e-12


# --------------------------------------------------------------------------
# 3. The 0-1 baseline beats the convex surrogates and is the true minimum
# --------------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(data=problems())
def test_zero_one_baseline_is_the_enumerated_minimum(data):
    X, y, weight = data
    clf = ZeroOneLinearClassifier(time_limit=10).fit(X, y, sample_weight=weight)
    truth = Truth(X, y, weight)
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == truth.min_error
    assert clf.lower_bound_ == truth.min_error
    # n_errors_ is what its own coef_/intercept_ predict on the user's columns.
    assert weighted_errors(clf.predict(X), y, weight) == clf.n_errors_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        logistic = LogisticRegression().fit(X, y, sample_weight=weight)
        svm = LinearSVC(max_iter=20000).fit(X, y, sample_weight=weight)
    assert clf.n_errors_ <= weighted_errors(logistic.predict(X), y, weight)
    assert clf.n_errors_ <= weighted_errors(svm.predict(X), y, weight)


# --------------------------------------------------------------------------
# 4. Invariances (fixed baseline predictions)
# --------------------------------------------------------------------------
# Each transformation maps (X, y, w, model, rng) to the transformed data, a
# LogisticRegression with the same predictions on the transformed rows, and
# ``rows``: the original row of every transformed row.


def _permute_rows(X, y, w, model, rng):
    rows = rng.permutation(len(y))
    return X[rows], y[rows], None if w is None else w[rows], model, rows


def _permute_columns(X, y, w, model, rng):
    cols = rng.permutation(X.shape[1])
    model = copy.deepcopy(model)
    model.coef_ = model.coef_[:, cols]
    return X[:, cols], y, w, model, np.arange(len(y))


def _scale_column(X, y, w, model, rng):
    j = int(rng.integers(X.shape[1]))
    c = float(rng.choice([0.5, 2.0, 3.0, 10.0]))
    X = X.copy()
    X[:, j] *= c
    model = copy.deepcopy(model)
    model.coef_ = model.coef_.copy()
    model.coef_[:, j] /= c
    return X, y, w, model, np.arange(len(y))


def _repeat_rows(X, y, w, model, rng):
    rows = np.repeat(np.arange(len(y)), 3)
    return X[rows], y[rows], None if w is None else w[rows], model, rows


def _rename_classes(X, y, w, model, rng):
    names = np.array(["no", "yes"])
    model = copy.deepcopy(model)
    model.classes_ = names
    return X, names[np.asarray(y, dtype=int)], w, model, np.arange(len(y))


def _constant_column(X, y, w, model, rng):
    model = copy.deepcopy(model)
    model.coef_ = np.column_stack([model.coef_, [[0.0]]])
    model.n_features_in_ = X.shape[1] + 1
    return (
        np.column_stack([X, np.full(len(y), 5.0)]),
        y,
        w,
        model,
        np.arange(len(y)),
    )


TRANSFORMS = {
    "permute rows": _permute_rows,
    "permute columns": _permute_columns,
    "scale a column": _scale_column,
    "repeat rows 3x": _repeat_rows,
    "rename classes": _rename_classes,
    "constant column": _constant_column,
}


def _audit_numbers(auditor, eps_values):
    return {
        "baseline_error": auditor.baseline_error_,
        "min_error_share": auditor.min_error_bounds_[0]
        / auditor.session_.problem.total_weight,
        **{f"ambiguity {e}": auditor.ambiguity_bounds(e) for e in eps_values},
        **{f"discrepancy {e}": auditor.discrepancy_bounds(e) for e in eps_values},
    }


@PROPERTY_SETTINGS
@given(
    data=problems(),
    names=st.lists(
        st.sampled_from(sorted(TRANSFORMS)), min_size=1, max_size=3, unique=True
    ),
    seed=st.integers(0, 2**16),
)
def test_measures_are_invariant(data, names, seed):
    X, y, weight = data
    rng = np.random.default_rng(seed)
    model = LogisticRegression().fit(X, y, sample_weight=weight)
    eps_values = (0.0, 0.2)
    original = MultiplicityAuditor(FrozenEstimator(model), time_limit=10)
    original.fit(X, y, sample_weight=weight)
    expected = _audit_numbers(original, eps_values)
    conflicts = {e: original.conflicts(e) for e in eps_values}

    Xt, yt, wt, model_t, rows = X, y, weight, model, np.arange(len(y))
    for name in names:
        Xt, yt, wt, model_t, new_rows = TRANSFORMS[name](Xt, yt, wt, model_t, rng)
        rows = rows[new_rows]
    # The transformed baseline must predict exactly as the original one.
    positive_t = model_t.predict(Xt) == model_t.classes_[1]
    positive = model.predict(X) == model.classes_[1]
    assume(np.array_equal(positive_t, positive[rows]))

    audited = MultiplicityAuditor(FrozenEstimator(model_t), time_limit=10)
    audited.fit(Xt, yt, sample_weight=wt)
    got = _audit_numbers(audited, eps_values)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), (names, key)
    for e in eps_values:
        np.testing.assert_array_equal(
            audited.conflicts(e), conflicts[e][rows], err_msg=f"{names} eps={e}"
        )


# --------------------------------------------------------------------------
# 5. Honest bounds when the time is up; evidence is real
# --------------------------------------------------------------------------
def _check_evidence(auditor, X, y, weight, eps):
    total = float(len(y) if weight is None else weight.sum())
    budget = auditor.baseline_errors_ + extra_errors(eps, total)
    baseline = auditor.predict(X)
    flagged = auditor.conflicts(eps)
    for i in range(len(y)):
        model = auditor.competing_model(i, eps)
        if not flagged[i]:
            assert model is None
            continue
        # Re-checked with the model's own predictions, not solver output.
        predictions = model.predict(X)
        assert predictions[i] != baseline[i]
        assert weighted_errors(predictions, y, weight) <= budget + 1e-9
    return flagged


@PROPERTY_SETTINGS
@given(data=problems())
def test_bounds_stay_honest_when_time_is_up(data):
    X, y, weight = data
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=10)
    auditor.fit(X, y, sample_weight=weight)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    auditor.set_params(total_time_limit=1e-9)
    for eps in EPSILONS:
        true_amb = truth.ambiguity(z0, err0, eps)
        true_disc = truth.discrepancy(z0, err0, eps)
        lo, hi = auditor.ambiguity_bounds(eps)
        assert 0.0 <= lo <= true_amb + 1e-12 <= hi + 2e-12 <= 1.0 + 3e-12
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert auditor.ambiguity(eps) == lo
        warned = any(issubclass(w.category, CertificationWarning) for w in caught)
        assert warned == (lo < hi)
        lo, hi = auditor.discrepancy_bounds(eps)
        assert 0.0 <= lo <= true_disc + 1e-12 <= hi + 2e-12 <= 1.0 + 3e-12
        flagged = _check_evidence(auditor, X, y, weight, eps)
        true_flippable = truth.flippable(z0, err0, eps)[truth.inverse]
        assert not np.any(flagged & ~true_flippable)
    # With the time limit lifted, the same auditor finishes the job exactly.
    auditor.set_params(total_time_limit=None)
    for eps in EPSILONS:
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2, abs=1e-12
        )
        flagged = _check_evidence(auditor, X, y, weight, eps)
        np.testing.assert_array_equal(
            flagged, truth.flippable(z0, err0, eps)[truth.inverse]
        )


# --------------------------------------------------------------------------
# Continuous features: no affine identities, arbitrary scales
# --------------------------------------------------------------------------
@st.composite
def continuous_problems(draw):
    """``(X, y)`` with real-valued features and both classes."""
    n = draw(st.integers(5, 12))
    d = draw(st.integers(1, 3))
    cells = draw(
        st.lists(
            st.floats(-100, 100, allow_nan=False, allow_infinity=False),
            min_size=n * d,
            max_size=n * d,
        )
    )
    X = np.round(np.array(cells).reshape(n, d), 3)
    assume(np.unique(X, axis=0).shape[0] >= 2)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    assume(y.min() != y.max())
    return X, y


@settings(
    max_examples=min(15, EXAMPLES),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=continuous_problems(), baseline=st.sampled_from(["logistic", "zero-one"]))
def test_continuous_features_keep_every_promise(data, baseline):
    X, y = data
    auditor = make_auditor(baseline).fit(X, y)
    truth = Truth(X, y)
    # The margin class holds fewer dichotomies than all strict ones: its
    # certified minimum can only be larger than the enumerated one.
    lower, upper = auditor.min_error_bounds_
    assert truth.min_error <= lower == upper
    err0 = auditor.baseline_error_
    previous = (0.0, 0.0)
    for eps in EPSILONS:
        amb = auditor.ambiguity_bounds(eps)
        disc = auditor.discrepancy_bounds(eps)
        assert amb[0] == amb[1] and disc[0] == disc[1]
        assert 0.0 <= disc[0] <= amb[0] <= 1.0
        assert disc[0] >= previous[0] and amb[0] >= previous[1]
        assert disc[0] <= 2 * err0 + eps + 1e-12
        previous = (disc[0], amb[0])
        budget = auditor.baseline_errors_ + extra_errors(eps, len(y))
        baseline_predictions = auditor.predict(X)
        for i in np.flatnonzero(auditor.conflicts(eps)):
            model = auditor.competing_model(i, eps)
            predictions = model.predict(X)
            assert predictions[i] != baseline_predictions[i]
            assert np.sum(predictions != y) <= budget


# --------------------------------------------------------------------------
# 6. Every reported band meets the relations between the measures
# --------------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(
    data=problems(min_rows=6),
    continuous=st.booleans(),
    per_class=st.booleans(),
    constraint=st.sampled_from([None, "signs", "sparse"]),
    limit=st.sampled_from([None, 0.05, 0.3]),
    seed=st.integers(0, 2**16),
)
def test_every_band_meets_the_relations(
    data, continuous, per_class, constraint, limit, seed
):
    # Tight total limits leave bands open: they must still meet every
    # relation (tests/relations.py) and hold the enumerated truth.
    X, y, weight = data
    rng = np.random.default_rng(seed)
    if continuous:
        X = X + rng.normal(scale=0.2, size=X.shape)
    constraints = {
        None: (),
        "signs": (Signs({0: 1}),),
        "sparse": (MaxNonzero(1),),
    }[constraint]
    groups = rng.integers(0, 2, size=len(y))
    eps = {0: 0.2, 1: 0.1} if per_class else 0.2
    auditor = MultiplicityAuditor(
        epsilon=eps,
        time_limit=10,
        total_time_limit=limit,
        constraints=constraints,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auditor.fit(X, y, sample_weight=weight, groups=groups)
        violations = check_auditor(auditor)
        path = auditor.path(0.3, step=0.1)
        violations += check_path(
            path,
            baseline_errors=auditor.baseline_errors_,
            total_weight=float(auditor.session_.problem.total_weight),
        )
        frame = auditor.by_group()
        violations += check_frame(frame)
        violations += check_auditor(auditor)  # read again after the others
        amb = auditor.ambiguity_bounds()
        disc = auditor.discrepancy_bounds()
        people = rng.uniform(X.min() - 0.5, X.max() + 0.5, size=(4, X.shape[1]))
        sets = auditor.predict_set(people)
    assert violations == []
    assert sets.any(axis=1).all()
    if per_class or constraint is not None or continuous:
        return  # enumeration knows the grid's unconstrained class only
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    exact_amb = truth.ambiguity(z0, err0, 0.2)
    exact_disc = truth.discrepancy(z0, err0, 0.2)
    assert amb[0] - 1e-9 <= exact_amb <= amb[1] + 1e-9
    assert disc[0] - 1e-9 <= exact_disc <= disc[1] + 1e-9
