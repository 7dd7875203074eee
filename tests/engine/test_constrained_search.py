"""The searches for competing models under constraints: directions repaired
to meet the weight constraints, thresholds restricted to those meeting the
group-rate constraints."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from faulty_backends import NoSolutionBackend

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._core._models import in_class
from sklearn_multiplicity._mip._constraints import NonzeroRows, RateGapRows, SignRows
from sklearn_multiplicity.constraints import GroupRateGap, MaxNonzero, Signs


@pytest.mark.parametrize("rate", ["selection", "fpr", "fnr"])
@pytest.mark.parametrize("seed", range(3))
def test_admissible_cuts_are_the_cuts_whose_rates_meet_the_gap(rate, seed):
    rng = np.random.RandomState(seed)
    share = rng.randint(0, 3, size=(3, 12)).astype(float)
    share[:, 0] += 1  # every group counts some rows
    rows = RateGapRows(np.array(["a", "b", "c"]), share, rate, max_gap=0.3)
    order = rng.permutation(12)
    admissible = rows.admissible_cuts(order)
    assert admissible.shape == (13,)
    for cut in range(13):
        z = np.zeros(12, dtype=bool)
        z[order[cut:]] = True
        rates = rows.rates(z)
        assert admissible[cut] == (rates.max() - rates.min() <= 0.3 + 1e-9)


def test_repaired_directions_meet_the_weight_constraints():
    rng = np.random.RandomState(0)
    signs = SignRows(np.array([1.0, -1.0, 0.0, np.nan]), names=[])
    sparse = NonzeroRows(k=2, p=4)
    for _ in range(20):
        w = rng.normal(size=4)
        for rows in (signs, sparse):
            repaired = rows.repair(w)
            assert rows.satisfied(None, SimpleNamespace(w=repaired), 0.0)
        # Sparsity keeps the two largest weights as they are.
        kept = np.argsort(-np.abs(w))[:2]
        np.testing.assert_array_equal(sparse.repair(w)[kept], w[kept])
        # Signs only zero the weights of the wrong sign.
        repaired = signs.repair(w)
        changed = repaired != w
        assert np.all(repaired[changed] == 0)


def _data(seed=0, n=240):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 4, size=(n, 3)).astype(float)
    groups = np.where(rng.uniform(size=n) < 0.4, "a", "b")
    logit = X @ np.array([1.0, -0.7, 0.4]) - 1.5 + 0.8 * (groups == "a")
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, groups


@pytest.mark.parametrize(
    "constraint",
    [GroupRateGap(max_gap=0.05), Signs({1: -1, 2: 1}), MaxNonzero(2)],
    ids=["rate-gap", "signs", "nonzero"],
)
def test_searches_alone_find_constrained_competitors(constraint):
    X, y, groups = _data()
    auditor = MultiplicityAuditor(constraints=[constraint], time_limit=20)
    auditor.fit(X, y, groups=groups)
    exact = auditor.ambiguity_bounds(0.05)
    assert exact[0] == pytest.approx(exact[1])
    # The same audit with MIPs that find nothing: only the searches remain.
    searched = MultiplicityAuditor(constraints=[constraint], time_limit=20)
    searched.fit(X, y, groups=groups)
    state = searched.session_.state
    searched.session_.backend = NoSolutionBackend()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lower, upper = searched.ambiguity_bounds(0.05)
    assert 0 < lower <= exact[0] + 1e-12 and exact[1] <= upper + 1e-12
    # Every model the searches pooled meets the constraint.
    assert len(state.pool.models) > 1
    assert all(in_class(state.enc, model) for model in state.pool.models)


def test_threshold_flips_match_the_best_admissible_cut_of_each_pattern():
    from sklearn_multiplicity._engine.binary.search._heuristics import (
        _cuts,
        threshold_flips,
    )

    X, y, groups = _data(seed=0)
    auditor = MultiplicityAuditor(constraints=[GroupRateGap(max_gap=0.0)])
    auditor.fit(X, y, groups=groups)
    state = auditor.session_.state
    enc = state.enc
    (rows,) = enc.constraints
    problem = enc.problem
    k = enc.n_train
    candidates = np.arange(k)
    directions = [m.w for m in state.pool.models if np.any(m.w)][:3]
    for w in directions + [np.array([1.0, -1.0, 0.5]), np.array([0.2, 1.0, -1.0])]:
        errors, models = threshold_flips(enc, [w], state.baseline, candidates)
        # Brute force: every cut of the direction, kept when its labelling
        # meets the gap; per pattern, the fewest errors of a kept cut that
        # flips it.
        order, _, cut_errors, thresholds = _cuts(
            enc.X[:k] @ w, problem.positive_weight, problem.negative_weight
        )
        best = np.full(k, np.inf)
        for cut in range(k + 1):
            z = np.zeros(k, dtype=bool)
            z[order[cut:]] = True
            rates = rows.rates(z)
            if rates.max() - rates.min() > rows.max_gap + 1e-9:
                continue
            if not np.isfinite(cut_errors[cut]):
                continue
            flipped = z != state.baseline
            best[flipped] = np.minimum(best[flipped], cut_errors[cut])
        np.testing.assert_array_equal(errors, best)
        # Each model is the admissible cut it reports (compared by cut: the
        # library verifies the scaled model's own predictions).
        for u in np.flatnonzero(np.isfinite(errors)):
            w_u, b_u = models[u]
            np.testing.assert_array_equal(w_u, w)
            # (cuts between tied or nearly tied scores share a threshold)
            cuts = np.flatnonzero((thresholds == -b_u) & np.isfinite(cut_errors))
            assert any(
                _admissible_flip(rows, order, cut, u, state.baseline) for cut in cuts
            )
            assert errors[u] in cut_errors[cuts]


def _admissible_flip(rows, order, cut, u, baseline):
    z = np.zeros(order.size, dtype=bool)
    z[order[cut:]] = True
    rates = rows.rates(z)
    return z[u] != baseline[u] and rates.max() - rates.min() <= rows.max_gap + 1e-9
