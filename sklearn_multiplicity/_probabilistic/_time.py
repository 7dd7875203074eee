"""The time of a :class:`ProbabilisticAuditor` request."""

import warnings

from .._engine import Deadline


def request_deadline(total_time_limit, time_limit="deprecated"):
    """The deadline of a request starting now: ``total_time_limit`` (or the
    deprecated ``time_limit`` when set), ending no later than any ``capped``
    block around it."""
    seconds = total_time_limit
    if not (isinstance(time_limit, str) and time_limit == "deprecated"):
        warnings.warn(
            "`time_limit` was renamed `total_time_limit` in 0.2 and will be "
            "removed in 0.4.",
            FutureWarning,
            stacklevel=4,
        )
        seconds = time_limit
    return Deadline(seconds)


def more_time(budget, before):
    """Whether a request with ``budget`` seconds has more than one with
    ``before`` had (``inf``: unlimited; a millisecond absorbs the time
    between making a deadline and reading it)."""
    return budget > before + 1e-3
