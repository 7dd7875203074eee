"""Progress of the audit on the terminal (``verbose >= 1``).

A running audit is read every :data:`TICK_SECONDS` seconds by a background
thread, so that the bar moves while one long MIP runs: the people decided
(certified flippable or proven unflippable) out of all, and the current
bands.
"""

import contextlib
import threading

#: Seconds between two readings of a running audit.
TICK_SECONDS = 2.0


@contextlib.contextmanager
def ticking(report, interval=None):
    """Call ``report()`` every ``interval`` seconds while the block runs (in a
    background thread), and once more at its end.

    Parameters
    ----------
    report : callable
        Reads the state; must not change it.
    interval : float or None, default=None
        Seconds between calls (``None``: :data:`TICK_SECONDS`).
    """
    interval = TICK_SECONDS if interval is None else interval
    stop = threading.Event()

    def loop():
        while not stop.wait(interval):
            report()

    thread = threading.Thread(target=loop, name="audit-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        report()


def audit_progress(verbose, session, budget, desc):
    """A context in which the audit of ``budget`` shows its progress.

    With ``verbose >= 1``, a bar of the people decided out of all, with the
    ambiguity band and the most disagreement found so far, read every
    :data:`TICK_SECONDS` seconds; else nothing.

    Parameters
    ----------
    verbose : int
    session : AuditSession
    budget : float or ClassBudget
    desc : str
        Label of the bar.
    """
    if verbose < 1:
        return contextlib.nullcontext()
    from tqdm.auto import tqdm

    total = session.snapshot(budget)["total"]
    bar = tqdm(total=round(total), desc=desc, unit="person")

    def report():
        known = session.snapshot(budget)
        flipped, proven = known["flipped"], known["proven"]
        bar.n = round(flipped + proven)
        bar.set_postfix_str(
            f"ambiguity [{flipped / total:.1%}, {1 - proven / total:.1%}], "
            f"discrepancy >= {known['disagreement'] / total:.1%}",
            refresh=True,
        )

    @contextlib.contextmanager
    def showing():
        try:
            with ticking(report):
                yield
        finally:
            bar.close()

    return showing()


def progress_bar(verbose, total, desc, unit="pattern"):
    """``update(remaining)`` of a progress bar (``verbose >= 1``), or None.

    Parameters
    ----------
    verbose : int
        The estimator's verbosity.
    total : int
        Items to settle.
    desc : str
        Label of the bar.
    unit : str, default="pattern"
        What an item is.

    Returns
    -------
    callable or None
        ``update(remaining)``, which closes the bar when nothing remains.
    """
    if verbose < 1 or total == 0:
        return None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit)

    def update(remaining):
        bar.n = total - remaining
        bar.refresh()
        if remaining == 0:
            bar.close()

    return update
