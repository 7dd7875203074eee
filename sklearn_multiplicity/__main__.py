"""Command line: ``python -m sklearn_multiplicity {demo,audit} ...``.

See :mod:`sklearn_multiplicity._cli` (``--help`` lists the options).
"""

import sys

from ._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
