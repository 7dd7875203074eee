"""The time model of an audit: one account of seconds per question.

A *question* is what the audit state answers once it is settled: the audit
of one tolerance (both measures, and the groups when there are some), a path
of tolerances, the minimum error of the class. Each question may spend
``limit`` seconds (the estimator's ``total_time_limit``) over every call that
asks it, not per call: a call draws on what earlier calls left, and a call
that finds its question settled or its account spent reads the state and
costs no solver time. A run that ends with its question still open has
done what its limits allow (its deadline ran out, or every MIP stopped at its
own limit, which a second run would only repeat): the account is then
closed. :meth:`TimeAccounts.grant` opens it again with more seconds
(``refine``), as does a new limit (``set_params(total_time_limit=...)``).
"""

import contextlib
import math
import time

from ._scheduling import Deadline


class TimeAccounts:
    """Seconds spent and granted, per question.

    Attributes
    ----------
    spent : dict
        Wall-clock seconds every question has spent so far.
    granted : dict
        Seconds added to a question's limit (by ``refine``).
    closed : dict
        Questions that a run left open, with the limit they ran under: no
        time until a grant or another limit.
    """

    def __init__(self):
        self.spent = {}
        self.granted = {}
        self.closed = {}

    def remaining(self, key, limit):
        """Seconds ``key`` may still spend under ``limit`` (``inf``: no limit)."""
        if limit is None:
            return math.inf
        left = limit + self.granted.get(key, 0.0) - self.spent.get(key, 0.0)
        return max(left, 0.0)

    def exhausted(self, key, limit):
        """Whether ``key`` has no time left (or is closed under ``limit``)."""
        closed = key in self.closed and self.closed[key] == limit
        return closed or self.remaining(key, limit) <= 0.0

    def close(self, key, limit):
        """Give ``key`` no more time under ``limit`` until a grant."""
        self.closed[key] = limit

    def grant(self, key, seconds, limit):
        """Let ``key`` spend ``seconds`` from now on, whatever is left of
        ``limit`` (``seconds=None``: no limit for the question from now on)."""
        self.closed.pop(key, None)
        if limit is None:
            return
        spent = self.spent.get(key, 0.0)
        extra = math.inf if seconds is None else seconds
        self.granted[key] = spent + extra - limit

    def add(self, key, seconds):
        """Charge ``key`` with ``seconds`` spent outside :meth:`charge` (the
        fit, charged to the audit of the auditor's tolerance)."""
        self.spent[key] = self.spent.get(key, 0.0) + seconds

    def spend(self, key, limit, per_mip, work, settled):
        """``work(deadline)`` on what ``key`` has left of ``limit``.

        With no time left, or the question already ``settled()``, ``work``
        gets an expired deadline: it reads what is known. A run that leaves
        the question open closes the account.
        """
        if self.exhausted(key, limit) or settled():
            return work(Deadline(0.0))
        with self.charge(key, limit, per_mip) as deadline:
            value = work(deadline)
        if not settled():
            self.close(key, limit)
        return value

    @contextlib.contextmanager
    def charge(self, key, limit, per_mip=None):
        """A :class:`Deadline` of what ``key`` has left; the time the block
        takes is charged to it."""
        left = self.remaining(key, limit)
        deadline = Deadline(None if math.isinf(left) else left, per_mip=per_mip)
        start = time.perf_counter()
        try:
            yield deadline
        finally:
            elapsed = time.perf_counter() - start
            self.spent[key] = self.spent.get(key, 0.0) + elapsed
