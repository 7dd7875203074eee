"""Shared helpers of the benchmark scripts (not part of the library)."""

import argparse
import platform
import resource
import time
from pathlib import Path

DEFAULT_DATA = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "compas-scores-two-years.csv"
)


def parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="ProPublica's compas-scores-two-years.csv (downloaded when absent)",
    )
    return p


def load(path):
    from sklearn_multiplicity.datasets import load_compas

    bunch = load_compas(path if path.exists() else None)
    return bunch.data, bunch.target, bunch.groups


def machine():
    import os

    import ortools

    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, OR-Tools {ortools.__version__}"
    )


def peak_memory_mb():
    """Peak resident memory of this process (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


def table(rows, columns):
    """Print ``rows`` (dicts) as a fixed-width table."""
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    print("  ".join("-" * widths[c] for c in columns))
    for r in rows:
        print("  ".join(_fmt(r.get(c)).ljust(widths[c]) for c in columns))


def _fmt(value):
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1 else f"{value:.2f}"
    return "" if value is None else str(value)
