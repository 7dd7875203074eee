"""Command line: ``sklearn-multiplicity demo`` and ``sklearn-multiplicity audit``.

Every failure the user can cause (a missing or unreadable file, a bad
column, a non-binary target) ends with one ``error: ...`` line on stderr
and exit code 2, like argparse's usage errors.
"""

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from ._data import DataError, load_audit_data, load_demo_data

#: Exit code of every user error (argparse uses it for usage errors too).
USAGE_ERROR = 2

_HANDLED = (ValueError, TypeError, OSError, pd.errors.ParserError)


# ----------------------------------------------------------------- commands
def _estimator(name):
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    return None


def _finish(report, out):
    _flush_diagnostics()
    print(report.summary())
    if out is not None:
        files = report.write(out)
        print(f"\nReport written to {out}/: " + ", ".join(p.name for p in files))
    return 0


def _run(args, X, y, groups, dataset):
    from ._report import run_audit

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
    )


def _audit(args):
    X, y, groups, notes = load_audit_data(
        args.data, args.target, args.groups, binarize=args.binarize
    )
    for note in notes:
        _diagnostic(f"note: {note}")
    dataset = {
        "source": str(args.data),
        "target": args.target,
        "groups": args.groups,
        "feature_names": list(X.columns),
        "encoding": notes,
        "binarize": args.binarize,
    }
    report = _run(args, X, y, groups, dataset)
    return _finish(report, args.out)


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
    report = _run(args, X, y, None, dataset)
    code = _finish(report, args.out)
    print(f"Wall time: {time.perf_counter() - start:.1f} s")
    return code


# ------------------------------------------------------------------ parsing
def _epsilon(text):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number in [0, 1] or 'auto', got {text!r}"
        ) from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _fraction(text):
    value = _epsilon(text)
    if value == "auto":
        raise argparse.ArgumentTypeError("expected a number in [0, 1]")
    return value


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or not np.isfinite(value):
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, got {text!r}"
        )
    return value


def _jobs(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-zero integer (-1: all cores), got {text!r}"
        )
    return value


def _common_options(sub, *, epsilon_help, default_out):
    sub.add_argument("--epsilon", type=_epsilon, default=0.01, help=epsilon_help)
    sub.add_argument(
        "--max-epsilon",
        type=_fraction,
        default=None,
        help="end of the plotted path (default: the epsilon)",
    )
    sub.add_argument(
        "--time-limit",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="seconds per MIP (default 60)",
    )
    sub.add_argument(
        "--total-time-limit",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds for the whole audit; the values at --epsilon come "
        "before the path, and values still open are reported as certified "
        "bounds",
    )
    sub.add_argument(
        "--n-jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="parallel MIPs / solver threads (-1: all cores)",
    )
    sub.add_argument(
        "--n-models",
        type=int,
        default=100,
        metavar="N",
        help="size of the sampled pool of logistic regressions (default 100)",
    )
    sub.add_argument("--random-state", type=int, default=0, metavar="SEED")
    sub.add_argument(
        "--out",
        default=default_out,
        metavar="DIR",
        help="directory of report.json, report.html, people.csv, models.csv "
        "and the plots" + ("" if default_out is None else f" (default: {default_out})"),
    )
    sub.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bars on stderr"
    )


def build_parser():
    """The argument parser of ``sklearn-multiplicity``.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = argparse.ArgumentParser(
        prog="sklearn-multiplicity",
        description="Exact predictive multiplicity (ambiguity, discrepancy) of "
        "linear classifiers, certified by mixed-integer programming.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="audit scikit-learn's breast cancer data",
        description="Audit the 0-1 optimal linear classifier on scikit-learn's "
        "breast cancer data (8 features binarised at their median).",
    )
    _common_options(
        demo, epsilon_help="error tolerance in [0, 1] or 'auto'", default_out=None
    )
    demo.set_defaults(func=_demo, estimator="zero-one")
    audit = commands.add_parser(
        "audit",
        help="audit a CSV file",
        description="Audit a linear classifier trained on a CSV file. Text, "
        "category and bool columns are one-hot encoded; numeric columns are used "
        "as they are, or with --binarize replaced by indicators of >= each "
        "quartile.",
    )
    audit.add_argument("data", metavar="DATA.csv", help="the training data")
    audit.add_argument(
        "--target", required=True, metavar="COLUMN", help="binary label column"
    )
    audit.add_argument(
        "--groups", default=None, metavar="COLUMN", help="group column (e.g. race)"
    )
    audit.add_argument(
        "--estimator",
        choices=("zero-one", "logistic"),
        default="zero-one",
        help="baseline: the 0-1 optimal linear classifier (default) or a "
        "logistic regression",
    )
    audit.add_argument(
        "--binarize",
        action="store_true",
        help="replace non-binary numeric columns by indicators of >= quartiles",
    )
    _common_options(
        audit,
        epsilon_help="error tolerance in [0, 1] (default 0.01), or 'auto' "
        "(half-width of the 95%% bootstrap interval of the baseline's error)",
        default_out="multiplicity-report",
    )
    audit.set_defaults(func=_audit)
    return parser


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
    _diagnostic(f"warning: {' '.join(str(message).split())}")


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if isinstance(exc, DataError) else f"{type(exc).__name__}: {text}"


def main(argv=None):
    """Run the command line and return its exit code.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    int
        0 on success, 2 on a usage or data error.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code
    _PENDING.clear()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            code = args.func(args)
        except _HANDLED as exc:
            _PENDING.clear()
            print(f"error: {_one_line(exc)}", file=sys.stderr)
            return USAGE_ERROR
        _flush_diagnostics()
        return code
