"""Sparse classes as a union of small classes, one per support.

Under ``MaxNonzero(k)`` the class is the union, over the sets ``S`` of
``min(k, p)`` canonical weights, of the class whose weights outside ``S``
are zero. A pattern is flippable within a budget iff some support's class
flips it within that budget, and its fewest errors with a flip are the
least over the supports. On a support, patterns that agree on the columns
of ``S`` get the same score: grouped, they form a pattern problem of at
most ``2^k`` patterns on binary data, whose flip MIPs take milliseconds,
where the joint MIP with one binary indicator per weight takes minutes.

A support whose grouped patterns hold more unavoidable errors (each group's
minority label) than the budget has no model within it, and a group's
label against its majority adds that group's excess: most supports and
most flips are ruled out without a solver.

The decomposition is exact, not a relaxation: every support's class is
the same hypothesis class restricted to ``S`` (same scaling, box, margin
on every training pattern and signs), and any intercept beyond the range
of a support's scores only predicts one class, which the support's own
intercept range already covers.

This module holds the split itself (:func:`split_by_support`, one
:class:`Support` per set of columns) and :class:`CountedSolves`, which runs
the supports' tiny MIPs. The questions answered support by support live
beside it: flips in :mod:`._support_flips`, the minimum error in
:mod:`._support_min_error`, disagreement in :mod:`._support_disagreement`
and weight ranges in :mod:`._support_weights`.
"""

import itertools
import math
import time

import numpy as np

from ...._core import MIPLogEntry, PatternProblem, Status
from ...._mip import NonzeroRows, SignRows, encode

#: Most supports enumerated; beyond, the joint MIP is used.
MAX_SUPPORTS = 20_000
#: Most (support, pattern) pairs held in memory (a group index each).
MAX_ENTRIES = 20_000_000
#: Most groups on one support. Beyond, a support's MIPs are no longer tiny
#: (continuous columns keep every pattern apart) and the joint MIP is used:
#: on breast cancer (30 continuous features) under ``MaxNonzero(2)``, 60 s
#: of support MIPs settled 1 pattern where the joint MIP found a model of
#: 44 errors.
MAX_GROUPS = 256


class Support:
    """The class of models whose non-zero weights are among ``columns``.

    Parameters
    ----------
    enc : Encoding
        The encoding of the whole class.
    columns : ndarray of int
        Canonical weights that may be non-zero.
    codes : list of ndarray or None
        Per column of ``columns``, each pattern's value as its rank among
        the column's values (groups by integer keys); None groups by rows.
    """

    def __init__(self, enc, columns, codes=None):
        problem = enc.problem
        self.columns = np.asarray(columns, dtype=int)
        kept = problem.kept_columns[self.columns]
        first, inverse = _group(problem.patterns[:, kept], codes)
        groups = problem.patterns[first][:, kept]
        #: Group (pattern of the support's problem) of every training pattern.
        self.group_of = inverse.astype(np.int32)
        n = groups.shape[0]
        counts = np.column_stack(
            [
                np.bincount(self.group_of, weights=weight, minlength=n)
                for weight in problem.label_weights
            ]
        )
        self.problem = PatternProblem(
            groups,
            np.arange(n),
            counts,
            problem.classes,
            np.arange(self.columns.size),
            problem.offset[self.columns],
            problem.scale[self.columns],
        )
        self._enc = None
        self._signs = [c for c in enc.constraints if isinstance(c, SignRows)]
        self._hypothesis = enc.hypothesis

    @property
    def unavoidable(self):
        """Errors of every model of the support: each group's minority."""
        return self.problem.unavoidable_errors

    def label_lower(self, group, label):
        """Fewest errors, without a solver, of a model labelling ``group`` so."""
        positive = self.problem.positive_weight[group]
        negative = self.problem.negative_weight[group]
        excess = np.where(label, negative - positive, positive - negative)
        return self.unavoidable + np.maximum(excess, 0.0)

    @property
    def enc(self):
        """The encoding of the support's problem (built on first use)."""
        if self._enc is None:
            signs = [SignRows(c.signs[self.columns], c.names) for c in self._signs]
            self._enc = encode(self.problem, self._hypothesis, constraints=signs)
        return self._enc

    def lift(self, w, p):
        """The weights ``w`` of the support as weights of all ``p`` columns."""
        full = np.zeros(p)
        full[self.columns] = w
        return full


