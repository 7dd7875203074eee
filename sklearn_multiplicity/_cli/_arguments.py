"""The arguments of ``sklearn-multiplicity``: the parser and its value checks.

Every value is checked while parsing, so a bad one ends as an argparse usage
error (one ``error: ...`` line and exit code 2) before any data is read.
"""

import argparse

import numpy as np


def _share(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number in [0, 1], 'auto' or LABEL=EPS,LABEL=EPS, got {text!r}"
        ) from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _per_class(text):
    """``LABEL=EPS,LABEL=EPS``: one tolerance per class label (matched to the
    target's labels once the data is read)."""
    tolerances = {}
    for item in text.split(","):
        label, sep, value = item.partition("=")
        label = label.strip()
        if not sep or not label:
            raise argparse.ArgumentTypeError(
                f"expected LABEL=EPS for each class, separated by commas, got {text!r}"
            )
        if label in tolerances:
            raise argparse.ArgumentTypeError(f"class {label!r} given twice in {text!r}")
        tolerances[label] = _share(value.strip())
    if len(tolerances) < 2:
        raise argparse.ArgumentTypeError(
            "expected one tolerance for each of the two classes (or each "
            f"label of a K-label target), got {text!r}"
        )
    return tolerances


def _epsilon(text):
    if text == "auto":
        return text
    return _per_class(text) if "=" in text else _share(text)


def _fraction(text):
    value = _epsilon(text)
    if value == "auto":
        raise argparse.ArgumentTypeError("expected a number in [0, 1]")
    return value


