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

from .._engine import Deadline, capped, run_plan
from ._plans import PLANS

#: One sentence on how the two questions differ, for every output.
DIFFERENCE = (
    "The two audits ask different questions of the same logistic model: the "
    "0-1 audit counts the decisions that models within eps of the class's best "
    "error rate would change; the probabilistic audit bounds how far the "
    "predicted probabilities of models within eps nats of the best mean "
    "log-loss can move, and which decisions at the threshold they change."
)
#: The same sentence for a target of 3 to 20 labels.
LABELS_DIFFERENCE = (
    "The two audits ask different questions of the same multinomial logistic "
    "model: the 0-1 audit counts the labels that models within eps of the "
    "class's best error rate would change; the probabilistic audit bounds how "
    "far the predicted probabilities of models within eps nats of the best "
    "mean log-loss can move, and which labels (the most probable) they give."
)


def run_both(run_decisions, run_probabilistic, total_time_limit):
    """Both audits by the plan ``"command-line audit, both"``.

    Parameters
    ----------
    run_decisions, run_probabilistic : callable
        Each runs its audit (no argument) and returns its report.
    total_time_limit : float or None
        Seconds for both.

    Returns
    -------
    BothReport
    """
    reports = {}

    def step(name, run):
        def within(deadline):
            with capped(deadline):
                reports[name] = run()

        return within

    run_plan(
        PLANS["command-line audit, both"],
        Deadline(total_time_limit),
        {
            "decisions": step("decisions", run_decisions),
            "probabilistic": step("probabilistic", run_probabilistic),
        },
        every_step=True,
    )
    return BothReport(reports["decisions"], reports["probabilistic"])


@dataclasses.dataclass(eq=False)
class BothReport:
    """The 0-1 report with the probabilistic report beside it.

    Attributes
    ----------
    decisions : AuditReport or MulticlassReport
        The 0-1 audit (two labels, or 3 to 20).
    probabilistic : ProbabilisticReport or LabelProbabilisticReport
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
        found = self.decisions.auditor.assessment_  # None for K labels
        assessment = "" if found is None else found.text()
        decisions = self.decisions.summary()
        if assessment and decisions.startswith(assessment):  # said once, at the top
            decisions = decisions[len(assessment) :].lstrip("\n")
        texts = {
            "decisions": decisions,
            "probabilistic": self.probabilistic.summary(),
        }
        first = self.lead()
        second = "probabilistic" if first == "decisions" else "decisions"
        status = {
            name: "certified" if ok else "bands"
            for name, ok in (
                ("decisions", self.decisions_certified),
                ("probabilistic", self.probabilistic_certified),
            )
        }
        head = (
            f"Both level sets of one logistic model: the 0-1 audit "
            f"({status['decisions']}) and the probabilistic audit "
            f"({self.probabilistic.settles}: {status['probabilistic']}); the "
            f"{first} audit comes first.\n" + self.difference
        )
        rule = "\n" + "-" * 72 + "\n"
        return (
            "\n".join([assessment, "", head] if assessment else [head])
            + rule
            + texts[first]
            + rule
            + texts[second]
        )

    def to_dict(self):
        """The 0-1 report's numbers with the probabilistic section."""
        data = self.decisions.to_dict()
        data["probabilistic"] = self.probabilistic.to_dict()
        data["lead"] = self.lead()
        data["difference"] = self.difference
        return data

    def write(self, out):
        """Write the 0-1 report's files, ``probabilistic_people.csv``,
        ``probabilistic_models.csv`` and the probabilistic plot
        (``ranges.png``, or ``label_ranges.png`` for K labels; with
        matplotlib); ``report.json`` and ``report.html`` hold both audits."""
        out = Path(out)
        written = self.decisions.write(out)
        prob = self.probabilistic
        extra = [out / "probabilistic_people.csv", out / "probabilistic_models.csv"]
        prob.people().to_csv(extra[0])
        prob.models().to_csv(extra[1])
        image = prob.write_plot(out)
        extra += [] if image is None else [image]
        data = self.to_dict()
        data["files"] = [p.name for p in [*written, *extra]]
        (out / "report.json").write_text(json.dumps(data, indent=2) + "\n")
        page = (out / "report.html").read_text()
        (out / "report.html").write_text(self._with_section(page, image))
        return [*written, *extra]

    def _with_section(self, page, image):
        """``page`` (the 0-1 report's HTML) with the probabilistic section,
        first when it leads (after the assessment, or the title without
        one)."""
        import html

        section = "\n".join(
            [
                '<section id="probabilistic">',
                "<h2>Probabilistic audit of the same model</h2>",
                f"<p>{html.escape(self.difference)}</p>",
                self.probabilistic.html_section(image),
                "</section>",
            ]
        )
        if self.lead() == "decisions":
            at = page.index("</body>")
        elif '<section id="assessment">' in page:  # it tops the page
            top = page.index('<section id="assessment">')
            at = page.index("</section>", top) + len("</section>")
        else:
            at = page.index("</h1>") + len("</h1>")
        return page[:at] + section + page[at:]
