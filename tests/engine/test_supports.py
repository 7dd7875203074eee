"""Sparse classes split by support (``_engine/binary/supports/`` and the
``_engine/_support_*.py`` questions answered on the split) against
enumeration of every dichotomy of models with at most ``k`` non-zero weights."""

import math

import numpy as np
import pytest
from brute_force import Truth, random_tiny

from sklearn_multiplicity._core import BoxMargin, ClassBudget, PatternProblem, Status
from sklearn_multiplicity._engine.binary import _min_error
from sklearn_multiplicity._engine.binary._min_error import solve_min_error
from sklearn_multiplicity._engine.binary._state import AuditState
from sklearn_multiplicity._engine.binary.supports import _split as _supports
from sklearn_multiplicity._engine.binary.supports._disagreement import (
    disagreement_frontier,
    most_disagreement,
)
from sklearn_multiplicity._engine.binary.supports._flips import certify_flips
from sklearn_multiplicity._engine.binary.supports._min_error import fewest_errors
from sklearn_multiplicity._engine.binary.supports._split import split_by_support
from sklearn_multiplicity._engine.binary.supports._weights import weight_end
from sklearn_multiplicity._engine.timing._scheduling import Deadline
from sklearn_multiplicity._mip import (
    MIPResult,
    NonzeroRows,
    RateGapRows,
    SignRows,
    encode,
)
from sklearn_multiplicity.backends import get_backend


