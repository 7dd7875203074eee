"""``audit --estimator logistic`` (or ``--measure both``): the 0-1 audit and
the probabilistic audit of the same logistic regression, in one report.

The two audits answer different questions about the same model. The 0-1
audit counts the decisions that models within ``--epsilon`` of the class's
best 0-1 error would change; the probabilistic audit bounds how far the
predicted probabilities of the models within ``--log-loss-epsilon`` nats of
the best mean log-loss can move. The report leads with whichever is
certified. A target of 3 to 20 labels gets the K-class 0-1 audit and the
probabilistic audit of the same multinomial model, whose decisions are the
most probable labels.
"""

import dataclasses
import json
from pathlib import Path

from ._format import write_csv
from ._html import with_probabilistic_section
from ._report import atomic_file
from ._sentences import DIFFERENCE, LABELS_DIFFERENCE
from ._text import both_summary


@dataclasses.dataclass(eq=False)
class BothReport:
    """The 0-1 report with the probabilistic report beside it.

    Attributes
    ----------
    decisions : DecisionsReport
        The 0-1 audit (two labels, or 3 to 20).
    probabilistic : ProbabilisticReport
        The probabilistic audit of the same model.
    """

    decisions: object
    probabilistic: object

    @property
    def decisions_certified(self):
        """Whether the 0-1 audit's values are certified."""
        return not self.decisions.open_values()

    @property
    def probabilistic_certified(self):
        """Whether the probabilistic audit's decisions are certified: its
        ranges (two labels) or every person's labels (K labels), and its
        ambiguity (its discrepancy, a non-convex question, may stay a band)."""
        return self.probabilistic.decisions_certified

    @property
    def difference(self):
        """How the two audits' questions differ, in one sentence."""
        return LABELS_DIFFERENCE if self.probabilistic.multinomial else DIFFERENCE

    def lead(self):
        """``"probabilistic"`` when only it is certified, else ``"decisions"``."""
        if self.probabilistic_certified and not self.decisions_certified:
            return "probabilistic"
        return "decisions"

    def summary(self):
        """The assessment, then both summaries, the certified one first, and
        how the two questions differ."""
        return both_summary(self)

    def to_dict(self):
        """The 0-1 report's numbers with the probabilistic section."""
        data = self.decisions.to_dict()
        data["probabilistic"] = self.probabilistic.to_dict()
        data["lead"] = self.lead()
        data["difference"] = self.difference
        return data

    @property
    def raw_csv(self):
        """Whether both audits write their CSV cells as they are."""
        return self.decisions.raw_csv

    @raw_csv.setter
    def raw_csv(self, raw):
        self.decisions.raw_csv = self.probabilistic.raw_csv = raw

    def write(self, out):
        """Write the 0-1 report's files, ``probabilistic_people.csv``,
        ``probabilistic_models.csv`` and the probabilistic plot
        (``ranges.png``, or ``label_ranges.png`` for K labels; with
        matplotlib); ``report.json`` and ``report.html`` hold both audits."""
        out = Path(out)
        written = self.decisions.write(out)
        prob = self.probabilistic
        extra = [out / "probabilistic_people.csv", out / "probabilistic_models.csv"]
        for path, table in zip(extra, (prob.people(), prob.models()), strict=True):
            with atomic_file(path) as temporary:
                write_csv(table, temporary, raw=self.raw_csv)
        image = prob.write_plot(out)
        extra += [] if image is None else [image]
        data = self.to_dict()
        data["files"] = [p.name for p in [*written, *extra]]
        page = with_probabilistic_section(
            (out / "report.html").read_text(), self, image
        )
        with atomic_file(out / "report.html") as temporary:
            temporary.write_text(page)
        with atomic_file(out / "report.json") as temporary:
            temporary.write_text(json.dumps(data, indent=2) + "\n")
        return [*written, *extra]
