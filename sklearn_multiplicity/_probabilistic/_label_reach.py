"""Which labels the models of the level set give each person (K labels).

The stages of :meth:`~._level_set.LevelSet.label_reach`, cheapest
first, each settling what it can and passing the rest on:

1. the baseline's own labels;
2. the outer ellipsoid's certified *no* (:mod:`._score_ellipsoids`);
3. the inner ellipsoid's points: models of the set by its certificate, so a
   pair they reach costs no evaluation of ``F``
   (:func:`~._score_ellipsoids.ellipsoid_witnesses`);
4. the walk (:mod:`._label_walk`): one evaluation of ``F`` over the
   training rows per step, shared by every pair the model gives;
5. the exact per-pair solver (:mod:`._label_cone`).
"""

import contextlib
import time
from dataclasses import dataclass

import numpy as np

from .._core import Bounds
from .._engine import Deadline
from ._label_cone import NO, OPEN, YES, ConeProblem, settle_pairs
from ._label_walk import Harvest, LabelWalk
from ._objective import level_slack
from ._score_ellipsoids import ellipsoid_witnesses
from ._threads import in_threads

#: How each pair was settled.
BASELINE, OUTER, WALK, EXACT, INNER = 0, 1, 2, 3, 4
#: Pairs per parallel chunk of the walk.
CHUNK = 2048


@dataclass
class LabelReach:
    """Which labels the models of the level set give each person.

    ``status[i, l]`` is ``YES`` (a model of the set, :meth:`witness`, gives
    ``l``), ``NO`` (certified: no model does) or ``OPEN`` (tied with the
    level within the numeric tolerance, or stopped by the deadline);
    ``settled_by`` says which stage decided (``BASELINE``, ``OUTER``,
    ``INNER``, ``WALK``, ``EXACT``; -1 for open pairs).
    """

    status: np.ndarray
    settled_by: np.ndarray
    baseline: np.ndarray
    harvest: Harvest
    eps: float = 0.0

    @property
    def complete(self):
        return not np.any(self.status == OPEN)

    def witness(self, person, label):
        """A model of the set (p,) giving ``person`` the ``label`` (YES pairs)."""
        return self.harvest.model(person, label)

    def ambiguity(self, sample_weight=None):
        """Certified share of people some model gives another label."""
        n = len(self.baseline)
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        other = np.ones_like(self.status, dtype=bool)
        other[np.arange(n), self.baseline] = False
        sure = np.any((self.status == YES) & other, axis=1)
        possible = np.any((self.status != NO) & other, axis=1)
        return Bounds(float(w @ sure / w.sum()), float(w @ possible / w.sum()))


def reach_labels(level_set, X, eps, *, deadline=None, n_jobs=None, progress=None):
    """The stages of :meth:`~._level_set.LevelSet.label_reach`
    (see there for the parameters)."""
    deadline = Deadline(None) if deadline is None else deadline
    obj, K = level_set.objective, level_set.objective.K
    rows = obj.augment(np.asarray(X, dtype=float))
    n = rows.shape[0]
    start = time.perf_counter()
    base = level_set.baseline_scores(rows)
    baseline = np.argmax(base, axis=1)
    shift = 1e-8 * (1 + np.abs(base).max(initial=0.0))
    level = level_set.level(eps)
    harvest = Harvest(obj, rows, shift)
    # The baseline is in the set by definition (F = level - eps).
    harvest.add(level_set.theta0[:, None], level + level_slack(level))
    status = np.full((n, K), OPEN)
    settled = np.full((n, K), -1)
    status[np.arange(n), baseline] = YES
    settled[np.arange(n), baseline] = BASELINE
    _mark_reached(harvest, status, settled, BASELINE)
    people, labels = np.nonzero(status == OPEN)
    asked = people.size
    out = level_set.outer_refutes(rows, people, labels, eps)
    status[people[out], labels[out]], settled[people[out], labels[out]] = NO, OUTER
    people, labels = np.nonzero(status == OPEN)
    found, models = ellipsoid_witnesses(
        obj, level_set.inner(eps), rows, people, labels, shift, deadline
    )
    harvest.record(people[found], labels[found], models)
    _mark_reached(harvest, status, settled, INNER)
    people, labels = np.nonzero(status == OPEN)
    if progress is not None:
        progress.line(
            f"{asked} pairs (person, other label) of {n} people; in "
            f"{time.perf_counter() - start:.2f} s the outer ellipsoid refuted "
            f"{int(out.sum())}, the inner ellipsoid reached {int(found.sum())}; "
            f"{people.size} left to the walk"
        )
    # The minimiser, its inverse Hessian and the outer ellipsoid.
    shared = (level_set.center, level_set.H_inv, level, shift, level_set.outer(eps))
    if not deadline.expired():
        walk = LabelWalk(obj, *shared)
        _walk_stage(walk, rows, status, settled, harvest, deadline, n_jobs, progress)
    if not deadline.expired():
        problem = ConeProblem(obj, *shared)
        _exact_stage(
            problem, rows, status, settled, harvest, deadline, n_jobs, progress
        )
    left = int(np.sum(status == OPEN))
    if progress is not None and left and deadline.expired():
        progress.line(f"time limit reached: {left} pairs left open")
    return LabelReach(status, settled, baseline, harvest, eps)


