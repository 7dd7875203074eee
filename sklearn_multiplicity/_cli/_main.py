"""Command line: ``sklearn-multiplicity demo`` and ``sklearn-multiplicity audit``.

:func:`main` runs the subcommand that :mod:`._arguments` parsed. Every
failure the user can cause (a missing or unreadable file, a bad column, a
non-binary target) ends with one ``error: ...`` line on stderr and exit code
2, like argparse's usage errors; running out of memory ends the same way,
with advice, and exit code 1.

``audit`` runs under ``--total-time-limit`` (300 s unless told otherwise,
said in its first line) and writes its report as soon as the values at
``--epsilon`` can be read, then again whenever a step tightens them. Stopped
by Ctrl-C (SIGINT) or a kill (SIGTERM), it starts no new MIP, rewrites the
report with what the running ones prove within a few seconds, says which
report stands and exits with 130 or 143, as a shell reports a process ended
by the signal.
"""

import contextlib
import os
import signal
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd

from .._exceptions import ProblemSizeWarning
from ._arguments import DEFAULT_TOTAL_TIME_LIMIT, parse_arguments
from ._dask_data import (
    close_schedulers,
    load_dask_data,
    reads_through_dask,
    scheduler,
    write_people,
)
from ._data import (
    DataError,
    load_audit_data,
    load_demo_data,
)

#: Exit code of every user error (argparse uses it for usage errors too).
USAGE_ERROR = 2
#: Exit code when the machine runs out of a resource (memory).
RESOURCE_ERROR = 1

#: What to try when an audit does not fit in memory.
MEMORY_ADVICE = (
    "out of memory. Audit fewer rows (a sample) or fewer features, binarise "
    "fewer columns (fewer distinct patterns), or use a machine with more memory."
)

#: Exit code of a run stopped by a signal: 128 + the signal's number.
SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}
#: Seconds a stopped audit may take to end its running solves and write
#: what they proved.
STOP_GRACE = 10.0

_HANDLED = (ValueError, TypeError, OSError, pd.errors.ParserError)


def _estimator(name):
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    return None


def _finish(report, out, reports=None):
    _flush_diagnostics()
    print(report.summary())
    if out is not None:
        files = report.write(out) if reports is None else reports(report, None)
        print(f"\nReport written to {out}/: " + ", ".join(p.name for p in files))
        if not _has_matplotlib():
            print(
                "note: plots skipped: matplotlib is not installed "
                "(pip install matplotlib)",
                file=sys.stderr,
            )
    return 0


def _has_matplotlib():
    """Whether the report's plots can be drawn."""
    try:
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False
    return True


def _constraints(args, groups):
    """The constraints of the command line (the audit subcommand's only)."""
    from ..constraints import GroupRateGap, MaxNonzero, Signs

    constraints = []
    if getattr(args, "max_nonzero", None) is not None:
        constraints.append(MaxNonzero(args.max_nonzero))
    signs = dict(getattr(args, "sign", []))
    if signs:
        constraints.append(Signs(signs))
    gaps = getattr(args, "rate_gap", [])
    if gaps and groups is None:
        raise ValueError("--rate-gap needs --groups (the groups whose rates it bounds)")
    constraints += [GroupRateGap(rate=rate, max_gap=gap) for rate, gap in gaps]
    return constraints


#: The steps of the command line's plans (:mod:`._plans`), in words.
_STEP_WORDS = {
    "fit": "the fit",
    "epsilon": "the fit",  # the suggested tolerance follows it at once
    "measures": "the values at --epsilon",
    "people": "every person's labels",
    "path": "the path",
    "sampling": "the sampled estimate",
}


class _Reports:
    """The report files of a running audit, rewritten (each file replaced
    whole) whenever a step tightens the values, so that a run stopped later
    leaves the last of them.

    Parameters
    ----------
    out : str, path-like or None
        The report's directory (``None``: nothing is written).
    total_time_limit : float or None
        The audit's ``--total-time-limit``, said as it starts.
    raw_csv : bool, default=False
        Write the CSV files' cells as they are (``--raw-csv``).
    """

    def __init__(self, out, total_time_limit, raw_csv=False):
        self.out = out
        self.total_time_limit = total_time_limit
        self.raw_csv = raw_csv
        self.started = False
        self.files = None
        self.step = None
        self.stopped = False
        self.lock = threading.Lock()

    def start(self):
        """Say the time limit, once, as the audit's first step begins (an
        error in the arguments prints its one line alone)."""
        if not self.started:
            self.started = True
            _say_time_limit(self.total_time_limit)

    def __call__(self, report, step):
        """Write ``report``, the values known at the end of ``step``
        (``None``: the finished audit); the files written."""
        if self.out is None:
            return []
        with self.lock:
            report.raw_csv = self.raw_csv
            self.files = report.write(self.out)
            self.step = step
        return self.files

    def standing(self):
        """What the directory holds, in words."""
        if self.files is None:
            return (
                "no report written: the audit stopped before the values at "
                "--epsilon could be read"
            )
        names = ", ".join(p.name for p in self.files)
        if self.stopped:
            return (
                f"the report of what was certified when it stopped is in "
                f"{self.out}/: {names}. Its open values are certified bounds; "
                "more time (--total-time-limit) tightens them"
            )
        if self.step is None:
            return f"the finished audit's report is in {self.out}/: {names}"
        after = _STEP_WORDS.get(self.step, f"the step {self.step!r}")
        return (
            f"the report of what was certified after {after} is in "
            f"{self.out}/: {names}. Its open values are certified bounds; more "
            "time (--total-time-limit) tightens them"
        )


