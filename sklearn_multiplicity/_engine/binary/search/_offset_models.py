"""Models of the class under a rate gap, from per-class cuts of directions.

The heuristics' entry points to :class:`~._offset_search.OffsetSearch`:
models flipping candidates (:func:`offset_flip_models`), models of most
disagreement with the baseline for given directions
(:func:`offset_disagreement_models`) and from a random ascent over
directions (:func:`offset_ascent_models`). Every model is brought into the
class and verified; all are empty when the class has no offset classes
(:func:`~._offsets.offset_classes`).
"""

import numpy as np

from ...._core import LevelSet, verify
from ...._core._models import in_class
from ...._mip import realise
from ._offset_search import TIE, OffsetSearch
from ._offsets import offset_classes

#: Random steps of one ascent over directions (about 1 ms each on COMPAS).
ASCENT_STEPS = 2000
#: Ascents from the same start, each with its own random steps: their
#: results vary widely (on COMPAS under a 2-point race gap, from 3.3% to
#: 11.6% of the people over ten), so several are worth more than one long.
ASCENT_RESTARTS = 10
#: An ascent stops after this many steps in a row without a gain.
ASCENT_PATIENCE = 300
#: A step moves each weight outside the offset columns with this chance, by
#: a normal amount of this scale (times the largest weight). On COMPAS
#: under a 2-point race gap, ten ascents found at most 1.0% of the people
#: when every weight moves at each step, 5.3% to 6.7% with chances from 0.07
#: to 0.3 and scales from 0.02 to 0.1, and 3.4% at a scale of 0.2.
STEP_CHANCE = 0.3
STEP_SCALE = 0.05


def offset_disagreement_models(
    enc, directions, baseline, weights, budget, *, deadline=None, max_models=20
):
    """Models of the class within ``budget`` disagreeing most with the
    baseline, by per-class cuts of each direction.

    Each direction's best combination of cuts (see
    :meth:`~._offset_search.OffsetSearch.most_disagreement`) is a
    candidate; the ``max_models`` that disagree most are brought into the
    class (by scaling, else by their labelling's max-margin LP) and verified.

    Empty when the class has no offset classes (see
    :func:`~._offsets.offset_classes`) or the budget is not one number.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or not directions:
        return []
    search = OffsetSearch(enc, classes, TIE)
    k = enc.n_train
    baseline = np.asarray(baseline[:k], dtype=bool)
    weights = np.asarray(weights, dtype=float)[:k]
    candidates = []
    for direction in directions:
        if deadline is not None and deadline.expired():
            break
        best = search.most_disagreement(direction, baseline, weights, budget)
        if best is not None and best[0] > 0:
            candidates.append(best)
    candidates.sort(key=lambda item: -item[0])
    found, seen = [], set()
    for _, _, (w, b) in candidates:
        if len(found) >= max_models or (deadline is not None and deadline.expired()):
            break
        z = enc.X[:k] @ w + b > 0
        key = np.packbits(z).tobytes()
        if key in seen:
            continue
        seen.add(key)
        model = _in_class(enc, w, b)
        if model is not None and LevelSet.within(model.errors, budget):
            found.append(model)
    return found


def offset_ascent_models(
    enc, start, baseline, weights, budget, *, deadline=None, seed=0
):
    """Models of the class within ``budget`` found by a random ascent over
    directions, each scored by its per-class cuts of most disagreement.

    From the direction of ``start``, a step adds normal noise to some of
    the weights outside the offset columns and is kept when its best cuts
    (:meth:`~._offset_search.OffsetSearch.most_disagreement`) disagree no
    less; each of :data:`ASCENT_RESTARTS` ascents takes :data:`ASCENT_STEPS`
    steps at most, and stops after :data:`ASCENT_PATIENCE` in a row without
    a gain.
    The search over cuts is exact for each direction, so the ascent moves
    only the direction; the best combination of each ascent is verified
    and kept when it lies in the class within the budget.

    Empty when the class has no offset classes, the budget is not one
    number or ``start`` is ``None``.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or start is None:
        return []
    search = OffsetSearch(enc, classes, TIE)
    k = enc.n_train
    baseline = np.asarray(baseline[:k], dtype=bool)
    weights = np.asarray(weights, dtype=float)[:k]
    movable = np.ones(enc.p, dtype=bool)
    movable[classes.columns] = False
    rng = np.random.default_rng(seed)
    own_cuts = search.most_disagreement(start.w, baseline, weights, budget)
    found = []
    for _ in range(ASCENT_RESTARTS):
        direction, best = np.array(start.w, dtype=float), own_cuts
        since_gain = 0
        for _ in range(ASCENT_STEPS):
            if since_gain >= ASCENT_PATIENCE or (
                deadline is not None and deadline.expired()
            ):
                break
            moved = rng.uniform(size=enc.p) < STEP_CHANCE
            step = rng.normal(size=enc.p) * (moved & movable)
            trial = direction + STEP_SCALE * np.abs(direction).max() * step
            value = search.most_disagreement(trial, baseline, weights, budget)
            since_gain += 1
            if value is None or (best is not None and value[0] < best[0]):
                continue
            # Equal values are kept too: the ascent drifts along plateaus.
            if best is None or value[0] > best[0]:
                since_gain = 0
            direction, best = trial, value
        if best is not None and best[0] > 0:
            model = _in_class(enc, *best[2])
            if model is not None and LevelSet.within(model.errors, budget):
                found.append(model)
        if deadline is not None and deadline.expired():
            break
    return found


def offset_flip_models(enc, directions, baseline, candidates, budget):
    """Models of the class within ``budget`` flipping candidates, by per-class cuts.

    Cuts are taken between any two distinct scores; once the offsets are
    set, the margin of the class may need another scaling than the
    direction's, so each labelling found is brought into the class by its
    max-margin LP when plain scaling does not do it. Candidates are taken
    cheapest first, and one whose flip a model already found makes is
    skipped, so that few LPs are solved.

    Empty when the class has no offset classes (see
    :func:`~._offsets.offset_classes`) or the budget is not one number.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or candidates.size == 0 or not directions:
        return []
    candidates = np.asarray(candidates, dtype=np.int64)
    errors, models = OffsetSearch(enc, classes, TIE).flips(
        directions, baseline, candidates
    )
    found = []
    flipped = np.zeros(baseline.size, dtype=bool)
    for i in np.argsort(errors, kind="stable"):
        if not LevelSet.within(errors[i], budget):
            break
        if flipped[candidates[i]]:
            continue
        model = _in_class(enc, *models[i])
        if model is None or not LevelSet.within(model.errors, budget):
            continue
        found.append(model)
        flipped |= model.z[: baseline.size] != baseline
    return found


def _in_class(enc, w, b):
    """The model ``(w, b)`` scaled into the class, else its labelling's
    max-margin model of the class, else ``None``."""
    fitted = enc.hypothesis.fit_model(enc.problem, w, b)
    if fitted is not None:
        model = verify(enc, *fitted, source="offset thresholds")
        if in_class(enc, model):
            return model
    z = verify(enc, w, b).z
    solution = realise(enc, z)
    if solution is None:
        return None
    model = verify(enc, *solution, source="offset thresholds")
    return model if in_class(enc, model) and np.array_equal(model.z, z) else None
