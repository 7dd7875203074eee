"""What an audit can be expected to certify, judged before any MIP runs.

:func:`assess` reads the signals the problem shows at no MIP's time (its
distinct patterns, affinely independent columns, binary or continuous
features, the error budget, and the LP relaxation of the minimum-error MIP at
the root, against the best model known without a solver) and states the
regime, with its reasons and the routes that would answer (an
:class:`~._records.Assessment`). The regime accounts for the time given: a
problem whose MIPs prove their bounds is expected to certify within the
seconds :func:`seconds_to_certify` estimates from its patterns and the gap
its root LP leaves, and is assessed ``"bands"`` under a smaller limit, with
the time that would certify it. A route that changes the patterns (a coarser
encoding, a sample) is probed the same way: its pattern count and regime.
:func:`assess_labels` applies the same rule to K labels, with the root LP of
the K-label minimum-error MIP and the seconds its audits take.

Its thresholds are calibrated by ``benchmarks/bench_everyday.py``,
``bench_assessment.py`` and, for K labels, ``bench_label_proofs.py``, whose
records (``benchmarks/README.rst``) give the measurements behind them.
"""

import time
from dataclasses import dataclass

import numpy as np

from ..._core import PatternProblem
from ..._core._hypothesis import predict
from ..._core._problem import distinct_rows
from ..._mip import IdentitySeparator, _formulations, _multiclass, encode, lp_bound
from .._records import REGIME_WORDS, Assessment, Route
from ..multiclass._first_pass import logistic_fits
from ..timing._plans import ASSESSMENT_LP_SECONDS

#: Distinct patterns above which only witnessed lower bounds are realistic:
#: every MIP has that many binaries (29,940 patterns at 60 s: no upper bound
#: on ambiguity or discrepancy, the minimum error in [0.03%, 21.3%]).
LARGE_PROBLEM_PATTERNS = 2000
#: Distinct patterns up to which the MIPs certify whatever the relaxation:
#: samples of breast cancer (6 continuous columns) certified at 30 patterns
#: in 6 s, left ambiguity [47%, 95%] at 60 patterns after 20 s and
#: [50%, 99%] at 100 patterns after 60 s.
SMALL_PROBLEM_PATTERNS = 40
#: Fraction of the best known model's errors the root LP must prove for the
#: MIPs to certify (COMPAS 98%, demo 75%; German credit, breast cancer:
#: under 0.01%).
LP_PROVED_FRACTION = 0.5
#: Seconds the exact audit of a tolerance takes per distinct pattern and
#: affinely independent column when the root LP leaves no gap to the best
#: model known.
CERTIFY_TIME_PER_PATTERN_COLUMN = 2.3e-3
#: The gap the root LP leaves, in patterns of mean weight, that multiplies
#: the expected seconds by e: the branch and bound closes that gap.
GAP_PATTERNS_PER_E = 1.5
#: The gap counted at most on a problem of at most
#: ``SMALL_PROBLEM_PATTERNS`` patterns: its root LP may prove nothing, but
#: its branch and bound has few patterns to decide.
SMALL_PROBLEM_GAP_PATTERNS = 6.0
#: The power of the label pairs ``K (K - 1) / 2`` that multiplies the
#: expected seconds of K labels: a K-label MIP has ``K`` binaries per
#: pattern and ``K - 1`` scores, that many times the two-label MIP's
#: patterns times columns. Calibrated by ``benchmarks/bench_label_proofs.py``
#: (``--n-jobs 1``; ``benchmarks/README.rst``, "K labels beside two"): the
#: three-label audits whose root LP proves the best known errors certified
#: in 0.4 to 2.9 times the two-label estimate, under its 3 label pairs;
#: digits, four labels, 684 patterns in 48 columns (75 s estimated for two
#: labels, its first label against the rest certified in 45 s), still left
#: bands after 182 s of a 300 s limit (453 s expected of its 6 label pairs).
LABEL_PAIRS_EXPONENT = 1.0
#: Patterns a coarser encoding or a sample aims at: COMPAS-sized problems.
TARGET_PATTERNS = 300
#: Quantiles of the ``>=`` indicators of a binarised column (as the command
#: line's ``--binarize``).
QUARTILES = (0.25, 0.5, 0.75)