class _Stopped(Exception):
    """A signal asked the run to stop."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _stoppable(run, reports):
    """``run()`` in a worker thread, the main thread listening for SIGINT
    and SIGTERM.

    On the first signal the audit is asked to stop
    (:func:`~sklearn_multiplicity.backends.request_stop`): no new MIP
    starts, and the steps left finish at once with what is proved. If the
    running solves end within :data:`STOP_GRACE` seconds, the report is
    rewritten with everything they proved; otherwise, or on a second
    signal, the last report written stands. Either way a line says which
    report stands, and the process exits with :data:`SIGNAL_EXIT`. An error
    of ``run`` is raised here, after a line saying which report stands."""
    if threading.current_thread() is not threading.main_thread():
        return run()
    outcome = {}
    # Waiting on an event, not on ``Thread.join``: a join interrupted by the
    # signal handler's exception can mark a running thread as ended.
    done = threading.Event()

    def work():
        try:
            outcome["value"] = run()
        except BaseException as exc:  # raised again in the main thread
            outcome["error"] = exc
        finally:
            done.set()

    def stop(signum, frame):
        raise _Stopped(signum)

    worker = threading.Thread(target=work, name="audit", daemon=True)
    previous = {s: signal.signal(s, stop) for s in SIGNAL_EXIT}
    try:
        try:
            worker.start()
            while not done.wait(0.2):
                pass
        except _Stopped as stopped:
            _finish_stopped(stopped.signum, done, outcome, reports)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if "error" in outcome:
        if reports.files is not None:
            print(f"note: {reports.standing()}", file=sys.stderr)
        raise outcome["error"]
    return outcome["value"]


def _finish_stopped(signum, done, outcome, reports):
    """Stop the audit, give its running solves :data:`STOP_GRACE` seconds
    to end and its report to be rewritten, then end the process."""
    from ..backends._stopping import request_stop

    request_stop()
    name = signal.Signals(signum).name
    _flush_diagnostics()
    print(
        f"\nstopping ({name}): keeping what the running solves prove, at most "
        f"{STOP_GRACE:g} s more; {name} again stops at once",
        file=sys.stderr,
        flush=True,
    )
    try:
        done.wait(STOP_GRACE)
    except _Stopped:
        pass
    if done.is_set() and "value" in outcome:
        reports.stopped = True
    _exit_stopped(signum, reports)


def _exit_stopped(signum, reports):
    """Say which report stands and end the process (solver threads too)."""
    with reports.lock:  # a report being written is finished first
        line = reports.standing()
    _flush_diagnostics()
    name = signal.Signals(signum).name
    print(f"\nstopped by {name}: {line}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    close_schedulers()
    os._exit(SIGNAL_EXIT[signum])


def _say_time_limit(limit):
    """The first line of ``audit``: the time it may take."""
    if limit is None:
        text = (
            "none: exact values, however long they take (Ctrl-C stops the "
            "audit and keeps the report so far)"
        )
    elif limit == DEFAULT_TOTAL_TIME_LIMIT:
        text = (
            f"{limit:g} s, the default (--total-time-limit S to change it, "
            "none for exact values however long they take)"
        )
    else:
        text = f"{limit:g} s (--total-time-limit)"
    print(f"Total time limit: {text}", file=sys.stderr, flush=True)


def _exact_audit(args, X, y, groups, dataset, on_report=None, sample_weight=None):
    """The exact (0-1) audit of two labels or K."""
    from ._run import run_audit

    if _has_k_labels(y) and args.n_models != 100:
        _diagnostic("note: the sampled estimate is for two labels; --n-models ignored")
    return run_audit(
        X,
        y,
        estimator=_estimator(args.estimator),
        epsilon=args.epsilon,
        groups=groups,
        max_epsilon=args.max_epsilon,
        time_limit=args.time_limit,
        total_time_limit=args.total_time_limit,
        n_jobs=args.n_jobs,
        n_models=args.n_models,
        random_state=args.random_state,
        verbose=0 if args.quiet else 1,
        dataset=dataset,
        abstain=args.abstain,
        constraints=_constraints(args, groups),
        on_report=on_report,
        on_start=None if on_report is None else on_report.start,
        sample_weight=sample_weight,
    )


def _audit(args):
    # A dask scheduler (or LocalCluster) started for the reading stays up
    # until the people are written.
    with contextlib.ExitStack() as dask_context:
        return _audit_within(args, dask_context)


def _audit_within(args, dask_context):
    options = {
        "binarize": args.binarize,
        "keep": args.keep_column,
        "exact": args.measure != "probabilistic",
        "keep_groups": args.keep_groups_as_feature,
        "columns": args.columns,
        "drop": args.drop_column,
    }
    distinct = None
    if reads_through_dask(args.data, args.scheduler):
        _check_dask_options(args)
        setup = []
        dask_context.enter_context(scheduler(args.scheduler, args.data, setup))
        X, y, groups, notes, distinct = load_dask_data(
            args.data, args.target, args.groups, **options
        )
        notes[:0] = setup
    else:
        X, y, groups, notes = load_audit_data(
            args.data, args.target, args.groups, **options
        )
    if args.sample is not None and args.sample < 2:
        raise ValueError("--sample needs at least 2 rows")
    if args.sample is not None and args.sample < len(y):
        rows = np.random.default_rng(args.random_state).choice(
            len(y), args.sample, replace=False
        )
        rows = np.sort(rows)
        X, y = X.iloc[rows], np.asarray(y)[rows]
        groups = None if groups is None else np.asarray(groups)[rows]
        notes.append(
            f"audited a random sample of {args.sample} of the rows (seed "
            f"{args.random_state}, --random-state)"
        )
    for note in notes:
        _diagnostic(f"note: {note}")
    dataset = {
        "source": str(args.data),
        "target": args.target,
        "groups": args.groups,
        "groups_as_feature": args.groups is not None and args.keep_groups_as_feature,
        "feature_names": list(X.columns),
        "encoding": notes,
        "binarize": args.binarize,
        "sample": args.sample,
    }
    if distinct is not None:
        dataset["read_through_dask"] = True
        dataset["read_seconds"] = round(distinct.seconds, 3)
    if _has_k_labels(y) and _constraints(args, groups):
        raise ValueError(
            "the constraints (--max-nonzero, --sign, --rate-gap) are for two "
            f"labels; a target of {pd.Series(y).nunique()} labels is audited "
            "without them"
        )
    reports = _Reports(args.out, args.total_time_limit, args.raw_csv)
    if args.measure == "probabilistic":
        audit = _probabilistic_only
    elif args.measure == "both" or args.estimator == "logistic":
        audit = _both_audits
    else:
        audit = _exact_audit

    def run():
        if distinct is None:
            report = audit(args, X, y, groups, dataset, on_report=reports)
            return _finish(report, args.out, reports)
        report = audit(
            args, X, y, groups, dataset, on_report=reports, sample_weight=distinct.count
        )
        if distinct.parquet and args.out is not None:
            folder = write_people(distinct, report.people(), args.out)
            _diagnostic(
                f"note: every row's line of people.csv written as Parquet in {folder}/"
            )
        return _finish(report, args.out, reports)

    return _stoppable(run, reports)


def _check_dask_options(args):
    """Refuse what a table read through dask (its distinct rows, weighted)
    cannot be audited with."""
    if args.measure != "decisions" or args.estimator != "zero-one":
        raise ValueError(
            "a table read through dask is audited with --measure decisions and "
            "--estimator zero-one (its distinct rows, weighted by their counts)"
        )
    if args.sample is not None:
        raise ValueError(
            "--sample draws rows of a table in memory; a table read through "
            "dask is audited whole, through its distinct rows"
        )
    if args.epsilon == "auto":
        raise ValueError(
            "--epsilon auto resamples the rows; give a table read through dask "
            "a tolerance (e.g. --epsilon 0.01)"
        )


def _has_k_labels(y):
    """Whether the target has three labels or more (the K-label audits)."""
    return pd.Series(y).nunique() > 2


def _both_audits(args, X, y, groups, dataset, on_report=None):
    """The 0-1 audit of a logistic regression and, beside it, the
    probabilistic audit of the same model (``--log-loss-epsilon`` nats)."""
    from ._run import run_both

    if args.log_loss_epsilon < 0:
        raise ValueError(
            f"--log-loss-epsilon must be >= 0 nats, got {args.log_loss_epsilon}"
        )
    args.estimator = "logistic"
    return run_both(
        lambda: _exact_audit(args, X, y, groups, dataset, on_report),
        lambda: _probabilistic_audit(
            args,
            X,
            y,
            groups,
            dataset,
            estimator=_estimator("logistic"),
            epsilon=args.log_loss_epsilon,
        ),
        args.total_time_limit,
    )


def _probabilistic_audit(args, X, y, groups, dataset, **options):
    """The probabilistic audit of ``y``'s labels (two, or three and more),
    with the command line's common options and ``options``."""
    from ._run import run_probabilistic_audit

    if _has_k_labels(y) and args.threshold != 0.5:
        _diagnostic(
            "note: --threshold is for two labels (with more, a decision is "
            "the most probable label); ignored"
        )
    return run_probabilistic_audit(
        X,
        y,
        threshold=args.threshold,
        groups=groups,
        n_jobs=args.n_jobs,
        random_state=args.random_state,
        verbose=0 if args.quiet else 1,
        dataset=dataset,
        **options,
    )


