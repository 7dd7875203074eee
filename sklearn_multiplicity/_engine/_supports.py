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
"""

import itertools
import math
import time

import numpy as np

from .._core import (
    TOLERANCE,
    ClassBudget,
    LevelSet,
    MIPLogEntry,
    PatternProblem,
    Status,
    admits,
    verify,
)
from .._mip import NonzeroRows, SignRows, _formulations, encode

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
        positive = np.bincount(
            self.group_of, weights=problem.positive_weight, minlength=n
        )
        negative = np.bincount(
            self.group_of, weights=problem.negative_weight, minlength=n
        )
        self.problem = PatternProblem(
            groups,
            np.arange(n),
            positive,
            negative,
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


def certify_flips(state, split, budget, solve, deadline, *, exact=False):
    """Settle the undecided patterns of ``state`` at ``budget``, support by support.

    Every model found is added to ``state`` (its flips are witnessed). When
    every support has been searched, each undecided pattern's flip lower
    bound is raised to the least over the supports: the exact fewest errors
    where a support's flip MIP found it, else what that support proved.

    Parameters
    ----------
    state : AuditState
    split : SupportSplit
    budget : float
        Weighted error budget (a :class:`ClassBudget` is not split).
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult` within the request's time.
    deadline : Deadline
    exact : bool
        Also pin the fewest errors of flips within ``budget`` (paths).

    Returns
    -------
    bool
        Whether every support was searched (the lower bounds were raised).
    """
    if isinstance(budget, ClassBudget):
        return False
    todo = state.undetermined(budget, exact=exact)
    if todo.size == 0:
        return True
    flip_label = ~state.baseline[todo]
    lower = np.full(todo.size, np.inf)
    above = state.level_set.above(budget)
    for support in split.supports:
        groups = support.group_of[todo]
        bound = support.label_lower(groups, flip_label)
        needed = LevelSet.within(bound, budget)
        for group, label in _pairs(groups[needed], flip_label[needed]):
            if deadline.expired():
                return False
            mine = needed & (groups == group) & (flip_label == label)
            known = state.flip_upper[todo[mine]]
            if np.all(bound[mine] >= known):
                continue  # no better flip here: the screen's bound stands
            if not exact and np.all(LevelSet.within(known, budget)):
                # Already witnessed: the pair's fewest errors are not needed
                # at this budget, but then its bound is unknown.
                bound[mine] = -np.inf
                continue
            result = solve(
                _formulations.flip(support.enc, group, int(label), budget=budget)
            )
            bound[mine] = _learn(state, support, result, above)
        lower = np.minimum(lower, bound)
    state.raise_flip_lower(todo, lower)
    return True


def _pairs(groups, labels):
    """The distinct ``(group, label)`` pairs, in order of first appearance."""
    seen = {}
    for group, label in zip(groups.tolist(), labels.tolist(), strict=True):
        seen.setdefault((group, label), None)
    return list(seen)


def _learn(state, support, result, above):
    """Add the model of a support's flip MIP; the bound it proves."""
    if result.has_solution:
        w, b, _ = support.enc.decode(result.x)
        full = support.lift(w, state.enc.p)
        state.add_model(verify(state.enc, full, b, source="support flip"))
    if result.status == Status.INFEASIBLE:
        return above
    if result.status != Status.ERROR and np.isfinite(result.bound):
        return result.bound
    return -np.inf


def fewest_errors(enc, split, solve, deadline, incumbent):
    """The minimum error of the sparse class: the least over its supports.

    Parameters
    ----------
    enc : Encoding
        The whole class's encoding (models are verified on it).
    split : SupportSplit
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult`.
    deadline : Deadline
    incumbent : float
        Errors of a known model of the class: a support whose unavoidable
        errors reach it holds no better model and gets no MIP.

    Returns
    -------
    models : list of CanonicalModel
        The verified models the supports' MIPs found.
    lower : float
        Certified lower bound on the minimum error (``-inf`` unless every
        support was searched).
    """
    models, lower, best = [], np.inf, incumbent
    for support in split.supports:
        if support.unavoidable >= best:
            lower = min(lower, support.unavoidable)
            continue
        if deadline.expired():
            return models, -np.inf
        result = solve(_formulations.min_error(support.enc))
        bound = support.unavoidable
        if result.has_solution:
            w, b, _ = support.enc.decode(result.x)
            model = verify(enc, support.lift(w, enc.p), b, source="support min_error")
            models.append(model)
            best = min(best, model.errors)
        if result.status == Status.INFEASIBLE:  # pragma: no cover - a constant fits
            bound = np.inf
        elif result.status != Status.ERROR and np.isfinite(result.bound):
            bound = max(bound, result.bound)
        lower = min(lower, bound)
    return models, lower


def most_disagreement(state, split, budget, weights, solve, deadline):
    """An upper bound on the most ``weights`` a model within ``budget`` flips
    (see :func:`disagreement_frontier`, at one budget).

    Returns
    -------
    float
        The bound (``inf`` unless every support was searched, or when the
        budget is a :class:`ClassBudget`).
    """
    if isinstance(budget, ClassBudget):
        return np.inf
    budgets = np.array([float(budget)])
    upper = disagreement_frontier(state, split, budgets, weights, solve, deadline)
    return np.inf if upper is None else float(upper[0])


def disagreement_frontier(state, split, budgets, weights, solve, deadline):
    """The most ``weights`` of disagreement at every one of ``budgets``,
    support by support.

    Each support's disagreement MIP runs on its groups, whose members may
    have different baseline labels: a group labelled positive disagrees
    with the weight of its members the baseline predicts negative, and the
    other way round. Supports are taken by the most they could flip.

    On each support the most disagreement is a step function of the budget.
    Its steps are walked down from the largest budget: the disagreement MIP
    at budget ``B`` finds a model of ``e <= B`` errors and the most
    disagreement ``d`` of the support at ``B``, which is then also the most
    at every budget from ``e`` to ``B``; the walk goes on at ``e - 1``. A
    support stops when it cannot beat the models known at the budgets left.

    Parameters
    ----------
    state : AuditState
    split : SupportSplit
    budgets : ndarray
        Weighted error budgets, ascending.
    weights : ndarray of shape (n_patterns,)
        Weight of disagreeing on each pattern.
    solve : callable
        ``solve(mip)`` returns a :class:`MIPResult`.
    deadline : Deadline

    Returns
    -------
    ndarray or None
        Certified upper bounds on the disagreement at each budget; models
        found are added to ``state``. None when time ran out.
    """
    _, lower = best_within_each(state, budgets, weights)
    upper = np.zeros(budgets.size)
    baseline = state.baseline
    options = []
    for support in split.supports:
        if not LevelSet.within(support.unavoidable, budgets[-1]):
            continue
        n = support.problem.n_patterns
        to_positive = np.bincount(support.group_of, weights * ~baseline, minlength=n)
        to_negative = np.bincount(support.group_of, weights * baseline, minlength=n)
        most = float(np.maximum(to_positive, to_negative).sum())
        options.append((most, support, to_positive, to_negative))
    options.sort(key=lambda option: -option[0])
    for most, support, to_positive, to_negative in options:
        has_model = LevelSet.within(support.unavoidable, budgets)
        kept = float(np.minimum(to_positive, to_negative).sum())
        bound, top = most, budgets.size - 1  # ``bound`` holds at budgets[: top + 1]
        while top >= 0 and has_model[top]:
            beaten = has_model[: top + 1] & (lower[: top + 1] < bound - TOLERANCE)
            if not beaten.any():
                break  # the models known are as good at every budget left
            top = int(np.flatnonzero(beaten)[-1])
            if deadline.expired():
                return None
            result = solve(
                _formulations.max_disagreement(
                    support.enc,
                    to_negative > to_positive,
                    budgets[top],
                    weights=np.abs(to_positive - to_negative),
                    name=f"max_disagreement[support {support.columns.tolist()}]",
                )
            )
            if result.status == Status.INFEASIBLE:
                break  # no model within this budget, nor within smaller ones
            if result.status != Status.ERROR and np.isfinite(result.bound):
                bound = min(bound, float(result.bound + kept))
            step = _learn_step(state, support, result, bound, budgets, weights, lower)
            if step is None:  # a limit stopped the MIP: its bound holds below too
                upper[: top + 1] = np.maximum(upper[: top + 1], bound)
                break
            # The model attains the bound from its own errors up to ``top``.
            reached = np.arange(budgets.size) <= top
            reached &= budgets >= step - TOLERANCE
            upper[reached] = np.maximum(upper[reached], bound)
            top = int(np.flatnonzero(reached)[0]) - 1
    return np.maximum(upper, lower)


def _learn_step(state, support, result, bound, budgets, weights, lower):
    """Add the model of a support's disagreement MIP; its errors if it
    attains ``bound`` (else None). ``lower`` is raised where it is within."""
    if not result.has_solution:
        return None
    w, b, _ = support.enc.decode(result.x)
    full = support.lift(w, state.enc.p)
    model = state.add_model(verify(state.enc, full, b, source="support disagreement"))
    if model is None:
        return None
    value = state.disagreement(model, weights)
    within = budgets >= model.errors - TOLERANCE
    lower[within] = np.maximum(lower[within], value)
    return model.errors if value >= bound - TOLERANCE else None


def best_within_each(state, budgets, weights):
    """The pooled model of most ``weights`` of disagreement within each budget.

    Returns
    -------
    models : list
        One model per budget (None where no pooled model is within it).
    values : ndarray
        Their disagreement (0 where there is none).
    """
    models = state.pool.models
    values = np.zeros(budgets.size)
    if not models:
        return [None] * budgets.size, values
    errors = np.array([m.errors for m in models])
    disagreement = np.array([state.disagreement(m, weights) for m in models])
    order = np.argsort(errors, kind="stable")
    running = np.maximum.accumulate(disagreement[order])
    # Position in ``order`` of the best model among the first i + 1.
    new_best = np.r_[True, disagreement[order][1:] > running[:-1]]
    where_best = np.maximum.accumulate(np.where(new_best, np.arange(order.size), 0))
    n_within = np.searchsorted(errors[order], budgets + TOLERANCE, side="right")
    some = n_within > 0
    values[some] = running[n_within[some] - 1]
    best = [models[order[where_best[n - 1]]] if n > 0 else None for n in n_within]
    return best, values


def weight_end(state, split, budget, j, maximize, solve, deadline):
    """A certified bound on the largest (or least) weight ``j`` of a model
    within ``budget``, support by support.

    On a support without ``j`` the weight is 0, attained when the support
    holds a model within the budget; on the others, the weight's own MIP on
    the support's groups. Supports are skipped once a known model reaches
    what they could give.

    Returns
    -------
    float or None
        The bound on the end (models found are added to ``state``); None when
        time ran out or the budget is a :class:`ClassBudget`.
    """
    if isinstance(budget, ClassBudget):
        return None
    sign = 1.0 if maximize else -1.0
    w_lo, w_hi, _, _ = state.enc.weight_bounds()
    edge = sign * float(w_hi[j] if maximize else w_lo[j])

    # The best known end, kept up to date as models are found (the pool is
    # scanned once, not at every support).
    best = max((sign * m.w[j] for m in state.pool.within(budget)), default=-np.inf)
    outer = -np.inf  # bound on sign * w_j over the supports searched
    for support in split.supports:
        if not LevelSet.within(support.unavoidable, budget):
            continue
        inside = np.flatnonzero(support.columns == j)
        if best >= edge - TOLERANCE:
            return float(sign * edge)  # a known model reaches the box
        if not inside.size and best >= 0:
            outer = max(outer, 0.0)  # zero is known to be attained
            continue
        if deadline.expired():
            return None
        if inside.size:
            mip = _formulations.coefficient(
                support.enc, int(inside[0]), budget, maximize=maximize
            )
        else:
            mip = _formulations.min_error(support.enc)
        result = solve(mip)
        if result.has_solution:
            w, b, _ = support.enc.decode(result.x)
            full = support.lift(w, state.enc.p)
            model = state.add_model(verify(state.enc, full, b, source="support weight"))
            if model is not None and admits(model, budget):
                best = max(best, sign * model.w[j])
        if result.status == Status.INFEASIBLE:
            continue
        if not inside.size:
            # Zero is attained iff the support's fewest errors fit the budget.
            feasible = result.status == Status.ERROR or not np.isfinite(result.bound)
            if feasible or LevelSet.within(result.bound, budget):
                outer = max(outer, 0.0)
            continue
        claim = edge
        if result.status != Status.ERROR and np.isfinite(result.bound):
            claim = min(edge, sign * float(result.bound))
        outer = max(outer, claim)
    return float(sign * max(outer, best))
