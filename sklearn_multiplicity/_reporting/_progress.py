"""Progress of the audit on the terminal (``verbose >= 1``).

A running audit is read every :data:`TICK_SECONDS` seconds by a background
thread, so that the bar moves while one long MIP runs: the people decided
(certified flippable or proven unflippable) out of all, and the current
bands. A bar counts what is settled; until something is, it says what runs
and for how long at most. Its time left never passes the deadline of the
request it shows (the enclosing :func:`~sklearn_multiplicity._engine.capped`
block's, as the command line sets for each step).
"""

import contextlib
import math
import sys
import threading
import time
import weakref

from .._engine import Deadline

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


#: A bar counting what is settled, its time left capped by the deadline.
_COUNT_BAR = (
    "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} {unit} "
    "[{elapsed}<{left}{postfix}]"
)
#: The same bar before anything is settled: what runs, and for how long.
_WORKING_BAR = "{desc}: {working} [{elapsed}, {at_most}{postfix}]"


def time_left(n, total, elapsed, end):
    """Seconds a bar's work may still take: the estimate of its rate
    (``n`` of ``total`` in ``elapsed`` seconds), never past ``end``
    (``perf_counter`` time; ``None``: no deadline)."""
    by_deadline = math.inf if end is None else max(end - time.perf_counter(), 0.0)
    by_rate = elapsed * (total - n) / n if n and total else math.inf
    return min(by_rate, by_deadline)


def counting_bar(total, desc, unit, working):
    """A tqdm bar of ``total`` items: ``n/total`` once an item is settled,
    ``working`` (what runs) before; the time left is the rate's estimate
    capped by the current deadline.

    Parameters
    ----------
    total : int
    desc, unit : str
    working : str
        What the bar's work is doing while nothing is settled.
    """
    from tqdm.auto import tqdm

    end = Deadline().end  # the enclosing cap's end, or None

    class Bar(tqdm):
        @property
        def format_dict(self):
            values = super().format_dict
            left = time_left(self.n, self.total, values["elapsed"], end)
            values["left"] = "?" if math.isinf(left) else self.format_interval(left)
            values["at_most"] = (
                "no time limit"
                if math.isinf(left)
                else f"at most {self.format_interval(left)} left"
            )
            values["working"] = working
            values["bar_format"] = _WORKING_BAR if self.n == 0 else _COUNT_BAR
            return values

    return Bar(total=total, desc=desc, unit=unit)


def _keep_moving(bar, interval=None):
    """Refresh ``bar`` every ``interval`` seconds (elapsed time and time
    left move while one long MIP runs) until it is closed or dropped."""
    interval = TICK_SECONDS if interval is None else interval
    seen = weakref.ref(bar)

    def loop():
        while True:
            time.sleep(interval)
            bar = seen()
            if bar is None or bar.disable or getattr(bar, "closed", False):
                return
            bar.refresh()
            del bar

    threading.Thread(target=loop, name="progress", daemon=True).start()


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
    total = session.snapshot(budget)["total"]
    bar = counting_bar(round(total), desc, "person", "certifying who may flip")

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
    bar = counting_bar(total, desc, unit, f"solving the MIPs of {total} open {unit}s")
    _keep_moving(bar)

    def update(remaining):
        bar.n = total - remaining
        bar.refresh()
        if remaining == 0:
            bar.close()
            bar.closed = True

    return update


class BoundsReading:
    """The band of a running minimisation: the lowest bound and the best
    objective reported so far (thread-safe, since solvers report from their
    own threads).

    Parameters
    ----------
    heard : callable or None
        Called once, at the first report (the display starts then, so that a
        minimisation already solved shows nothing).
    """

    def __init__(self, heard=None):
        self.lower, self.upper = -float("inf"), float("inf")
        self.reported = False
        self._heard = heard
        self._lock = threading.Lock()

    def __call__(self, lower, upper):
        """Tighten the band with a reported ``lower`` and ``upper`` (``nan``:
        not known)."""
        with self._lock:
            first, self.reported = not self.reported, True
            if lower == lower:
                self.lower = max(self.lower, lower)
            if upper == upper:
                self.upper = min(self.upper, upper)
        if first and self._heard is not None:
            self._heard()

    def text(self, unit):
        with self._lock:
            lower, upper = self.lower, self.upper
        return f"[{_number(lower)}, {_number(upper)}] {unit}"


def _number(value):
    return "?" if value in (float("inf"), -float("inf")) else f"{value:,.6g}"


@contextlib.contextmanager
def bounds_progress(verbose, limit, desc, unit="errors"):
    """A context yielding ``report(lower, upper)`` for a running
    minimisation (``verbose >= 1``), or None.

    From the first report on, a bar counts the seconds spent out of ``limit``
    (without a total when ``limit`` is None) and shows the band reported so
    far, read every :data:`TICK_SECONDS` seconds, also while one MIP runs.
    Nothing is shown when nothing is reported (an answer already known).

    Parameters
    ----------
    verbose : int
    limit : float or None
        Seconds the minimisation may take.
    desc : str
        Label of the bar.
    unit : str, default="errors"
        What the bounds count.
    """
    if verbose < 1:
        yield None
        return
    import time

    from tqdm.auto import tqdm

    total = None if limit is None else round(float(limit), 1)
    began = time.perf_counter()
    bars = []

    def open_bar():
        bar_format = None if total is None else _SECONDS_BAR
        bars.append(tqdm(total=total, desc=desc, unit="s", bar_format=bar_format))

    reading = BoundsReading(heard=open_bar)

    def show():
        if not bars:
            return
        elapsed = time.perf_counter() - began
        bars[0].n = round(elapsed if total is None else min(elapsed, total), 1)
        bars[0].set_postfix_str(reading.text(unit), refresh=True)

    try:
        with ticking(show):
            yield reading
    finally:
        for bar in bars:
            bar.close()


#: A bar of seconds: elapsed of the limit, then the band.
_SECONDS_BAR = "{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s{postfix}"


class StageProgress:
    """Progress of a request run in stages (``verbose >= 1``): a line per
    stage, and while a stage runs, a bar of the items it settled, read every
    :data:`TICK_SECONDS` seconds.

    Parameters
    ----------
    prefix : str
        Start of every line (who speaks, about what).
    unit : str, default="end"
        What a stage settles.
    """

    def __init__(self, prefix, unit="end"):
        self.prefix = prefix
        self.unit = unit

    def line(self, text):
        """Print one line of the request (on stderr, beside the bars)."""
        print(f"{self.prefix}{text}", file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def stage(self, name, asked, read=None):
        """A context yielding ``settled(k)``, which counts ``k`` more items
        settled (thread-safe) on a bar of ``asked``; ``read()``, when given,
        adds the items the stage's own state shows settled."""
        from tqdm.auto import tqdm

        bar = tqdm(total=asked, desc=name, unit=self.unit)
        lock = threading.Lock()
        count = [0]

        def settled(k):
            with lock:
                count[0] += k

        def show():
            with lock:
                counted = count[0]
            bar.n = counted + (0 if read is None else read())
            bar.refresh()

        try:
            with ticking(show):
                yield settled
        finally:
            bar.close()
