"""Per-class thresholds under a rate gap whose groups columns tell apart
(``_engine/_offsets.py``, ``_offset_search.py``, ``_offset_models.py``),
against enumeration of every combination of cuts."""

import itertools

import numpy as np
import pytest

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._core import verify
from sklearn_multiplicity._core._models import in_class
from sklearn_multiplicity._engine.binary.search._offset_models import (
    offset_disagreement_models,
    offset_flip_models,
)
from sklearn_multiplicity._engine.binary.search._offset_search import OffsetSearch
from sklearn_multiplicity._engine.binary.search._offsets import offset_classes
from sklearn_multiplicity.constraints import GroupRateGap, Signs


def _data(seed=0, n=60):
    """Two one-hot columns for three groups (the third all zeros), two features."""
    rng = np.random.RandomState(seed)
    groups = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    onehot = np.column_stack([groups == "a", groups == "b"]).astype(float)
    features = rng.randint(0, 4, size=(n, 2)).astype(float)
    logit = features @ np.array([1.0, -0.8]) + 0.6 * (groups == "a") - 0.3
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(int)
    return np.column_stack([onehot, features]), y, groups


def _fitted(max_gap, seed=0, rate="selection", n=60):
    X, y, groups = _data(seed, n)
    auditor = MultiplicityAuditor(
        constraints=[GroupRateGap(rate=rate, max_gap=max_gap)], time_limit=20
    )
    return auditor.fit(X, y, groups=groups)


def _class_cut_labellings(scores, members):
    """Every labelling of one class by a cut between its distinct scores
    (scores within 1e-9 are one score, as in the search)."""
    values = np.unique(scores[members])
    values = values[np.concatenate([[True], np.diff(values) >= 1e-9])]
    cuts = np.concatenate([[values[0] - 1.0], 0.5 * (values[:-1] + values[1:])])
    cuts = np.concatenate([cuts, [values[-1] + 1.0]])
    return [scores[members] > t for t in cuts]


def _labellings_meeting_the_gap(enc, classes, w):
    """Every labelling by a cut per class of ``w``'s scores that meets the
    gap, with its errors (every combination of the classes' cuts)."""
    k = enc.n_train
    w = np.array(w, dtype=float)
    w[classes.columns] = 0.0
    scores = enc.X[:k] @ w
    members = [
        np.flatnonzero(classes.of_pattern == c) for c in range(classes.n_classes)
    ]
    per_class = [_class_cut_labellings(scores, m) for m in members]
    pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
    for combination in itertools.product(*per_class):
        z = np.zeros(k, dtype=bool)
        for m, labels in zip(members, combination, strict=True):
            z[m] = labels
        rates = classes.gap.rates(z)
        if rates.max() - rates.min() <= classes.gap.max_gap + 1e-9:
            yield z, float(z @ neg + (~z) @ pos)


def _brute_force_flips(enc, classes, w, baseline):
    """Per pattern, the fewest errors of a cut per class meeting the gap and
    flipping it."""
    best = np.full(enc.n_train, np.inf)
    for z, errors in _labellings_meeting_the_gap(enc, classes, w):
        flipped = z != baseline
        best[flipped] = np.minimum(best[flipped], errors)
    return best


def _brute_force_disagreement(enc, classes, w, baseline, weights, budget):
    """The most weight predicted unlike the baseline by a cut per class that
    meets the gap within ``budget`` errors, or ``None`` when none does."""
    values = [
        float(weights[z != baseline].sum())
        for z, errors in _labellings_meeting_the_gap(enc, classes, w)
        if errors <= budget + 1e-9
    ]
    return max(values, default=None)