def assess(session, limit, extra_errors, feature_names=None):
    """The regime of the audit of ``session``, its reasons and routes.

    Parameters
    ----------
    session : AuditSession
        Set up (``from_data``); no MIP needs to have run.
    limit : float or None
        Seconds the audit of a tolerance may spend (``None``: no limit).
    extra_errors : float
        Weighted errors the level set allows beyond the baseline's.
    feature_names : sequence of str or None
        Names of the audited columns, for the routes.

    Returns
    -------
    Assessment
    """
    start = time.perf_counter()
    shape = _Shape.of(session.problem)
    root = _Root.of(session.enc, session.problem)
    regime, reasons = _judged(
        shape,
        root,
        limit,
        extra_errors,
        f"{shape.n_patterns} distinct feature patterns (one binary variable "
        f"each in every MIP) in {shape.n_dims} affinely independent columns.",
    )
    routes = ()
    if regime != "exact":
        routes = _routes(session, shape, root, feature_names, regime, limit)
    signals = shape.signals(
        extra_errors,
        limit,
        start,
        n_identities=int(session.enc.n_identities),
        **root.signals(shape),
    )
    return Assessment(regime, reasons, routes, signals)


def assess_labels(session, limit, extra_errors):
    """The regime of the K-label audit of ``session`` (K >= 3), its reasons
    and routes, by the two-label rule: the root LP of the K-label
    minimum-error MIP against the best model known without a solver, and
    the seconds :func:`seconds_to_certify` expects of ``K`` labels.

    Parameters
    ----------
    session : MulticlassSession
        Set up; no MIP needs to have run.
    limit : float or None
        Seconds the audit of a tolerance may spend.
    extra_errors : float
        Weighted errors the level set allows beyond the baseline's.

    Returns
    -------
    Assessment
    """
    start = time.perf_counter()
    problem = session.problem
    shape = _Shape.of(problem)
    root, n_identities = _Root.of_labels(problem, session.hypothesis)
    regime, reasons = _judged(
        shape,
        root,
        limit,
        extra_errors,
        f"{shape.n_patterns} distinct feature patterns in {shape.n_dims} "
        f"affinely independent columns, {shape.n_labels} labels (one binary "
        "variable per pattern and label in every MIP).",
    )
    routes = ()
    if regime != "exact":
        routes = _other_routes(regime, limit, root.expected_seconds(shape))
    signals = shape.signals(
        extra_errors,
        limit,
        start,
        n_classes=shape.n_labels,
        n_identities=n_identities,
        **root.signals(shape),
    )
    return Assessment(regime, reasons, routes, signals)


def _judged(shape, root, limit, extra_errors, patterns):
    """The regime of a problem of ``shape`` and ``root`` within ``limit`` and
    its reasons (``patterns``: the sentence on its patterns first)."""
    regime = _regime(shape, root, limit)
    reasons = (
        patterns,
        *shape.words(extra_errors),
        root.words(shape),
        _regime_words(regime, shape, root, limit),
        _limit_words(limit),
    )
    return regime, reasons


def seconds_to_certify(n_patterns, n_dims, gap_patterns, n_labels=2):
    """Seconds the exact audit of a tolerance is expected to take on a
    problem whose MIPs prove their bounds.

    Linear in the patterns times the columns (the nonzeros of every MIP's
    pattern rows), exponential in the gap the root LP leaves to the best
    model known, counted in patterns of mean weight (the branch and bound
    closes it), and for K labels in the label pairs (see
    :data:`LABEL_PAIRS_EXPONENT`); calibrated by
    ``benchmarks/bench_assessment.py`` and, for K labels,
    ``bench_label_proofs.py``.

    Parameters
    ----------
    n_patterns : int
        Distinct feature patterns.
    n_dims : int
        Affinely independent columns.
    gap_patterns : float
        The best known model's errors less the root LP bound, over the mean
        weight of a pattern.
    n_labels : int, default=2
        Labels of the problem.

    Returns
    -------
    float
    """
    exponent = min(gap_patterns / GAP_PATTERNS_PER_E, 50.0)  # no overflow
    labels = (n_labels * (n_labels - 1) / 2) ** LABEL_PAIRS_EXPONENT
    return (
        CERTIFY_TIME_PER_PATTERN_COLUMN
        * n_patterns
        * n_dims
        * float(np.exp(exponent))
        * labels
    )


