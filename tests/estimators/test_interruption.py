"""An audit interrupted by Ctrl-C (KeyboardInterrupt) keeps what it proved:
a later call reads it, and continues from it."""

import _thread
import signal
import threading
import time

import numpy as np
import pytest

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._engine import Deadline, capped


def test_an_interrupted_audit_keeps_what_it_proved():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 6))
    y = (X @ rng.normal(size=6) + rng.normal(scale=1.5, size=150) > 0).astype(int)
    auditor = MultiplicityAuditor(time_limit=1, total_time_limit=60).fit(X, y)
    session, budget = auditor.session_, auditor.session_.budget(0.01)
    before, closed = session.snapshot(budget), dict(session.accounts.closed)

    # Ctrl-C once the audit has proved something (the main thread sees it
    # when the running MIP returns, within its 1 s limit): on a loaded
    # machine a fixed delay may fall before the first proof.
    def learned():
        known = session.snapshot(budget)
        return known["flipped"] + known["proven"] > before["flipped"] + before["proven"]

    def interrupt_when_proved(stop):
        began = time.monotonic()
        while not stop.wait(0.05):
            try:
                proved = learned()
            except RuntimeError:  # read while a solver thread wrote: again
                continue
            if proved or time.monotonic() - began > 20.0:
                _thread.interrupt_main()
                return

    stop = threading.Event()
    watcher = threading.Thread(target=interrupt_when_proved, args=(stop,))
    # Python's own Ctrl-C, whatever handler earlier code left installed
    # (``interrupt_main`` does nothing under SIG_DFL or SIG_IGN).
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            auditor.ambiguity(0.01)
    finally:
        stop.set()
        watcher.join()
        signal.signal(signal.SIGINT, handler)
    known = session.snapshot(budget)
    total = known["total"]
    assert known["flipped"] + known["proven"] > before["flipped"] + before["proven"]
    # The seconds it ran count against the tolerance's account, which stays
    # open for the next call.
    assert max(session.accounts.spent.values()) > 0.0
    assert session.accounts.closed == closed

    # A later call continues from what was proved: its band is at least as
    # tight as the state the interruption left.
    with capped(Deadline(3.0)):
        lower, upper = auditor.ambiguity_bounds(0.01)
    assert lower >= known["flipped"] / total - 1e-9
    assert upper <= 1 - known["proven"] / total + 1e-9