def test_offset_classes_are_the_groups_told_apart_by_columns():
    auditor = _fitted(0.1)
    classes = offset_classes(auditor.session_.enc)
    assert classes is not None
    np.testing.assert_array_equal(classes.columns, [0, 1])
    assert classes.n_classes == 3
    # Every group's patterns lie in its class, and the classes are distinct.
    enc = auditor.session_.enc
    members = classes.gap.share[:, : enc.n_train] > 0
    for g, m in enumerate(members):
        assert np.all(classes.of_pattern[m] == classes.group_class[g])
    assert len(set(classes.group_class)) == 3


def test_no_offset_classes_without_columns_for_the_groups_or_with_other_constraints():
    X, y, groups = _data()
    rng = np.random.RandomState(1)
    shuffled = rng.permutation(groups)  # the one-hot columns no longer tell them apart
    auditor = MultiplicityAuditor(constraints=[GroupRateGap(max_gap=0.1)])
    auditor.fit(X, y, groups=shuffled)
    assert offset_classes(auditor.session_.enc) is None
    signed = MultiplicityAuditor(constraints=[GroupRateGap(max_gap=0.1), Signs({2: 1})])
    signed.fit(X, y, groups=groups)
    assert offset_classes(signed.session_.enc) is None
    plain = MultiplicityAuditor().fit(X, y)
    assert offset_classes(plain.session_.enc) is None


@pytest.mark.parametrize("rate", ["selection", "fpr", "fnr"])
@pytest.mark.parametrize("max_gap", [0.0, 0.05, 0.2])
@pytest.mark.parametrize("seed", range(3))
def test_flips_are_the_best_per_class_cuts_meeting_the_gap(rate, max_gap, seed):
    auditor = _fitted(max_gap, seed=seed, rate=rate, n=40)
    enc, state = auditor.session_.enc, auditor.session_.state
    classes = offset_classes(enc)
    search = OffsetSearch(enc, classes, min_gap=0.0)
    candidates = np.arange(enc.n_train)
    rng = np.random.RandomState(seed)
    for w in [rng.normal(size=enc.p) for _ in range(3)] + [state.pool.models[0].w]:
        errors, models = search.flips([w], state.baseline, candidates)
        truth = _brute_force_flips(enc, classes, w, state.baseline)
        np.testing.assert_allclose(errors, truth, atol=1e-9)
        for u in np.flatnonzero(np.isfinite(errors)):
            model = verify(enc, *models[u])
            assert model.z[u] != state.baseline[u]
            assert model.errors == pytest.approx(errors[u])
            rates = classes.gap.rates(model.z[: enc.n_train])
            assert rates.max() - rates.min() <= max_gap + 1e-9


def test_offset_flip_models_lie_in_the_level_set_and_meet_the_gap():
    auditor = _fitted(0.05, seed=2)
    session = auditor.session_
    enc, state = session.enc, session.state
    budget = auditor.error_budget(0.05)
    directions = [m.w for m in state.pool.models]
    candidates = np.arange(enc.n_train)
    models = offset_flip_models(enc, directions, state.baseline, candidates, budget)
    assert models
    for model in models:
        assert model.errors <= budget + 1e-9
        assert in_class(enc, model)
        rates = enc.constraints[0].rates(model.z[: enc.n_train])
        assert rates.max() - rates.min() <= 0.05 + 1e-9


def test_no_offset_models_for_a_budget_per_class():
    auditor = _fitted(0.05)
    enc, state = auditor.session_.enc, auditor.session_.state
    found = offset_flip_models(
        enc,
        [state.pool.models[0].w],
        state.baseline,
        np.arange(enc.n_train),
        np.array([10.0, 10.0]),
    )
    assert found == []


