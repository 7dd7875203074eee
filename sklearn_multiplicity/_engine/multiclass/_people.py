"""The labels a K-class level set gives people, new or training.

One rule decides, whoever answers (a pooled model or a MIP): a model gives a
person a label when that label's score is at least every other's (a tie
counts, as for two labels: the margin of the class binds training patterns
only). A person who is a training pattern is answered at the pattern, where
the margin makes every label strict. Both sides of the rule are closed sets
of models, so one feasibility MIP per (person, label) decides it exactly
(:func:`~.._mip._multiclass.lead`, :func:`~.._mip._multiclass.give_label`),
stopped at its first solution.

Pooled models answer first, for every person at once. Every model a MIP
finds joins the certifier's pool, where it answers other people and the
training measures for free; every proof that a label is out of reach is
kept (:class:`LabelProofs`) by person, label and error ceiling, so asking
again costs nothing. Training patterns proven to keep their label are fixed
in the MIPs (the level set holds no model that changes them).
"""

import numpy as np

from ..._core import LabelCeilings, Status, admits
from ..._core._level_set import covers
from ..._mip import _multiclass as formulations
from ._hull import HullProof
from ._proofs import kept_labels

#: A score within this of the leader's counts as a tie: a solver's solution
#: meets the closed score rows within its feasibility tolerance.
SCORE_TOLERANCE = 1e-9


class LabelProofs:
    """Proofs that a label is out of reach of a level set, by person.

    ``proven[(key, label)]`` lists the error ceilings (a weight, or
    per-label :class:`LabelCeilings`) within which no model gives the person
    ``key`` (a training pattern's index, or a new person's canonical row as
    bytes) the label; a proof within a ceiling holds within every ceiling it
    covers (:func:`~.._core._level_set.covers`).
    """

    def __init__(self):
        self.proven = {}

    def out_of_reach(self, key, label, ceiling):
        """Whether a proof covers ``label`` for ``key`` within ``ceiling``."""
        return any(
            covers(proven, ceiling) for proven in self.proven.get((key, int(label)), ())
        )

    def prove(self, key, label, ceiling):
        """Record that no model within ``ceiling`` gives ``key`` ``label``."""
        self.proven.setdefault((key, int(label)), []).append(ceiling)


def leaders(model, canonical):
    """``(n, K)`` mask of the labels ``model`` gives each canonical row: the
    labels whose score is within :data:`SCORE_TOLERANCE` of the highest."""
    scores = np.zeros((canonical.shape[0], model.W.shape[0] + 1))
    scores[:, 1:] = canonical @ model.W.T + model.b
    return scores >= scores.max(axis=1, keepdims=True) - SCORE_TOLERANCE


def label_sets(certifier, proofs, canonical, baseline, budget, deadline, *, any_other):
    """The labels that models within ``budget`` extra errors give each person.

    Parameters
    ----------
    certifier : MulticlassCertifier
    proofs : LabelProofs
    canonical : ndarray of shape (n_people, p)
        Distinct people, canonical and scaled.
    baseline : ndarray of int, shape (n_people,)
        The baseline's label of each.
    budget : float
        Extra weighted errors over the baseline's.
    deadline : Deadline
    any_other : bool
        Stop at a person's first label other than the baseline's (enough to
        decide ambiguity).

    Returns
    -------
    reachable, open_ : ndarray of bool, shape (n_people, n_classes)
        Labels a verified model of the level set gives the person (the
        baseline's always); labels neither reached nor proven out of reach
        (a limit stopped their MIP first).
    """
    problem = certifier.problem
    n, K = canonical.shape[0], problem.n_classes
    ceiling = certifier.ceiling(budget)
    pattern = training_patterns(certifier.enc.X, canonical)
    reachable = np.zeros((n, K), dtype=bool)
    reachable[np.arange(n), baseline] = True
    for model in certifier.within(budget):
        reachable |= _given(model, canonical, pattern)
    _, _, unflippable = certifier.flips(budget)
    kept = kept_labels(unflippable, certifier.baseline_labels)
    open_ = np.zeros((n, K), dtype=bool)
    hull = HullProof(certifier, ceiling)
    for i in range(n):
        training = pattern[i] >= 0
        if training and unflippable[pattern[i]]:
            continue  # the pattern keeps the baseline's label
        key = int(pattern[i]) if training else canonical[i].tobytes()
        if not training and reachable[i].sum() == 1 and not deadline.expired():
            if hull.keeps(canonical[i], baseline[i]):
                for label in np.flatnonzero(~reachable[i]):
                    proofs.prove(key, label, ceiling)
                continue
        for label in range(K):
            if any_other and reachable[i].sum() > 1:
                break
            if reachable[i, label] or proofs.out_of_reach(key, label, ceiling):
                continue
            if deadline.expired():
                open_[i, label] = True
                continue
            if training:
                mip = formulations.give_label(
                    certifier.enc, pattern[i], label, ceiling, kept_labels=kept
                )
            else:
                mip = formulations.lead(
                    certifier.enc, canonical[i], label, ceiling, kept_labels=kept
                )
            solved = certifier.solve(mip, deadline, first_solution=True)
            if solved is None:  # the deadline passed meanwhile
                open_[i, label] = True
                continue
            result, _, model = solved
            if model is not None and admits(model, ceiling):
                reachable |= _given(model, canonical, pattern)
            if reachable[i, label]:
                continue
            size = ceiling.total if isinstance(ceiling, LabelCeilings) else ceiling
            if result.status == Status.INFEASIBLE or result.bound > size + (
                1e-6 * max(1.0, size)
            ):
                proofs.prove(key, label, ceiling)
            else:
                open_[i, label] = True
    return reachable, open_ & ~reachable


def _given(model, canonical, pattern):
    """The labels ``model`` gives each person: its label of the pattern for
    a training pattern, its leaders elsewhere."""
    given = leaders(model, canonical)
    training = pattern >= 0
    given[training] = False
    given[np.flatnonzero(training), model.labels[pattern[training]]] = True
    return given


def training_patterns(X, canonical):
    """Index of the training pattern (a row of ``X``) each canonical row
    equals (-1: none)."""
    # ``+ 0.0`` makes -0.0 and 0.0 one key.
    index = {(row + 0.0).tobytes(): u for u, row in enumerate(X)}
    return np.array(
        [index.get((row + 0.0).tobytes(), -1) for row in canonical], dtype=int
    )
