"""Command line: ``python -m sklearn_multiplicity demo``."""

import argparse
import sys


def _demo(args):
    from sklearn.datasets import load_breast_cancer

    from . import ZeroOneLinearClassifier

    X, y = load_breast_cancer(return_X_y=True)
    clf = ZeroOneLinearClassifier(time_limit=args.time_limit, n_jobs=args.n_jobs)
    clf.fit(X, y)
    print("Breast cancer (scikit-learn), 569 people, 30 features")
    print(
        f"  0-1 optimal linear classifier: {clf.n_errors_:.0f} training errors "
        f"(certified lower bound {clf.lower_bound_:.0f}, status {clf.status_}, "
        f"{clf.solve_time_:.1f} s)"
    )
    print(
        f"  warm start: {clf.warm_start_['source']} with "
        f"{clf.warm_start_['n_errors']:.0f} errors"
    )
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="sklearn-multiplicity",
        description="Exact predictive multiplicity of linear classifiers.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="audit a dataset bundled with scikit-learn")
    demo.add_argument("--time-limit", type=float, default=60.0)
    demo.add_argument("--n-jobs", type=int, default=None)
    demo.set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