def test_subsampled_floors_still_give_models_of_the_level_set(monkeypatch):
    from sklearn_multiplicity._engine.binary.search import _offset_search

    auditor = _fitted(0.05, seed=1)
    enc, state = auditor.session_.enc, auditor.session_.state
    classes = offset_classes(enc)
    w = state.pool.models[0].w
    candidates = np.arange(enc.n_train)
    exhaustive, _ = OffsetSearch(enc, classes, 0.0).flips(
        [w], state.baseline, candidates
    )
    monkeypatch.setattr(_offset_search, "MAX_FLOOR_CUTS", 1)
    errors, models = OffsetSearch(enc, classes, 0.0).flips(
        [w], state.baseline, candidates
    )
    # Fewer windows: never fewer errors than the exhaustive search, and
    # every model is the flip it reports.
    assert np.all(errors >= exhaustive - 1e-9)
    for u in np.flatnonzero(np.isfinite(errors)):
        model = verify(enc, *models[u])
        assert model.z[u] != state.baseline[u]
        assert model.errors == pytest.approx(errors[u])


@pytest.mark.parametrize("rate", ["selection", "fpr"])
@pytest.mark.parametrize("max_gap", [0.0, 0.05, 0.2])
@pytest.mark.parametrize("extra", [0, 2, 6])
@pytest.mark.parametrize("seed", range(3))
def test_most_disagreement_is_the_best_combination_of_cuts(rate, max_gap, extra, seed):
    auditor = _fitted(max_gap, seed=seed, rate=rate, n=30)
    enc, state = auditor.session_.enc, auditor.session_.state
    classes = offset_classes(enc)
    search = OffsetSearch(enc, classes, min_gap=0.0)
    rng = np.random.RandomState(seed)
    # Weights of disagreement like a group's discrepancy: some patterns count
    # for nothing.
    weights = state.problem.pattern_weight * (rng.uniform(size=enc.n_train) < 0.7)
    budget = state.pool.models[0].errors + extra
    for w in [rng.normal(size=enc.p) for _ in range(3)] + [state.pool.models[0].w]:
        best = search.most_disagreement(w, state.baseline, weights, budget)
        truth = _brute_force_disagreement(
            enc, classes, w, state.baseline, weights, budget
        )
        if truth is None:
            assert best is None
            continue
        value, errors, (w_model, b_model) = best
        assert value == pytest.approx(truth)
        model = verify(enc, w_model, b_model)
        assert model.errors == pytest.approx(errors)
        assert model.errors <= budget + 1e-9
        assert weights[model.z[: enc.n_train] != state.baseline].sum() == (
            pytest.approx(value)
        )
        rates = classes.gap.rates(model.z[: enc.n_train])
        assert rates.max() - rates.min() <= max_gap + 1e-9


def test_no_combination_within_a_budget_below_every_cut():
    auditor = _fitted(0.05)
    enc, state = auditor.session_.enc, auditor.session_.state
    search = OffsetSearch(enc, offset_classes(enc), min_gap=0.0)
    weights = state.problem.pattern_weight
    w = state.pool.models[0].w
    assert search.most_disagreement(w, state.baseline, weights, -1.0) is None


def test_offset_disagreement_models_lie_in_the_level_set_and_disagree():
    auditor = _fitted(0.05, seed=2)
    enc, state = auditor.session_.enc, auditor.session_.state
    budget = auditor.error_budget(0.1)
    weights = state.problem.pattern_weight
    rng = np.random.RandomState(0)
    directions = [m.w for m in state.pool.models] + [
        rng.normal(size=enc.p) for _ in range(20)
    ]
    models = offset_disagreement_models(
        enc, directions, state.baseline, weights, budget
    )
    assert models
    search = OffsetSearch(enc, offset_classes(enc), min_gap=0.0)
    most = max(
        r[0]
        for r in (
            search.most_disagreement(d, state.baseline, weights, budget)
            for d in directions
        )
        if r is not None
    )
    gains = []
    for model in models:
        assert model.errors <= budget + 1e-9
        assert in_class(enc, model)
        rates = enc.constraints[0].rates(model.z[: enc.n_train])
        assert rates.max() - rates.min() <= 0.05 + 1e-9
        gains.append(weights[model.z[: enc.n_train] != state.baseline].sum())
    assert max(gains) > 0
    # The class's margin may cost a cut between close scores, never more.
    assert max(gains) <= most + 1e-9