def _probabilistic_only(args, X, y, groups, dataset, on_report=None):
    """``--measure probabilistic``: the probabilistic audit alone, once the
    options it has no use for are refused or noted."""
    if _constraints(args, groups):
        raise ValueError(
            "--max-nonzero, --sign and --rate-gap constrain the 0-1 level set "
            "of --measure decisions; --measure probabilistic has no constraints"
        )
    if isinstance(args.epsilon, dict) or isinstance(args.max_epsilon, dict):
        raise ValueError(
            "per-class tolerances (LABEL=EPS,LABEL=EPS) bound the error rates "
            "of --measure decisions; --measure probabilistic takes one "
            "tolerance in nats of mean log-loss"
        )
    if args.epsilon == "auto":
        raise ValueError(
            "--epsilon auto is for the decisions measure; give the tolerance "
            "of --measure probabilistic in nats of mean log-loss (e.g. 0.01)"
        )
    if args.estimator != "zero-one":
        _diagnostic(
            "note: --measure probabilistic always audits a standardised "
            "logistic regression; --estimator is ignored"
        )
    unused = [
        flag
        for flag, value, default in (
            ("--time-limit", args.time_limit, 60.0),
            ("--max-epsilon", args.max_epsilon, None),
            ("--n-models", args.n_models, 100),
        )
        if value != default
    ]
    if unused:
        _diagnostic(
            f"note: --measure probabilistic has no MIPs, path or sampled pool "
            f"(--total-time-limit bounds it); {', '.join(unused)} ignored"
        )
    return _probabilistic_audit(
        args,
        X,
        y,
        groups,
        dataset,
        epsilon=args.epsilon,
        total_time_limit=args.total_time_limit,
        on_start=None if on_report is None else on_report.start,
    )