def _checked(kind, accepts, expected):
    """An argument type: ``kind(text)`` when ``accepts`` it, else a usage
    error saying what was ``expected``."""

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not accepts(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


_threshold = _checked(float, lambda v: 0 < v < 1, "a number in (0, 1)")
_seconds = _checked(
    float, lambda v: v > 0 and np.isfinite(v), "a positive number of seconds"
)
#: Seconds for the whole of ``audit`` unless ``--total-time-limit`` says
#: otherwise: the library's own default (``MultiplicityAuditor``'s
#: ``total_time_limit``), so that a long audit ends with certified bounds.
DEFAULT_TOTAL_TIME_LIMIT = 300.0


def _total_seconds(text):
    """``--total-time-limit``: seconds, or ``none`` for no limit (exact
    values, however long they take)."""
    if text.strip().lower() == "none":
        return None
    return _seconds(text)


_jobs = _checked(int, lambda v: v != 0, "a non-zero integer (-1: all cores)")
_count = _checked(int, lambda v: v >= 0, "a non-negative integer")


_SIGNS = {"+1": 1, "+": 1, "1": 1, "-1": -1, "-": -1, "0": 0}


def _column_names(text):
    """A comma-separated list of column names."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected column names, comma-separated")
    return names


def _sign(text):
    feature, _, sign = text.rpartition("=")
    if not feature or sign not in _SIGNS:
        raise argparse.ArgumentTypeError(
            f"expected FEATURE=SIGN with SIGN +1, -1 or 0, got {text!r}"
        )
    return feature, _SIGNS[sign]


_RATES = ("selection", "fpr", "fnr")


def _rate_gap(text):
    rate, _, gap = text.partition("=")
    try:
        value = float(gap)
    except ValueError:
        value = -1.0
    if rate not in _RATES or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(
            f"expected RATE=GAP with RATE one of {', '.join(_RATES)} and GAP in "
            f"[0, 1], got {text!r}"
        )
    return rate, value


def _constraint_options(sub):
    group = sub.add_argument_group(
        "constrained competitors (--measure decisions; the baseline and every "
        "model of the level set meet them)"
    )
    group.add_argument(
        "--max-nonzero",
        type=_count,
        default=None,
        metavar="K",
        help="at most K non-zero weights",
    )
    group.add_argument(
        "--sign",
        type=_sign,
        action="append",
        default=[],
        metavar="FEATURE=SIGN",
        help="fixed sign of a feature's weight (+1, -1, or 0 to leave it out); "
        "features are the encoded columns (e.g. region_north); repeatable",
    )
    group.add_argument(
        "--rate-gap",
        type=_rate_gap,
        action="append",
        default=[],
        metavar="RATE=GAP",
        help="the groups' selection rate, false positive rate (fpr) or false "
        "negative rate (fnr) within GAP of each other (needs --groups); "
        "repeatable",
    )


def _common_options(sub, *, epsilon_help, default_out, default_total=None):
    sub.add_argument("--epsilon", type=_epsilon, default=0.01, help=epsilon_help)
    sub.add_argument(
        "--max-epsilon",
        type=_fraction,
        default=None,
        help="end of the plotted path (default: the epsilon); LABEL=EPS,"
        "LABEL=EPS when the epsilon is per class (each class's or label's "
        "tolerance grows in equal steps, capped at its own); with 3 to 20 "
        "labels, one number beside a per-label epsilon ends the path of one "
        "overall tolerance",
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
        type=_total_seconds,
        default=default_total,
        metavar="S",
        help="seconds for the whole audit, or 'none' for exact values however "
        "long they take (default: "
        + ("none" if default_total is None else f"{default_total:g}")
        + "); the values at --epsilon come before the path, values still open "
        "are reported as certified bounds, and the report is rewritten as "
        "they tighten",
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
    sub.add_argument(
        "--raw-csv",
        action="store_true",
        help="write the CSV files' text cells as they are (by default a cell "
        "starting with =, +, -, @, tab or carriage return, which a spreadsheet "
        "would run as a formula, gets a leading ')",
    )
    sub.add_argument(
        "--abstain",
        action="store_true",
        help="also report abstention: the baseline's decision for people no "
        "model of the level set flips, 'abstain' for the others (people.csv "
        "column 'decision'; coverage and accuracy on the decided people)",
    )


def build_parser():
    """The argument parser of ``sklearn-multiplicity``.

    The parsed namespace names its subcommand (``"demo"`` or ``"audit"``)
    in ``command``.

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
        demo,
        epsilon_help="error tolerance in [0, 1], 'auto', or one per class "
        "(benign=EPS,malignant=EPS)",
        default_out=None,
    )
    demo.set_defaults(estimator="zero-one")
    audit = commands.add_parser(
        "audit",
        help="audit a CSV file",
        description="Audit a linear classifier trained on a CSV file. Text, "
        "category and bool columns are one-hot encoded; numeric columns are used "
        "as they are, or with --binarize replaced by indicators of >= each "
        "quartile. Identifier columns (a distinct value on nearly every row) "
        "are left out with a warning unless named by --keep-column.",
    )
    audit.add_argument(
        "data",
        metavar="DATA",
        help="the training data: a CSV file, or a Parquet file or folder (read "
        "through dask into its distinct rows, as is a CSV larger than a quarter "
        'of memory; needs pip install "sklearn-multiplicity[scale]")',
    )
    audit.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="read the data through the dask scheduler at ADDRESS "
        "(e.g. tcp://10.0.0.5:8786), 'local' for a LocalCluster of one worker "
        "process per core, or 'threads' for dask's threads in this process; "
        "default: a LocalCluster when the table takes more than a quarter of "
        "memory, else threads",
    )
    audit.add_argument(
        "--target",
        required=True,
        metavar="COLUMN",
        help="label column: two labels, or 3 to 20 for the K-class audit",
    )
    audit.add_argument(
        "--groups",
        default=None,
        metavar="COLUMN",
        help="group column (e.g. race): the measures are also reported per "
        "group; the column is left out of the model's features unless "
        "--keep-groups-as-feature",
    )
    audit.add_argument(
        "--keep-groups-as-feature",
        action="store_true",
        help="keep the --groups column as a feature of the model too (by "
        "default it only defines the groups)",
    )
    audit.add_argument(
        "--estimator",
        choices=("zero-one", "logistic"),
        default="zero-one",
        help="baseline: the 0-1 optimal linear classifier (default) or a "
        "logistic regression",
    )
    audit.add_argument(
        "--measure",
        choices=("decisions", "probabilistic", "both"),
        default="decisions",
        help="decisions: exact ambiguity and discrepancy over the 0-1 level "
        "set (default; with --estimator logistic, the probabilistic audit of "
        "the same model comes beside it); probabilistic: certified viable "
        "prediction ranges of a standardised logistic regression over its "
        "log-loss level set (--epsilon in nats of mean log-loss; with 3 to "
        "20 labels, a multinomial one and the labels it can give each "
        "person); both: the two audits of one logistic regression in one "
        "report",
    )
    audit.add_argument(
        "--log-loss-epsilon",
        type=float,
        default=0.01,
        metavar="NATS",
        help="tolerance of the probabilistic audit beside the 0-1 audit, in "
        "nats of mean log-loss (default 0.01)",
    )
    audit.add_argument(
        "--threshold",
        type=_threshold,
        default=0.5,
        help="decision threshold of --measure probabilistic (default 0.5; "
        "two labels: with 3 to 20 a decision is the most probable label)",
    )
    audit.add_argument(
        "--binarize",
        action="store_true",
        help="replace non-binary numeric columns by indicators of >= quartiles",
    )
    audit.add_argument(
        "--sample",
        type=_count,
        default=None,
        metavar="N",
        help="audit a random sample of N rows, seeded by --random-state "
        "(fewer distinct patterns: certified values for the sample)",
    )
    audit.add_argument(
        "--columns",
        type=_column_names,
        default=None,
        metavar="A,B,...",
        help="audit only these feature columns (comma-separated); the target "
        "and the groups column are read as well",
    )
    audit.add_argument(
        "--drop-column",
        action="append",
        default=[],
        metavar="NAME",
        help="leave column NAME out of the features; repeatable",
    )
    audit.add_argument(
        "--keep-column",
        action="append",
        default=[],
        metavar="NAME",
        help="keep column NAME as a feature although it looks like an "
        "identifier (in a table of 20 rows or more, a text column with a "
        "distinct value on more than 95%% of the rows, or an integer column "
        "with one on every row: left out with a warning otherwise); "
        "repeatable",
    )
    _constraint_options(audit)
    _common_options(
        audit,
        epsilon_help="error tolerance in [0, 1] (default 0.01), 'auto' "
        "(half-width of the 95%% bootstrap interval of the baseline's error), "
        "or one tolerance per class, LABEL=EPS,LABEL=EPS (the negative "
        "class's bounds the false positive rate, the positive class's the "
        "false negative rate; with 3 to 20 labels, one per label bounds "
        "the errors on that label's rows)",
        default_out="multiplicity-report",
        default_total=DEFAULT_TOTAL_TIME_LIMIT,
    )
    return parser


def parse_arguments(argv=None):
    """Parse the command line ``argv`` (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    argparse.Namespace
        The options, and the subcommand in ``command``.

    Raises
    ------
    SystemExit
        On ``--help`` (code 0) and on a usage error (code 2, after argparse
        printed its message).
    """
    return build_parser().parse_args(argv)