@dataclass(frozen=True)
class _Shape:
    """What every assessment reads first: the problem's distinct patterns,
    affinely independent columns, binary columns, total weight and labels."""

    n_patterns: int
    n_dims: int
    binary: np.ndarray
    total: float
    n_labels: int

    @classmethod
    def of(cls, problem):
        return cls(
            int(problem.n_patterns),
            int(problem.n_kept),
            _binary_columns(problem.patterns),
            float(problem.total_weight),
            int(problem.n_classes),
        )

    @property
    def n_binary(self):
        return int(self.binary.sum())

    @property
    def all_binary(self):
        return bool(self.binary.all())

    def words(self, extra_errors):
        """The sentences on the columns and on the level set."""
        return [
            _feature_words(self.binary.size, self.n_binary),
            f"The level set allows {extra_errors:g} weighted errors beyond the "
            f"baseline's (of a total weight of {self.total:g}).",
        ]

    def signals(self, extra_errors, limit, start, **read):
        """The numbers an assessment read, JSON-ready (``read``: the
        family's)."""
        return {
            "n_patterns": self.n_patterns,
            "n_dimensions": self.n_dims,
            "n_columns": int(self.binary.size),
            "n_binary_columns": self.n_binary,
            **read,
            "total_weight": self.total,
            "extra_errors": float(extra_errors),
            "limit": limit,
            "seconds": time.perf_counter() - start,
        }


@dataclass(frozen=True)
class _Root:
    """The root LP bound of the minimum-error MIP (``None`` on problems too
    large for the LP), the errors of the best model known without a solver
    (a constant one or a logistic regression) and the share of them the
    bound proves."""

    bound: float
    best: float
    share: float

    @classmethod
    def of(cls, enc, problem):
        best = float(min(problem.positive_weight.sum(), problem.negative_weight.sum()))
        fit = enc.logistic
        if fit is not None:
            scores = enc.X[: enc.n_train] @ fit[0] + fit[1]
            wrong = np.where(
                scores > 0, problem.negative_weight, problem.positive_weight
            )
            best = min(best, float(wrong.sum()))
        if problem.n_patterns > LARGE_PROBLEM_PATTERNS:
            return cls(None, best, 0.0)
        separator = IdentitySeparator(enc, time_limit=ASSESSMENT_LP_SECONDS / 2)
        relaxation = separator.relax(
            _formulations.min_error(enc), time_limit=ASSESSMENT_LP_SECONDS / 2
        )
        return cls._proving(relaxation.bound, best)

    @classmethod
    def of_labels(cls, problem, hypothesis):
        """The root of the K-label minimum-error MIP, against the best of
        the constant labellings and the multinomial logistic regressions of
        the certifier's first pass; and the affine identities of its rows
        (``None``: not encoded, over ``LARGE_PROBLEM_PATTERNS`` patterns)."""
        counts, X = problem.counts, problem.canonical()
        best = float(counts.sum() - counts.sum(axis=0).max())
        for W, b, _ in logistic_fits(problem, X, one_vs_rest=False):
            best = min(best, float(problem.errors(predict(W, b, X))))
        if problem.n_patterns > LARGE_PROBLEM_PATTERNS:
            return cls(None, best, 0.0), None
        enc = _multiclass.encode(problem, hypothesis)
        mip = _multiclass.min_error(enc)
        bound = lp_bound(mip, time_limit=ASSESSMENT_LP_SECONDS)
        return cls._proving(bound, best), int(enc.n_identities)

    @classmethod
    def _proving(cls, bound, best):
        """The root of LP bound ``bound`` (``-inf``: nothing proven) against
        ``best`` known errors."""
        bound = float(bound) if np.isfinite(bound) else 0.0
        share = 1.0 if best <= 0 else float(np.clip(bound / best, 0, 1))
        return cls(bound, best, share)

    def proves(self, shape):
        """Whether the MIPs are expected to prove their bounds at all: few
        patterns, or a root LP that proves enough."""
        return (
            shape.n_patterns <= SMALL_PROBLEM_PATTERNS
            or self.share >= LP_PROVED_FRACTION
        )

    def gap_patterns(self, shape):
        """The gap the bound leaves to the best known errors, in patterns of
        mean weight (``None`` without a bound)."""
        if self.bound is None:
            return None
        return max(self.best - self.bound, 0.0) * shape.n_patterns / shape.total

    def seconds_to_certify(self, shape):
        """:func:`seconds_to_certify` of the problem, ``None`` without a
        bound."""
        gap = self.gap_patterns(shape)
        if gap is None:
            return None
        if shape.n_patterns <= SMALL_PROBLEM_PATTERNS:
            gap = min(gap, SMALL_PROBLEM_GAP_PATTERNS)
        return seconds_to_certify(shape.n_patterns, shape.n_dims, gap, shape.n_labels)

    def signals(self, shape):
        """The numbers read at the root, JSON-ready."""
        return {
            "root_lp_bound": self.bound,
            "best_known_errors": self.best,
            "root_lp_share": self.share,
            "gap_patterns": self.gap_patterns(shape),
            "seconds_to_certify": self.seconds_to_certify(shape),
        }

    def expected_seconds(self, shape):
        """The seconds to certify when the MIPs are expected to prove their
        bounds at all, else ``None``."""
        return self.seconds_to_certify(shape) if self.proves(shape) else None

    def words(self, shape):
        if self.bound is None:
            return (
                f"Root LP not solved: over {LARGE_PROBLEM_PATTERNS} patterns it "
                "alone would take a large share of the time."
            )
        return (
            f"The LP relaxation of the minimum-error MIP proves {self.bound:.4g} "
            f"errors at the root, {self.share:.1%} of the {self.best:g} of the "
            f"best model known before solving (a gap of "
            f"{self.gap_patterns(shape):.1f} patterns of mean weight)."
        )


