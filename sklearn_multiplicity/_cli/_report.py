"""What every report of the command line has: its files, its measure rows
and its model table.

A report is a completed audit: :class:`~._decisions_report.DecisionsReport`
(the exact 0-1 audit) or :class:`~._probabilistic_report.ProbabilisticReport`
(the log-loss level set), each of two labels or K. :meth:`Report.write`
writes every report the same way; :mod:`._text` and :mod:`._html` render any
of them.
"""

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._format import CERTIFIED, PATH_TABLE, linear_parts, plain, write_csv
from ._html import render_page
from ._text import parts, summary


@contextlib.contextmanager
def atomic_file(path):
    """A context yielding a temporary path beside ``path``, renamed to
    ``path`` when the block ends without an error (and removed when it
    fails), so that a reader sees the old file or the new one, never a part.

    Parameters
    ----------
    path : path-like
    """
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(fd)
    try:
        yield Path(temporary)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def measure_row(lower, upper, status):
    """One measure's row of a report's table: ``value`` (NaN unless
    certified: a band is not a value), ``lower``, ``upper``, ``status``."""
    return {
        "value": lower if status == CERTIFIED else np.nan,
        "lower": lower,
        "upper": upper,
        "status": status,
    }


def label_text(classes, mask):
    """Per row of ``mask`` (n_samples, n_classes), its labels,
    ``;``-separated."""
    return [";".join(str(plain(c)) for c in classes[row]) for row in mask]


def model_table(models, names, classes=None):
    """The weights of linear models, one row per model, or per model and
    label (index ``model``, ``label``) when ``classes`` are given.

    Parameters
    ----------
    models : dict
        ``{name: (estimator, columns)}``: a linear model (or a Pipeline
        ending in one) and the columns written after its ``intercept``.
    names : list of str
        The feature names.
    classes : array-like or None, default=None
        The labels of a K-label model's rows of weights.

    Returns
    -------
    pandas.DataFrame
    """
    rows = {}
    for name, (estimator, columns) in models.items():
        feats, coef, intercept = linear_parts(estimator, names)
        for k, label in enumerate([None] if classes is None else classes):
            key = name if classes is None else (name, plain(label))
            rows[key] = {
                **dict(zip(feats, coef[k], strict=True)),
                "intercept": intercept[k],
                **columns,
            }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.names = ["model"] if classes is None else ["model", "label"]
    return frame


class Report:
    """A completed audit, written as JSON, CSV, PNG and one HTML page.

    A subclass names its ``audit`` (``"decisions"`` or ``"probabilistic"``,
    what the renderers read) and gives ``k_labels``, :meth:`open_values`,
    :meth:`people`, :meth:`models`, :meth:`plots` and :meth:`to_dict`.

    Attributes
    ----------
    raw_csv : bool
        Write the CSV files' cells as they are; by default a text cell that a
        spreadsheet would run as a formula gets a leading quote
        (:func:`~._format.spreadsheet_safe`).
    """

    raw_csv = False

    def path_table(self):
        """The table of the path over the tolerance, written as
        ``path.csv`` (None: the report has no path)."""
        return None

    @property
    def n_people(self):
        """The number of people audited."""
        return len(self.y)

    @property
    def certified(self):
        """Whether every reported value is certified (no bound left open)."""
        return not self.open_values()

    def summary(self):
        """The report as plain text for the terminal.

        Returns
        -------
        str
        """
        return summary(self)

    def parts(self):
        """The summary in its parts (:func:`~._text.parts`): the answer,
        the groups sentence, what limited the answer, the details and the
        solver's side, each a list of lines.

        Returns
        -------
        dict
        """
        return parts(self)

    def write(self, out):
        """Write ``people.csv``, ``models.csv``, ``path.csv`` (with a path),
        the plots (with matplotlib), ``report.json`` and ``report.html`` to
        the directory ``out`` (created if needed).

        Parameters
        ----------
        out : str or path-like

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        # Every file is made in a staging folder beside them, then renamed
        # into place (report.json last): a reader, or a run stopped while it
        # writes, finds whole files of this report or of the one before.
        staging = Path(tempfile.mkdtemp(dir=out, prefix=".report-"))
        try:
            return self._write(out, staging)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _write(self, out, staging):
        write_csv(self.people(), staging / "people.csv", raw=self.raw_csv)
        models = self.models()
        write_csv(models, staging / "models.csv", raw=self.raw_csv)
        made = [staging / "people.csv", staging / "models.csv"]
        path = self.path_table()
        if path is not None:
            write_csv(path, staging / PATH_TABLE, raw=self.raw_csv)
            made.append(staging / PATH_TABLE)
        images = self.plots(staging)
        made += list(images.values())
        data = self.to_dict()
        data["files"] = [p.name for p in made] + ["report.json", "report.html"]
        (staging / "report.html").write_text(render_page(self, data, images, models))
        (staging / "report.json").write_text(json.dumps(data, indent=2) + "\n")
        for path in [*made, staging / "report.html", staging / "report.json"]:
            os.replace(path, out / path.name)
        return [out / p.name for p in made] + [out / "report.json", out / "report.html"]