def test_no_offset_disagreement_models_without_classes_or_for_budgets_per_class():
    auditor = _fitted(0.05)
    enc, state = auditor.session_.enc, auditor.session_.state
    weights = state.problem.pattern_weight
    w = [state.pool.models[0].w]
    per_class = np.array([10.0, 10.0])
    assert offset_disagreement_models(enc, w, state.baseline, weights, per_class) == []
    plain = MultiplicityAuditor().fit(*_data()[:2])
    assert (
        offset_disagreement_models(
            plain.session_.enc,
            w,
            plain.session_.state.baseline,
            weights,
            plain.error_budget(0.05),
        )
        == []
    )


def test_offset_ascent_finds_no_less_than_its_start_and_stays_in_the_level_set():
    from sklearn_multiplicity._engine.binary.search._offset_models import (
        offset_ascent_models,
    )

    auditor = _fitted(0.05, seed=2)
    enc, state = auditor.session_.enc, auditor.session_.state
    budget = auditor.error_budget(0.1)
    weights = state.problem.pattern_weight
    start = min(state.pool.models, key=lambda m: m.errors)
    models = offset_ascent_models(enc, start, state.baseline, weights, budget)
    assert models
    search = OffsetSearch(enc, offset_classes(enc), min_gap=0.0)
    first = search.most_disagreement(start.w, state.baseline, weights, budget)[0]
    n = enc.n_train
    gains = [weights[m.z[:n] != state.baseline].sum() for m in models]
    for model in models:
        assert model.errors <= budget + 1e-9
        assert in_class(enc, model)
        rates = enc.constraints[0].rates(model.z[:n])
        assert rates.max() - rates.min() <= 0.05 + 1e-9
    assert max(gains) >= first - 1e-9
    # The same seed, the same models.
    again = offset_ascent_models(enc, start, state.baseline, weights, budget)
    assert [m.z.tolist() for m in again] == [m.z.tolist() for m in models]


def test_offset_ascent_stops_at_its_deadline_and_needs_a_start():
    from sklearn_multiplicity._engine.binary.search._offset_models import (
        offset_ascent_models,
    )
    from sklearn_multiplicity._engine.timing._scheduling import Deadline

    auditor = _fitted(0.05, seed=2)
    enc, state = auditor.session_.enc, auditor.session_.state
    budget = auditor.error_budget(0.1)
    weights = state.problem.pattern_weight
    assert offset_ascent_models(enc, None, state.baseline, weights, budget) == []
    start = min(state.pool.models, key=lambda m: m.errors)
    # An expired deadline: no step, so at most the start's own cuts.
    models = offset_ascent_models(
        enc, start, state.baseline, weights, budget, deadline=Deadline(0.0)
    )
    search = OffsetSearch(enc, offset_classes(enc), min_gap=0.0)
    first = search.most_disagreement(start.w, state.baseline, weights, budget)[0]
    n = enc.n_train
    assert len(models) <= 1
    for model in models:
        assert weights[model.z[:n] != state.baseline].sum() <= first + 1e-9


def test_ambiguity_ascent_flips_undecided_patterns_with_models_of_the_level_set():
    from sklearn_multiplicity._engine.timing._scheduling import Deadline

    auditor = _fitted(0.05, seed=2)
    session = auditor.session_
    enc, state = session.enc, session.state
    budget = auditor.error_budget(0.1)
    before = state.flippable(budget).copy()
    session.ambiguity.ascend(budget, Deadline(None))
    after = state.flippable(budget)
    assert np.all(after[before])
    assert after.sum() > before.sum()
    n = enc.n_train
    for u in np.flatnonzero(after & ~before):
        model = state.witness_of(u)
        assert model.z[u] != state.baseline[u]
        assert model.errors <= budget + 1e-9
        assert in_class(enc, model)
        rates = enc.constraints[0].rates(model.z[:n])
        assert rates.max() - rates.min() <= 0.05 + 1e-9
