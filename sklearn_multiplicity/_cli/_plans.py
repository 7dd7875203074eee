"""The plans of the command line's audits: their steps, in order, with shares
of the audit's budget (``--total-time-limit``).

A plan is read by :func:`~sklearn_multiplicity._engine.run_plan`, as the
engine's plans are: step ``i`` ends by ``start + (s_1 + ... + s_i) x
budget``, so time an earlier step does not use flows to the later ones.
"""

from .._engine import Step

#: The audit under a total time limit: the values at epsilon, which the
#: report leads with, get half, before the path, which starts from what they
#: found (on breast cancer, 6 features, 60 s: with 0.35 for the values and
#: 0.3 for the path, the discrepancy's lower bound was two people lower and
#: the minimum error's upper bound one error higher).
AUDIT = (
    Step("fit", 0.3, "the baseline, the class's minimum error"),
    Step("epsilon", 0.05, "a suggested tolerance (bootstrap), when asked for"),
    Step("measures", 0.5, "the audit at epsilon: both measures, the groups"),
    Step("path", 0.1, "both measures along the tolerances"),
    Step("sampling", 0.05, "the sampled estimate"),
)

#: Without a limit the path goes first: its flip MIPs, solved to optimality
#: once, answer ambiguity at every tolerance, epsilon's included.
AUDIT_UNLIMITED = (AUDIT[0], AUDIT[1], AUDIT[3], AUDIT[2], AUDIT[4])

#: The audit of a K-label target: the values at epsilon, then every
#: person's labels at epsilon (one MIP per person and label not yet
#: settled), then the path. Without a limit every step runs to its end.
K_CLASS_AUDIT = (
    Step("fit", 0.2, "the baseline, the class's minimum error"),
    Step("measures", 0.35, "the audit at epsilon: both measures, the groups"),
    Step("people", 0.15, "the labels the level set gives each person"),
    Step("path", 0.3, "both measures along the tolerances"),
)

#: ``audit --estimator logistic``: the 0-1 audit, then the probabilistic
#: audit of the same model (certified in seconds; its closed-form brackets
#: hold even with no time).
BOTH = (
    Step("decisions", 0.85, "the 0-1 audit's report"),
    Step("probabilistic", 0.15, "viable prediction ranges, their measures"),
)

PLANS = {
    "command-line audit": AUDIT,
    "command-line audit, unlimited": AUDIT_UNLIMITED,
    "command-line audit, both": BOTH,
    "command-line K-class audit": K_CLASS_AUDIT,
}
