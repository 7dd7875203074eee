"""The report as the person who must decide reads it: the answer first, in
plain words with its numbers, the same sentences on the terminal and the
page, percentages, no NaN, the path as a plot and a CSV, readable group
labels, and the groups column said to be left out of the features."""

import html
import itertools
import json
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._plots import LABEL_CHARS, group_plot, short_labels

matplotlib.use("Agg")

FAST = ["--time-limit", "10", "--n-models", "20", "--quiet"]
LEFT_OUT = (
    "The column 'group' defines the groups and is not used as a feature by "
    "the model; pass --keep-groups-as-feature to keep it."
)


@pytest.fixture
def csv(tmp_path):
    rng = np.random.RandomState(0)
    n = 40
    frame = pd.DataFrame(
        {
            "smoker": rng.randint(0, 2, n),
            "region": rng.choice(["north", "south", "east"], n),
            "group": rng.choice(["A", "B"], n),
        }
    )
    score = frame["smoker"] + 0.8 * (frame["region"] == "north")
    frame["outcome"] = np.where(score + rng.normal(0, 0.7, n) > 0.4, "yes", "no")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def audit(capsys, csv, out, *flags):
    argv = ["audit", csv, "--target", "outcome", *flags, "--out", out, *FAST]
    code = main([str(a) for a in argv])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    return stdout, report, (out / "report.html").read_text()


def share(measure, n):
    """The answer's words for a measure of ``report.json``."""
    lower, upper = measure["lower"], measure["upper"]
    if measure["certified"]:
        return f"exactly {lower:.1%} ({round(lower * n)} people)"
    return f"between {lower:.1%} and {upper:.1%}"


def test_the_summary_opens_with_the_answer_and_ends_with_the_solver(
    csv, tmp_path, capsys
):
    stdout, report, page = audit(capsys, csv, tmp_path / "r", "--groups", "group")
    lines = stdout.splitlines()
    n = report["dataset"]["n_rows"]
    extra = report["epsilon"]["extra_errors"]
    base = report["baseline"]["errors"]
    assert lines[0].startswith(f"Out of {n} people, {share(report['ambiguity'], n)}"), (
        lines[0]
    )
    assert "could get a different decision from a model almost as accurate" in lines[0]
    assert f"at most {extra:g} more training errors than its {base:g}" in lines[0]
    assert lines[1].startswith("One such model alone would change the decision of ")
    assert share(report["discrepancy"], n) in lines[1]
    by_group = {g["group"]: g for g in report["groups"]}
    assert lines[2].startswith("By group ('group'): A ")
    assert f"B {by_group['B']['ambiguity_lower']:.1%}" in lines[2]
    assert lines[3] == LEFT_OUT
    # What limited the answer comes next, the solver's side last.
    assert stdout.index("Assessment: ") < stdout.index("Audit of ")
    assert stdout.index("Contestable people") < stdout.index("Solver detail:")
    assert stdout.index("Solver detail:") < stdout.index("What the assessment read")
    assert "MIPs: " in stdout.split("Solver detail:")[1]
    # The page says the same sentences, from the same source.
    for line in lines[:4]:
        assert html.escape(line) in page, line
    assert (
        page.index('id="answer"')
        < page.index('id="assessment"')
        < page.index("<h2>Measures</h2>")
        < page.index('<details id="solver">')
        < page.index("What the assessment read")
    )
    assert page.index('<details id="solver">') < page.index("<h2>Timings (s)</h2>")


def test_a_time_limit_is_said_with_its_routes_and_bands(csv, tmp_path, capsys):
    flags = ["--epsilon", "0.1", "--total-time-limit", "0.001"]
    stdout, report, page = audit(capsys, csv, tmp_path / "r", *flags)
    assert report["certified"] is False
    first = stdout.splitlines()[0]
    assert share(report["ambiguity"], 40) in first or "exactly" in first
    limits = stdout.split("What limited the answer:")[1].split("\n\n")[0]
    assert "A time limit stopped the solver" in limits
    assert "--total-time-limit 0.001 s" in limits
    assert "Routes to a sharper answer:" in limits
    assert "What limited the answer" in page and "Routes to a sharper answer" in page
    assert "A time limit stopped the solver" in page


def test_the_page_shows_percentages_and_no_nan(csv, tmp_path, capsys):
    flags = ["--groups", "group", "--epsilon", "0.1", "--total-time-limit", "0.001"]
    _, report, page = audit(capsys, csv, tmp_path / "r", *flags)
    assert not re.search(r"\bnan\b", page, re.IGNORECASE)
    assert "<td>None</td>" not in page and "<td>\u2013</td>" in page
    # The measures' own table (timings elsewhere may read 0.0000 s).
    measures = page.split("<h2>Measures</h2>")[1].split("<h2>")[0]
    for name in ("ambiguity", "discrepancy"):
        lower, upper = report[name]["lower"], report[name]["upper"]
        assert f"<td>{lower:.2%}</td>" in measures
        assert f"<td>{upper:.2%}</td>" in measures
        assert f"<td>{lower:.4f}</td>" not in measures
    for group in report["groups"]:
        assert f"<td>{group['ambiguity_upper']:.2%}</td>" in page