def _regime(shape, root, limit):
    if shape.n_patterns > LARGE_PROBLEM_PATTERNS:
        return "lower-bounds"
    if not root.proves(shape):
        return "bands"
    seconds = root.seconds_to_certify(shape)
    if limit is None or seconds is None or seconds <= limit:
        return "exact"
    return "bands"


def _limit_words(limit):
    return "Limit: " + (
        "none (exact values, however long they take)."
        if limit is None
        else f"{limit:g} s for the audit of a tolerance."
    )


def _regime_words(regime, shape, root, limit):
    if regime == "lower-bounds":
        return (
            f"Over {LARGE_PROBLEM_PATTERNS} patterns single MIPs rarely close "
            "in minutes (29,940 patterns at 60 s: no upper bound on ambiguity "
            "or discrepancy): expect witnessed lower bounds only."
        )
    proves = (
        f"At most {SMALL_PROBLEM_PATTERNS} patterns, or a root LP that proves "
        f"at least {LP_PROVED_FRACTION:.0%} of the best known errors: the MIPs "
        "can prove their bounds"
    )
    seconds = None if root is None else root.seconds_to_certify(shape)
    if regime == "bands" and (seconds is None or not root.proves(shape)):
        return (
            f"Over {SMALL_PROBLEM_PATTERNS} patterns, with a root LP that "
            f"proves under {LP_PROVED_FRACTION:.0%} of the best known errors, "
            "the MIPs find models but prove little: expect certified bands, "
            "not exact values (German credit, breast cancer at 60 s)."
        )
    if seconds is None:
        return f"{proves} quickly."
    expected = f"{proves}, exact values expected within {_about(seconds)}"
    if regime == "bands":
        return f"{expected}; with the {limit:g} s given, expect certified bands."
    return f"{expected}."


def _about(seconds):
    """``seconds`` rounded for a sentence: "within about 40 s"."""
    if seconds < 90:
        return f"about {max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"about {seconds / 3600:.0f} h"
    return "days, if at all"


def _binary_columns(patterns):
    """Whether each column takes at most two values, 0 and 1."""
    return np.all((patterns == 0) | (patterns == 1), axis=0)


def _feature_words(n_columns, n_binary):
    if n_binary == n_columns:
        return f"All {n_columns} columns are binary (0/1)."
    return (
        f"{n_columns - n_binary} of {n_columns} columns are not binary: "
        "continuous features give the MIPs no affine-identity cuts and a weak "
        "relaxation."
    )


def _probe(session, patterns, problem, limit):
    """The patterns and the regime of the audit of ``patterns`` (a coarser
    copy of ``problem.patterns``, one row each) with the same labels,
    within ``limit``."""
    pos, neg = problem.positive_weight, problem.negative_weight
    X = np.vstack([patterns, patterns])
    y = np.concatenate([np.ones(len(pos), int), np.zeros(len(neg), int)])
    coarse = PatternProblem.from_data(X, y, np.concatenate([pos, neg]))
    if coarse.n_patterns > LARGE_PROBLEM_PATTERNS:
        return coarse.n_patterns, "lower-bounds"
    enc = encode(coarse, session.hypothesis, cuts=session.cuts)
    root = _Root.of(enc, coarse)
    return coarse.n_patterns, _regime(_Shape.of(coarse), root, limit)


def _n_distinct(matrix):
    """Distinct rows of ``matrix`` (as the problem counts its patterns)."""
    return len(distinct_rows(np.asarray(matrix, dtype=float))[0])


