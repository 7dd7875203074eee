"""Where the documentation finds the data files some examples read.

The same rule as the examples' own: the folder named by the environment
variable ``SKLEARN_MULTIPLICITY_DATA``, else ``../shared/data`` next to the
repository.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def data_file(name):
    """The path of data file ``name``, or ``None`` when it is absent."""
    folders = []
    if os.environ.get("SKLEARN_MULTIPLICITY_DATA"):
        folders.append(Path(os.environ["SKLEARN_MULTIPLICITY_DATA"]))
    folders.append(ROOT.parent / "shared" / "data")
    for folder in folders:
        if (folder / name).is_file():
            return folder / name
    return None