def _walk_stage(walk, rows, status, settled, harvest, deadline, n_jobs, progress):
    """The walk over the open pairs (settled in ``status`` and ``settled``),
    with a bar of those it settles (``progress``)."""
    people, labels = np.nonzero(status == OPEN)
    if people.size == 0:
        return
    # A fixed random order: the pairs of one person spread out.
    order = np.random.RandomState(0).permutation(people.size)
    people, labels = people[order], labels[order]
    start = time.perf_counter()

    def reached():
        return int(np.count_nonzero(harvest.reached[people, labels]))

    bar = (
        contextlib.nullcontext(lambda k: None)
        if progress is None
        else progress.stage("walk", people.size, reached)
    )
    with bar as count:

        def run(part):
            refuted = walk.run(rows, people[part], labels[part], harvest, deadline)
            count(int(refuted.sum()))
            return refuted

        parts = in_threads(run, people.size, CHUNK, n_jobs)
    refuted = np.concatenate(parts) if parts else np.zeros(0, dtype=bool)
    status[people[refuted], labels[refuted]] = NO
    settled[people[refuted], labels[refuted]] = WALK
    _mark_reached(harvest, status, settled, WALK)
    if progress is not None:
        _stage_line(
            progress,
            "walk",
            status,
            people,
            labels,
            start,
            f" ({int(refuted.sum())} out of reach)",
            "passed on to the exact solver",
        )


def _exact_stage(problem, rows, status, settled, harvest, deadline, n_jobs, progress):
    """The exact per-pair solver on the open pairs."""
    people, labels = np.nonzero(status == OPEN)
    if people.size == 0:
        return
    start = time.perf_counter()
    found, models, _ = settle_pairs(
        problem, rows, people, labels, deadline=deadline, n_jobs=n_jobs
    )
    yes = found == YES
    harvest.add(models[:, yes], problem.level - problem.slack)
    no = found == NO
    status[people[no], labels[no]], settled[people[no], labels[no]] = NO, EXACT
    _mark_reached(harvest, status, settled, EXACT)
    if progress is not None:
        _stage_line(
            progress, "exact solver", status, people, labels, start, "", "left open"
        )


def _stage_line(progress, name, status, people, labels, start, detail, rest):
    """The line of a stage given the pairs ``(people, labels)`` at ``start``:
    how many it settled, then ``detail``, and what becomes of the ``rest``."""
    left = int(np.sum(status[people, labels] == OPEN))
    progress.line(
        f"{name} settled {people.size - left} of {people.size} pairs in "
        f"{time.perf_counter() - start:.2f} s{detail}"
        + (f"; {left} {rest}" if left else "")
    )


def _mark_reached(harvest, status, settled, stage):
    new = harvest.reached & (status == OPEN)
    status[new], settled[new] = YES, stage