def _routes(session, shape, root, names, regime, limit):
    problem, binary = session.problem, shape.binary
    patterns, d = problem.patterns, problem.n_features
    rows = patterns[problem.inverse[problem.inverse >= 0]]
    names = [f"column {j}" for j in range(d)] if names is None else list(names)
    routes = []
    # A coarser encoding: non-binary columns at their quartiles, then columns
    # left out (the most distinct values first, then the most even split)
    # until the patterns are COMPAS-sized.
    coarse = []
    for j in range(d):
        column = patterns[:, j]
        cuts = np.unique(np.quantile(rows[:, j], QUARTILES))
        cuts = cuts[cuts > column.min()]
        coarse.append(
            column[:, None]
            if binary[j]
            else np.column_stack([column >= q for q in cuts] or [column * 0])
        )
    n_continuous = d - int(binary.sum())
    if n_continuous:
        count, regime_ = _probe(session, np.hstack(coarse), problem, limit)
        routes.append(
            Route(
                "coarser encoding",
                f"Binarise the {n_continuous} non-binary column(s) at their "
                "quartiles (x >= each; the command line's --binarize).",
                f"{count} distinct patterns instead of {problem.n_patterns}: "
                f"{REGIME_WORDS[regime_]}.",
                count,
            )
        )
    order = sorted(range(d), key=lambda j: _spread(rows[:, j], binary[j]))
    kept, dropped = list(range(d)), []
    for j in order[: d - 1]:
        kept.remove(j)
        dropped.append(j)
        if _n_distinct(np.hstack([coarse[k] for k in kept])) <= TARGET_PATTERNS:
            break
    if dropped:
        kept_patterns = np.hstack([coarse[k] for k in kept])
        count, regime_ = _probe(session, kept_patterns, problem, limit)
        shown = ", ".join(str(names[j]) for j in dropped[:8])
        shown += f" and {len(dropped) - 8} more" if len(dropped) > 8 else ""
        others = " (the others binarised as above)" if n_continuous else ""
        routes.append(
            Route(
                "coarser encoding",
                f"Leave out {len(dropped)} of {d} columns{others}: {shown}.",
                f"{count} distinct patterns instead of {problem.n_patterns}: "
                f"{REGIME_WORDS[regime_]}.",
                count,
                tuple(int(j) for j in dropped),
            )
        )
    if rows.shape[0] > TARGET_PATTERNS:
        rng = np.random.default_rng(0)
        sample = np.sort(rng.choice(rows.shape[0], TARGET_PATTERNS, replace=False))
        n_sample = _n_distinct(rows[sample])
        routes.append(
            Route(
                "sample",
                f"Audit a seeded random sample of {TARGET_PATTERNS} rows (the "
                f"command line's --sample {TARGET_PATTERNS}, seeded by "
                "--random-state).",
                f"{n_sample} distinct patterns: values for the sample, an "
                "estimate for the table"
                + (
                    "; binarise too, since continuous columns keep the LP weak."
                    if n_continuous
                    else "."
                ),
                n_sample,
            )
        )
    return tuple(routes) + _other_routes(regime, limit, root.expected_seconds(shape))


def _other_routes(regime, limit, seconds):
    """The routes that change the question or the time, not the patterns
    (``seconds``: those expected to certify, when the MIPs prove their
    bounds)."""
    if seconds is None:
        more_time = (
            "Bands tighten gradually" if regime == "bands" else "More witnesses"
        ) + (
            "; exact values are not expected (German credit at 60, 300 and "
            "600 s: ambiguity [4.7%, 100%], [4.1%, 100%], [4.1%, 100%])."
        )
    else:
        more_time = (
            f"Exact values expected within {_about(seconds)} (an "
            "estimate from the patterns and the gap the root LP leaves)."
        )
    return (
        Route(
            "probabilistic",
            "Audit the same data with ProbabilisticAuditor (the command "
            "line's --measure probabilistic): a logistic model's viable "
            "prediction ranges over its log-loss level set.",
            "Certified in seconds at any size; it answers how far scores "
            "move, not which 0-1 decisions flip.",
        ),
        Route(
            "more time",
            "Allow more time (the command line's --total-time-limit"
            + ("" if limit is None else f", above {limit:g} s")
            + "; in Python, refine(eps, seconds)).",
            more_time,
        ),
    )


def _spread(column, binary):
    """Sort key of the columns to leave out first: the most distinct values,
    then the most even split."""
    share = column.mean() if binary else 0.0
    return (-np.unique(column).size, -min(share, 1 - share))