def test_the_path_is_a_plot_and_a_linked_csv(csv, tmp_path, capsys):
    out = tmp_path / "r"
    flags = ["--epsilon", "0.05", "--max-epsilon", "0.1"]
    _, report, page = audit(capsys, csv, out, *flags)
    assert "path.csv" in report["files"]
    path = pd.read_csv(out / "path.csv")
    assert len(path) == len(report["path"]) > 1
    assert np.allclose(
        path["ambiguity_upper"], [r["ambiguity_upper"] for r in report["path"]]
    )
    assert {"sampling_ambiguity", "sampling_discrepancy"} <= set(path.columns)
    assert 'href="path.csv"' in page and 'alt="path"' in page
    assert "<th>extra_errors</th>" not in page  # not dumped into the page


def test_the_groups_column_is_left_out_unless_kept(csv, tmp_path, capsys):
    _, report, _ = audit(capsys, csv, tmp_path / "a", "--groups", "group")
    assert not any(f.startswith("group") for f in report["dataset"]["feature_names"])
    assert report["dataset"]["groups_as_feature"] is False
    flags = ["--groups", "group", "--keep-groups-as-feature"]
    stdout, report, page = audit(capsys, csv, tmp_path / "b", *flags)
    assert {"group_A", "group_B"} <= set(report["dataset"]["feature_names"])
    assert report["dataset"]["groups_as_feature"] is True
    kept = "The column 'group' defines the groups and is also a feature of the model"
    assert kept in stdout and html.escape(kept) in page
    assert LEFT_OUT not in stdout
    X, _, groups, _ = load_audit_data(csv, "outcome", "group", keep_groups=True)
    assert (X["group_A"].to_numpy() == (groups == "A")).all()
    X, _, _, _ = load_audit_data(csv, "outcome", "group")
    assert "group_A" not in X.columns


def _by_group(names, open_bounds=False):
    k = len(names)
    lower = np.linspace(0.05, 0.3, k)
    upper = lower + (0.4 if open_bounds else 0.0)
    return pd.DataFrame(
        {
            "n": np.full(k, 10),
            "ambiguity": lower,
            "ambiguity_lower": lower,
            "ambiguity_upper": upper,
        },
        index=pd.Index(names, name="group"),
    )


def _tick_boxes(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    ax = fig.axes[0]
    return [t.get_window_extent(renderer) for t in ax.get_xticklabels()]


@pytest.mark.parametrize(
    "names",
    [
        ["female", "male"],
        [f"a rather long name of a group number {i}" for i in range(14)],
        [f"region-{i:02d}-of-the-very-northern-part" for i in range(40)],
        ["African-American", "Caucasian", "Hispanic", "Asian", "Native American"],
    ],
)
def test_group_labels_do_not_overlap(names):
    fig = group_plot(_by_group(names), overall=0.2, epsilon=0.01)
    boxes = _tick_boxes(fig)
    assert len(boxes) == len(names)
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert len(set(labels)) == len(names)
    assert all(
        len(line) <= LABEL_CHARS for label in labels for line in label.split("\n")
    )


def test_the_group_plot_grows_with_the_groups_and_names_bounds():
    few = group_plot(_by_group(["A", "B"]), overall=0.2, epsilon=0.01)
    many = group_plot(_by_group([f"g{i}" for i in range(40)], True), 0.2, 0.01)
    assert many.get_figwidth() > few.get_figwidth()
    legend = [t.get_text() for t in many.axes[0].get_legend().get_texts()]
    assert "ambiguity (certified lower bound)" in legend
    legend = [t.get_text() for t in few.axes[0].get_legend().get_texts()]
    assert "ambiguity" in legend


def test_short_labels_cut_with_an_ellipsis_and_stay_distinct():
    names = ["x" * 40, "x" * 41, "short", "the start and 1", "the start and 2"]
    labels = short_labels(names, chars=10)
    assert labels[0] == "x" * 6 + "\u2026" + "x" * 3
    assert labels[1] == "xxxx\u2026x (2)"
    assert labels[2] == "short"
    assert labels[3:] == ["the st\u2026d 1", "the st\u2026d 2"]
    assert all(len(label) <= 10 for label in labels)


def test_the_probabilistic_summary_opens_with_its_answer(csv, tmp_path, capsys):
    flags = ["--measure", "probabilistic", "--groups", "group"]
    stdout, report, page = audit(capsys, csv, tmp_path / "r", *flags)
    lines = stdout.splitlines()
    assert lines[0].startswith("Out of 40 people, ")
    assert "mean log-loss at most 0.01 nats above the best's" in lines[0]
    assert lines[1].startswith("One such model alone would change the decision")
    assert LEFT_OUT in lines
    for line in lines[:3]:
        assert html.escape(line) in page
    assert page.index('id="answer"') < page.index("<h2>Models</h2>")
    assert not re.search(r"\bnan\b", page, re.IGNORECASE)


def test_both_audits_open_with_both_answers(csv, tmp_path, capsys):
    stdout, report, page = audit(capsys, csv, tmp_path / "r", "--measure", "both")
    first, second = stdout.splitlines()[0], stdout.splitlines()[2]
    titles = ("0-1 audit: Out of 40 people", "Probabilistic audit: Out of 40 people")
    if report["lead"] == "probabilistic":
        titles = titles[::-1]
    assert first.startswith(titles[0]) and second.startswith(titles[1])
    assert stdout.index("Solver detail:") < stdout.index("Probabilistic audit: Timings")