class CountedSolves:
    """Solve the supports' tiny MIPs within ``deadline``, and sum them up as
    one entry of the audit's log rather than one entry each.

    Parameters
    ----------
    solvers : Solvers
    deadline : Deadline
    """

    def __init__(self, solvers, deadline):
        self.solvers = solvers
        self.deadline = deadline
        self.count = 0
        self.start = time.perf_counter()

    def __call__(self, mip):
        self.count += 1
        return self.solvers.solve(mip, self.deadline)

    def note(self, state, name, finished, value, bound, what):
        """Log the phase ``name``: ``what`` it did, ``finished`` or stopped."""
        state.note(
            MIPLogEntry(
                mip=name,
                status=Status.OPTIMAL if finished else Status.FEASIBLE,
                objective=float(value),
                bound=float(bound),
                seconds=time.perf_counter() - self.start,
                solver=self.solvers.backend.name,
                message=f"{what} by {self.count} MIPs of single supports"
                + ("" if finished else " (stopped by the time limit)"),
            )
        )


class SupportSplit:
    """The supports of a sparse class, for exact answers by enumeration.

    Use :func:`split_by_support` to build one when it applies.

    Parameters
    ----------
    enc : Encoding
    supports : list of Support
        Kept in order of their unavoidable errors.
    """

    def __init__(self, enc, supports):
        self.enc = enc
        #: Fewest unavoidable errors first: the likeliest to hold good models.
        self.supports = sorted(supports, key=lambda s: s.unavoidable)


def _group(rows, codes):
    """Index of one row of each distinct row of ``rows``, and every row's group.

    ``codes`` (per column, each row's value as a rank) give one mixed-radix
    integer key per row when it fits in 62 bits.
    """
    sizes = [int(c.max()) + 1 if c.size else 1 for c in codes or ()]
    if codes is None or math.prod(sizes) >= 2**62:
        _, first, inverse = np.unique(
            rows, axis=0, return_index=True, return_inverse=True
        )
        return first, inverse.ravel()
    key = np.zeros(rows.shape[0], dtype=np.int64)
    for code, size in zip(codes, sizes, strict=True):
        key = key * size + code
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def split_by_support(enc):
    """A :class:`SupportSplit` of ``enc``'s class, or None when it does not apply.

    It applies when the constraints are one ``MaxNonzero`` below the number
    of weights (and, at most, fixed signs), with no more than
    :data:`MAX_SUPPORTS` supports, :data:`MAX_ENTRIES` supports times
    training patterns, and :data:`MAX_GROUPS` groups on any support.
    """
    nonzero = [c for c in enc.constraints if isinstance(c, NonzeroRows)]
    others = [c for c in enc.constraints if not isinstance(c, (NonzeroRows, SignRows))]
    if len(nonzero) != 1 or others:
        return None
    k = nonzero[0].k
    if k >= enc.p:
        return None
    n_supports = math.comb(enc.p, k)
    if n_supports > MAX_SUPPORTS or n_supports * enc.n_train > MAX_ENTRIES:
        return None
    problem = enc.problem
    # Each column's values as small integers, so that a support's groups
    # come from one integer key per pattern (a row-wise unique is slower).
    codes = [
        np.unique(problem.patterns[:, j], return_inverse=True)[1].ravel()
        for j in problem.kept_columns
    ]
    # The columns of most distinct values first: a support too large for
    # tiny MIPs (continuous columns) is then met at once.
    by_values = np.argsort([-c.max(initial=0) for c in codes], kind="stable")
    supports = []
    for columns in itertools.combinations(by_values, k):
        columns = np.sort(columns)
        support = Support(enc, columns, [codes[j] for j in columns])
        if support.problem.n_patterns > MAX_GROUPS:
            return None
        supports.append(support)
    return SupportSplit(enc, supports)