def setting(seed, k, signs=None):
    """Encoding of tiny data under ``MaxNonzero(k)`` (and ``signs``), its
    enumerated truth and a 0-1 optimal baseline of the sparse class."""
    X, y = random_tiny(seed, n=10, d=3, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    if problem.n_kept != 3:
        pytest.skip("a column left the canonical representation")
    truth = Truth(X, y, signs=signs, max_nonzero=k)
    np.testing.assert_array_equal(problem.patterns, truth.points)
    constraints = [NonzeroRows(k, problem.n_kept)]
    if signs:
        values = np.full(problem.n_kept, np.nan)
        for j, sign in signs.items():
            values[j] = sign
        constraints.append(SignRows(values, [str(j) for j in signs]))
    enc = encode(problem, BoxMargin(), constraints=constraints)
    baseline = truth.D[np.argmin(truth.errors)]
    return enc, truth, baseline


def true_flip_errors(truth, baseline):
    """Fewest errors of a dichotomy flipping each point (inf: none does)."""
    errors = np.full(len(baseline), np.inf)
    for u in range(len(baseline)):
        flips = truth.D[:, u] != baseline[u]
        if flips.any():
            errors[u] = truth.errors[flips].min()
    return errors


def solve_with(backend):
    return lambda mip: backend.solve(mip)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("exact", [False, True])
def test_support_flips_match_enumeration(seed, exact):
    k = 1 + seed % 2
    enc, truth, baseline = setting(seed, k)
    split = split_by_support(enc)
    assert len(split.supports) == math.comb(3, k)
    flip_errors = true_flip_errors(truth, baseline)
    for extra in (0, 1, 3):
        budget = truth.min_error + extra
        state = AuditState(enc, baseline, 0.0)
        finished = certify_flips(
            state, split, budget, solve_with(get_backend("highs")), Deadline(None),
            exact=exact,
        )  # fmt: skip
        assert finished
        flippable = flip_errors <= budget
        np.testing.assert_array_equal(state.flippable(budget), flippable)
        np.testing.assert_array_equal(state.maybe_flippable(budget), flippable)
        assert np.all(state.flip_lower <= flip_errors + 1e-9)
        assert np.all(state.flip_upper >= flip_errors - 1e-9)
        if exact:  # fewest errors pinned for every flip within the budget
            np.testing.assert_allclose(
                state.flip_upper[flippable], flip_errors[flippable]
            )
            np.testing.assert_allclose(
                state.flip_lower[flippable], flip_errors[flippable]
            )
        for model in state.pool.models:
            assert np.count_nonzero(model.w) <= k


def test_support_flips_keep_fixed_signs():
    signs = {0: 1, 2: -1}
    enc, truth, baseline = setting(2, 2, signs=signs)
    flip_errors = true_flip_errors(truth, baseline)
    budget = truth.min_error + 2
    state = AuditState(enc, baseline, 0.0)
    split = split_by_support(enc)
    solve = solve_with(get_backend("highs"))
    assert certify_flips(state, split, budget, solve, Deadline(None))
    np.testing.assert_array_equal(state.flippable(budget), flip_errors <= budget)
    np.testing.assert_array_equal(state.maybe_flippable(budget), flip_errors <= budget)
    for model in state.pool.models:
        assert model.w[0] >= 0 and model.w[2] <= 0


def test_an_expired_deadline_settles_nothing():
    enc, truth, baseline = setting(1, 2)
    state = AuditState(enc, baseline, 0.0)
    lower = state.flip_lower.copy()
    finished = certify_flips(
        state, split_by_support(enc), truth.min_error + 3,
        solve_with(get_backend("highs")), Deadline(0.0),
    )  # fmt: skip
    assert not finished
    np.testing.assert_array_equal(state.flip_lower, lower)
    assert len(state.pool) == 0


@pytest.mark.parametrize("status", [Status.NO_SOLUTION, Status.ERROR])
def test_support_mips_stopped_without_an_answer_prove_nothing(status):
    """A MIP stopped without a model (time limit, solver error) leaves its
    patterns undecided and their bounds at what other supports prove."""
    enc, truth, baseline = setting(3, 1)
    flip_errors = true_flip_errors(truth, baseline)
    budget = truth.min_error + 3
    state = AuditState(enc, baseline, 0.0)

    def stopped(mip):
        bound = -np.inf if status == Status.ERROR else truth.min_error - 1
        return MIPResult(status, None, math.nan, bound, 0.0, "fake")

    assert certify_flips(state, split_by_support(enc), budget, stopped, Deadline(None))
    assert np.all(state.flip_lower <= flip_errors + 1e-9)
    # Whatever the screens proved is kept; the rest is undecided.
    assert np.all(state.maybe_flippable(budget)[flip_errors <= budget])
    assert not state.flippable(budget).any()


def test_screens_rule_out_supports_without_a_solver():
    """A support whose groups hold more unavoidable errors than the budget
    needs no MIP: a budget below every support's unavoidable errors settles
    every pattern as unflippable with no solve at all."""
    enc, truth, baseline = setting(4, 1)
    split = split_by_support(enc)
    least = min(s.unavoidable for s in split.supports)
    if least == 0:
        pytest.skip("a support separates its groups")
    state = AuditState(enc, baseline, 0.0)

    def no_solver(mip):
        raise AssertionError("a MIP was solved")

    assert certify_flips(state, split, least - 1, no_solver, Deadline(None))
    assert not state.maybe_flippable(least - 1).any()


def test_split_applies_to_sparsity_alone_and_few_supports(monkeypatch):
    enc, _, _ = setting(0, 1)
    assert split_by_support(enc) is not None
    problem = enc.problem
    dense = encode(problem, BoxMargin(), constraints=[NonzeroRows(3, 3)])
    assert split_by_support(dense) is None  # k >= p: nothing to split
    assert split_by_support(encode(problem, BoxMargin())) is None
    gap = RateGapRows.__new__(RateGapRows)  # any constraint with rows of its own
    mixed = encode(problem, BoxMargin(), constraints=[NonzeroRows(1, 3)])
    mixed.constraints = (*mixed.constraints, gap)
    assert split_by_support(mixed) is None
    monkeypatch.setattr(_supports, "MAX_SUPPORTS", 2)
    assert split_by_support(enc) is None


def test_supports_with_many_groups_are_left_to_the_joint_mip(monkeypatch):
    enc, _, _ = setting(0, 2)
    largest = max(s.problem.n_patterns for s in split_by_support(enc).supports)
    monkeypatch.setattr(_supports, "MAX_GROUPS", largest - 1)
    assert split_by_support(enc) is None


def test_minimum_error_falls_back_to_the_joint_mip_when_supports_run_out(
    monkeypatch,
):
    enc, truth, _ = setting(3, 2)
    split = split_by_support(enc)
    out_of_time = []

    def unfinished(*args):
        out_of_time.append(True)
        return [], -np.inf

    monkeypatch.setattr(_min_error, "fewest_errors", unfinished)
    fit = solve_min_error(enc, get_backend("highs"), Deadline(None), split=split)
    assert out_of_time
    assert fit.lower_bound == fit.model.errors == truth.min_error
    assert "support" not in fit.result.message


@pytest.mark.parametrize("seed", range(6))
def test_support_min_error_matches_enumeration(seed):
    k = 1 + seed % 2
    enc, truth, _ = setting(seed, k)
    solve = solve_with(get_backend("highs"))
    models, lower = fewest_errors(
        enc, split_by_support(enc), solve, Deadline(None), np.inf
    )
    assert lower == truth.min_error
    assert min(m.errors for m in models) == truth.min_error
    # A known optimum spares the supports that cannot beat it their MIPs.
    solved = []
    models, lower = fewest_errors(
        enc,
        split_by_support(enc),
        lambda mip: solved.append(mip) or solve(mip),
        Deadline(None),
        truth.min_error,
    )
    assert lower == truth.min_error
    split = split_by_support(enc)
    assert len(solved) == sum(s.unavoidable < truth.min_error for s in split.supports)


def test_support_min_error_without_time_or_answers_proves_nothing_wrong():
    enc, truth, _ = setting(5, 2)
    split = split_by_support(enc)

    def stopped(mip):
        return MIPResult(Status.NO_SOLUTION, None, math.nan, -np.inf, 0.0, "fake")

    _, lower = fewest_errors(enc, split, stopped, Deadline(None), np.inf)
    assert lower <= truth.min_error
    _, lower = fewest_errors(enc, split, stopped, Deadline(0.0), np.inf)
    assert lower == -np.inf


@pytest.mark.parametrize("seed", range(6))
def test_support_disagreement_matches_enumeration(seed):
    """Against any baseline of the sparse class (so that groups of a support
    mix baseline labels), overall and within a subset of the patterns."""
    k = 1 + seed % 2
    enc, truth, _ = setting(seed, k)
    rng = np.random.default_rng(seed)
    baseline = truth.D[rng.integers(len(truth.D))]
    err0 = truth.pos @ ~baseline + truth.neg @ baseline
    weight = truth.pos + truth.neg
    subset = np.where(rng.random(weight.size) < 0.5, weight, 0.0)
    solve = solve_with(get_backend("highs"))
    for weights in (weight, subset):
        for extra in (0, 1, 3):
            budget = err0 + extra
            within = truth.errors <= budget
            exact = ((truth.D[within] != baseline) @ weights).max()
            state = AuditState(enc, baseline, 0.0)
            upper = most_disagreement(
                state, split_by_support(enc), budget, weights, solve, Deadline(None)
            )
            _, lower = state.best_within(budget, weights)
            assert upper == pytest.approx(exact)
            assert lower == pytest.approx(exact)


def test_support_disagreement_without_time_bounds_nothing():
    enc, truth, baseline = setting(1, 1)
    state = AuditState(enc, baseline, 0.0)
    weights = truth.pos + truth.neg
    upper = most_disagreement(
        state, split_by_support(enc), truth.min_error + 2, weights,
        solve_with(get_backend("highs")), Deadline(0.0),
    )  # fmt: skip
    assert upper == np.inf


def test_groups_by_integer_keys_match_groups_by_rows():
    enc, _, _ = setting(0, 2)
    problem = enc.problem
    codes = [
        np.unique(problem.patterns[:, j], return_inverse=True)[1]
        for j in problem.kept_columns
    ]
    for columns in ([0, 1], [1, 2], [0, 2]):
        by_rows = _supports.Support(enc, columns)
        by_keys = _supports.Support(enc, columns, [codes[j] for j in columns])
        # The same partition of the patterns, and each group's pattern.
        pairs = {
            (a, b) for a, b in zip(by_rows.group_of, by_keys.group_of, strict=True)
        }
        assert len(pairs) == by_rows.problem.n_patterns == by_keys.problem.n_patterns
        for a, b in pairs:
            np.testing.assert_array_equal(
                by_rows.problem.patterns[a], by_keys.problem.patterns[b]
            )
            assert (
                by_rows.problem.positive_weight[a]
                == (by_keys.problem.positive_weight[b])
            )


@pytest.mark.parametrize("seed", range(6))
def test_disagreement_frontier_matches_enumeration_at_every_budget(seed):
    k = 1 + seed % 2
    enc, truth, _ = setting(seed, k)
    rng = np.random.default_rng(seed + 100)
    baseline = truth.D[rng.integers(len(truth.D))]
    weight = truth.pos + truth.neg
    budgets = np.arange(truth.min_error - 1, truth.min_error + 6, dtype=float)
    state = AuditState(enc, baseline, 0.0)
    upper = disagreement_frontier(
        state, split_by_support(enc), budgets, weight,
        solve_with(get_backend("highs")), Deadline(None),
    )  # fmt: skip
    for budget, bound in zip(budgets, upper, strict=True):
        within = truth.errors <= budget
        exact = ((truth.D[within] != baseline) @ weight).max() if within.any() else 0
        _, found = state.best_within(budget, weight)
        assert bound == pytest.approx(exact), budget
        assert found == pytest.approx(exact), budget


def test_disagreement_frontier_stopped_by_a_limit_keeps_its_bounds():
    """MIPs stopped with a bound and no model: the bounds hold at every
    smaller budget; nothing is claimed beyond them."""
    enc, truth, baseline = setting(2, 2)
    weight = truth.pos + truth.neg
    budgets = np.arange(truth.min_error, truth.min_error + 4, dtype=float)
    exact = [((truth.D[truth.errors <= b] != baseline) @ weight).max() for b in budgets]

    def stopped(mip):
        return MIPResult(Status.NO_SOLUTION, None, math.nan, np.inf, 0.0, "fake")

    state = AuditState(enc, baseline, 0.0)
    upper = disagreement_frontier(
        state, split_by_support(enc), budgets, weight, stopped, Deadline(None)
    )
    assert np.all(upper >= np.array(exact) - 1e-9)
    assert (
        disagreement_frontier(
            state, split_by_support(enc), budgets, weight, stopped, Deadline(0.0)
        )
        is None
    )


@pytest.mark.parametrize("maximize", [False, True])
def test_weight_ends_stopped_or_out_of_time_stay_honest(maximize):
    """Stopped MIPs leave each end at least as wide as the exact one (which
    the estimator tests check against enumeration); no time, no answer."""
    enc, truth, baseline = setting(4, 2)
    budget = truth.min_error + 2
    split = split_by_support(enc)
    sign = 1.0 if maximize else -1.0
    for j in range(enc.p):
        exact = weight_end(
            AuditState(enc, baseline, 0.0), split, budget, j, maximize,
            solve_with(get_backend("highs")), Deadline(None),
        )  # fmt: skip

        def stopped(mip):
            nothing_proven = np.inf if mip.maximize else -np.inf
            return MIPResult(Status.NO_SOLUTION, None, math.nan, nothing_proven, 0, "")

        wide = weight_end(
            AuditState(enc, baseline, 0.0), split, budget, j, maximize, stopped,
            Deadline(None),
        )  # fmt: skip
        assert sign * wide >= sign * exact - 1e-9
        assert (
            weight_end(
                AuditState(enc, baseline, 0.0),
                split,
                budget,
                j,
                maximize,
                stopped,
                Deadline(0.0),
            )  # fmt: skip
            is None
        )
    per_class = ClassBudget(1.0, 1.0)
    state = AuditState(enc, baseline, 0.0)
    assert (
        weight_end(state, split, per_class, 0, maximize, stopped, Deadline(None))
        is None
    )
