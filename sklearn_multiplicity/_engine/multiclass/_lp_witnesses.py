"""Witness LPs: models that give one pattern another label, near a known one.

For an open pattern ``u`` and a label ``l`` other than its baseline label,
one linear program looks for a model of the class (the weight box) under
which ``u`` wins ``l`` by the margin while every other pattern keeps the
label of a reference model (the best model known within the ceiling) as
far as it can: each pattern's shortfall below the margin is a slack,
weighted by the pattern's weight, and the LP minimises their sum (a hinge
loss around the reference labelling). Its model's labels are then realised
with the class's margin by a second LP (a labelling realised with a margin
at least the class's is a model of the class), and the model is verified
like any other: its real labels and errors decide what it witnesses, often
flips of many patterns at once.

The technique applies to any number of labels and to per-label ceilings.
It yields witnesses (flips, disagreeing models) and no proofs: an LP's
optimum bounds nothing about 0-1 errors.
"""

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..._core import admits
from ..._core._hypothesis import predict, scores


def lp_witnesses(certifier, budget, deadline):
    """Pool the verified models the witness LPs find for the patterns of a
    :class:`~._certifier.MulticlassCertifier` still open at ``budget``,
    heaviest first, until ``deadline``."""
    ceiling = certifier.ceiling(budget)
    within = [m for m in certifier.pool if admits(m, ceiling)]
    if not within:
        return
    reference = min(within, key=lambda m: m.errors)
    lps = WitnessLPs(certifier, reference)
    weight = certifier.problem.pattern_weight
    witness, _, unflippable = certifier.flips(budget)
    for u in np.argsort(-weight, kind="stable"):
        if deadline.expired():
            return
        if witness[u] is not None or unflippable[u]:
            continue
        for label in lps.labels_to_try(u):
            model = lps.model_giving(u, label)
            if model is None or certifier.knows(model):
                continue
            certifier.add(model)
            if admits(model, ceiling):
                witness, _, unflippable = certifier.flips(budget)
                if witness[u] is not None:
                    break


class WitnessLPs:
    """The two LPs of :mod:`this technique <._lp_witnesses>` on one
    certifier, around the labelling of ``reference``.

    Parameters
    ----------
    certifier : MulticlassCertifier
    reference : MulticlassModel
        The model whose labels the hinge LP keeps where it can.
    """

    def __init__(self, certifier, reference):
        self.certifier = certifier
        self.reference = reference
        problem = certifier.problem
        self.X = certifier.enc.X
        self.K, self.p = problem.n_classes, self.X.shape[1]
        self.margin = certifier.hypothesis.margin
        w_lo, w_hi, b_lo, b_hi = certifier.hypothesis.weight_bounds(problem)
        self.bounds = [
            *zip(np.tile(w_lo, self.K - 1), np.tile(w_hi, self.K - 1), strict=True),
            *[(b_lo, b_hi)] * (self.K - 1),
        ]
        self.n_model = (self.K - 1) * (self.p + 1)
        self.weight = problem.pattern_weight / problem.weight_unit
        self.scores = scores(reference.W, reference.b, self.X)

    def labels_to_try(self, u):
        """The labels other than the baseline's at ``u``, those the reference
        scores highest first."""
        baseline = self.certifier.baseline_labels[u]
        order = np.argsort(-self.scores[u], kind="stable")
        return [int(label) for label in order if label != baseline]

    def model_giving(self, u, label):
        """A verified model giving pattern ``u`` ``label``, or ``None``."""
        labels = self.reference.labels.copy()
        labels[u] = label
        W, b = self._hinge(u, labels)
        if W is None:
            return None
        realised = self._realise(predict(W, b, self.X))
        if realised is None:
            return None
        return self.certifier.verify(*realised, source="witness LP")

    def _hinge(self, u, labels):
        """The hinge LP: ``u`` wins ``labels[u]`` by the margin, every other
        pattern ``v`` wins ``labels[v]`` by the margin less a weighted slack."""
        n = self.X.shape[0]
        diff, rows_of = self._differences(labels)
        slack = sp.csr_matrix(
            (np.ones(rows_of.size), (np.arange(rows_of.size), rows_of)),
            shape=(rows_of.size, n),
        )
        # ``u``'s rows take no slack: its slack variable is fixed at 0.
        A = sp.hstack([-diff, -slack], format="csr")
        cost = np.concatenate([np.zeros(self.n_model), self.weight])
        slack_bounds = [(0.0, None)] * n
        slack_bounds[u] = (0.0, 0.0)
        result = linprog(
            cost,
            A_ub=A,
            b_ub=np.full(A.shape[0], -self.margin),
            bounds=self.bounds + slack_bounds,
            method="highs",
        )
        if result.status != 0:
            return None, None
        return self._split(result.x[: self.n_model])

    def _realise(self, labels):
        """The model realising ``labels`` with the largest least gap in the
        box, when that gap reaches the class's margin (else ``None``)."""
        diff, _ = self._differences(labels)
        # Maximise t subject to every score difference >= t.
        A = sp.hstack([-diff, np.ones((diff.shape[0], 1))], format="csr")
        cost = np.zeros(self.n_model + 1)
        cost[-1] = -1.0
        result = linprog(
            cost,
            A_ub=A,
            b_ub=np.zeros(A.shape[0]),
            bounds=self.bounds + [(None, 1.0)],
            method="highs",
        )
        if result.status != 0 or result.x[-1] < self.margin * (1 + 1e-6):
            return None
        return self._split(result.x[: self.n_model])

    def _differences(self, labels):
        """Rows ``s_labels[v](x_v) - s_m(x_v)`` over the model's variables, one
        per pattern ``v`` and label ``m != labels[v]``; and each row's
        pattern."""
        K, p, X = self.K, self.p, self.X
        n = X.shape[0]
        pattern = np.repeat(np.arange(n), K - 1)
        winner = labels[pattern]
        other = np.tile(np.arange(K - 1), n)
        other = other + (other >= winner)  # every label but the winner's
        rows, cols, vals = [], [], []
        for cls, sign in ((winner, 1.0), (other, -1.0)):
            scored = np.flatnonzero(cls > 0)
            k = cls[scored] - 1
            r = np.repeat(scored, p)
            c = (k[:, None] * p + np.arange(p)).ravel()
            rows += [r, scored]
            cols += [c, (K - 1) * p + k]
            vals += [sign * X[pattern[scored]].ravel(), np.full(scored.size, sign)]
        diff = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(pattern.size, self.n_model),
        )
        return diff, pattern

    def _split(self, theta):
        W = theta[: (self.K - 1) * self.p].reshape(self.K - 1, self.p)
        return W, theta[(self.K - 1) * self.p :]