def _demo(args):
    start = time.perf_counter()
    X, y = load_demo_data()
    print(
        "Breast cancer (scikit-learn): 569 people, 8 features binarised at their "
        "median; baseline: the 0-1 optimal linear classifier"
    )
    dataset = {
        "source": "scikit-learn breast cancer (8 features, binarised at the median)",
        "target": "diagnosis",
        "groups": None,
        "feature_names": list(X.columns),
    }
    report = _exact_audit(args, X, y, None, dataset)
    code = _finish(report, args.out)
    print(f"Wall time: {time.perf_counter() - start:.1f} s")
    return code


#: Notes and warnings of the running command, shown once it succeeds (so
#: that a failure prints its one ``error:`` line alone).
_PENDING = []


def _diagnostic(line):
    _PENDING.append(line)


def _flush_diagnostics():
    for line in _PENDING:
        print(line, file=sys.stderr)
    _PENDING.clear()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    if issubclass(category, ProblemSizeWarning):
        # The assessment's headline, said before any MIP runs: what to
        # expect while waiting. The summary says what limited the answer and
        # ends with the detail.
        headline = str(message).splitlines()[0]
        print(
            f"{headline}; details at the end of the summary",
            file=sys.stderr,
            flush=True,
        )
        return
    _diagnostic(f"warning: {' '.join(str(message).split())}")


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if isinstance(exc, DataError) else f"{type(exc).__name__}: {text}"


_COMMANDS = {"demo": _demo, "audit": _audit}


def main(argv=None):
    """Run the command line and return its exit code.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    int
        0 on success, 2 on a usage or data error, 1 when memory runs out.
        An ``audit`` stopped by SIGINT or SIGTERM ends the process with 130
        or 143 once it said which report stands.
    """
    try:
        args = parse_arguments(argv)
    except SystemExit as exc:
        return exc.code
    _PENDING.clear()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            code = _COMMANDS[args.command](args)
        except _HANDLED as exc:
            _PENDING.clear()
            print(f"error: {_one_line(exc)}", file=sys.stderr)
            return USAGE_ERROR
        except MemoryError:
            _PENDING.clear()
            print(f"error: {MEMORY_ADVICE}", file=sys.stderr)
            return RESOURCE_ERROR
        _flush_diagnostics()
        return code
