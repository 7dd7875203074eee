import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from sklearn_multiplicity import MultiplicityAuditor  # noqa: E402
from sklearn_multiplicity._estimators._sampling import SamplingAuditor  # noqa: E402
from sklearn_multiplicity._reporting._plotting import (  # noqa: E402
    FoldMultiplicityDisplay,
    GroupAmbiguityDisplay,
    MultiplicityPathDisplay,
)


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.RandomState(0)
    X = rng.randint(0, 2, size=(40, 4)).astype(float)
    y = (X @ [1.0, -1.0, 0.5, 0.7] + rng.normal(0, 0.8, 40) > 0.6).astype(int)
    groups = np.where(rng.rand(40) > 0.4, "A", "B")
    auditor = MultiplicityAuditor(LogisticRegression(), epsilon=0.1, time_limit=10)
    auditor.fit(X, y, groups=groups)
    sampling = SamplingAuditor.from_auditor(auditor, X, y, n_models=20, random_state=0)
    return auditor, sampling


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_path_display_lines_hold_the_path(fitted, tmp_path):
    auditor, sampling = fitted
    display = MultiplicityPathDisplay.from_auditor(auditor, 0.1, sampling=sampling)
    path = auditor.path(0.1)
    sampled = sampling.path(0.1)
    assert set(display.lines_) == {
        "ambiguity",
        "discrepancy",
        "sampling ambiguity",
        "sampling discrepancy",
    }
    for name in ("ambiguity", "discrepancy"):
        line = display.lines_[name]
        np.testing.assert_allclose(line.get_xdata(), path["epsilon"])
        np.testing.assert_allclose(line.get_ydata(), path[name])
        dashed = display.lines_[f"sampling {name}"]
        assert dashed.get_linestyle() == "--"
        np.testing.assert_allclose(dashed.get_xdata(), sampled["epsilon"])
        np.testing.assert_allclose(dashed.get_ydata(), sampled[name])
        assert np.all(dashed.get_ydata() <= line.get_ydata() + 1e-12)
    assert display.ax_.figure is display.figure_
    assert display.bands_ == {}
    out = tmp_path / "path.png"
    display.figure_.savefig(out)
    assert out.exists() and out.stat().st_size > 0


def test_path_display_shades_open_bounds_only():
    path = pd.DataFrame(
        {
            "epsilon": [0.0, 0.1, 0.2],
            "ambiguity": [0.1, 0.2, 0.3],
            "ambiguity_lower": [0.1, 0.2, 0.3],
            "ambiguity_upper": [0.1, 0.5, 0.6],
            "discrepancy": [0.05, 0.1, 0.1],
            "discrepancy_lower": [0.05, 0.1, 0.1],
            "discrepancy_upper": [0.05, 0.1, 0.1],
        }
    )
    display = MultiplicityPathDisplay(path=path).plot()
    assert set(display.bands_) == {"ambiguity"}
    assert set(display.lines_) == {"ambiguity", "discrepancy"}
    assert len(display.ax_.collections) == 1
    # A line is called exact only where every value it draws is certified.
    assert display.lines_["ambiguity"].get_label() == (
        "ambiguity (exact, else lower bound)"
    )
    assert display.lines_["discrepancy"].get_label() == "discrepancy (exact)"


def test_path_display_draws_on_given_axes(fitted):
    auditor, _ = fitted
    fig, ax = plt.subplots()
    display = MultiplicityPathDisplay.from_auditor(auditor, ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    assert len(ax.get_lines()) == 2


def test_group_display_bars_hold_group_ambiguity(fitted, tmp_path):
    auditor, _ = fitted
    display = GroupAmbiguityDisplay.from_auditor(auditor, eps=0.1)
    by_group = auditor.by_group(0.1).by_group
    heights = [bar.get_height() for bar in display.bars_]
    assert len(heights) == len(by_group) == 2
    np.testing.assert_allclose(heights, by_group["ambiguity"])
    labels = [t.get_text() for t in display.ax_.get_xticklabels()]
    assert labels == [str(g) for g in by_group.index]
    overall = auditor.by_group(0.1).overall["ambiguity"]
    np.testing.assert_allclose(display.overall_line_.get_ydata(), [overall] * 2)
    out = tmp_path / "groups.png"
    display.figure_.savefig(out)
    assert out.exists() and out.stat().st_size > 0


def test_group_display_marks_open_bounds():
    by_group = pd.DataFrame(
        {
            "ambiguity": [0.2, 0.4],
            "ambiguity_lower": [0.2, 0.4],
            "ambiguity_upper": [0.2, 0.7],
        },
        index=pd.Index(["x", "y"], name="group"),
    )
    display = GroupAmbiguityDisplay(by_group=by_group).plot()
    assert display.overall_line_ is None
    assert display.errorbar_ is not None
    (segments,) = display.errorbar_.lines[2]
    np.testing.assert_allclose(segments.get_segments()[0][:, 1], [0.4, 0.7])


def test_displays_take_keyword_arguments_only():
    with pytest.raises(TypeError):
        MultiplicityPathDisplay(pd.DataFrame())
    with pytest.raises(TypeError):
        GroupAmbiguityDisplay(pd.DataFrame())


def test_path_display_passes_kwargs_to_the_lines(fitted):
    auditor, sampling = fitted
    display = MultiplicityPathDisplay.from_auditor(
        auditor, 0.1, sampling=sampling, color="red", lw=3.5, alpha=0.5
    )
    assert len(display.lines_) == 4
    for line in display.lines_.values():
        assert line.get_color() == "red"
        assert line.get_linewidth() == 3.5
        assert line.get_alpha() == 0.5
    # Defaults not overridden are kept: the sampled lines stay dashed.
    assert display.lines_["sampling ambiguity"].get_linestyle() == "--"
    assert display.lines_["ambiguity"].get_linestyle() == "-"

    display = MultiplicityPathDisplay(path=auditor.path(0.1)).plot(linestyle=":")
    assert {line.get_linestyle() for line in display.lines_.values()} == {":"}


def test_group_display_passes_kwargs_to_the_bars(fitted):
    auditor, _ = fitted
    fig, ax = plt.subplots()
    display = GroupAmbiguityDisplay.from_auditor(
        auditor, eps=0.1, ax=ax, color="green", ec="black", alpha=0.4
    )
    assert display.ax_ is ax
    for bar in display.bars_:
        np.testing.assert_allclose(bar.get_facecolor(), (0.0, 0.5, 0.0, 0.4), atol=0.01)
        np.testing.assert_allclose(bar.get_edgecolor(), (0.0, 0.0, 0.0, 0.4))


def _line_data(display):
    return {
        name: (list(line.get_xdata()), list(line.get_ydata()), line.get_linewidth())
        for name, line in display.lines_.items()
    }


def test_from_estimator_and_its_alias_from_auditor_give_the_same_display(fitted):
    auditor, sampling = fitted
    new = MultiplicityPathDisplay.from_estimator(auditor, 0.1, sampling=sampling, lw=2)
    old = MultiplicityPathDisplay.from_auditor(auditor, 0.1, sampling=sampling, lw=2)
    assert type(new) is type(old) is MultiplicityPathDisplay
    pd.testing.assert_frame_equal(new.path, old.path)
    pd.testing.assert_frame_equal(new.sampling_path, old.sampling_path)
    assert _line_data(new) == _line_data(old)
    assert sorted(new.bands_) == sorted(old.bands_)

    new = GroupAmbiguityDisplay.from_estimator(auditor, 0.1, color="green")
    old = GroupAmbiguityDisplay.from_auditor(auditor, 0.1, color="green")
    pd.testing.assert_frame_equal(new.by_group, old.by_group)
    assert (new.overall, new.epsilon) == (old.overall, old.epsilon)
    assert [b.get_height() for b in new.bars_] == [b.get_height() for b in old.bars_]
    assert [b.get_facecolor() for b in new.bars_] == [
        b.get_facecolor() for b in old.bars_
    ]


def fold_results():
    """Two folds: the first certified, the second with open bands."""
    return pd.DataFrame(
        {
            "train_ambiguity_lower": [0.2, 0.3],
            "train_ambiguity_upper": [0.2, 0.7],
            "train_discrepancy_lower": [0.1, 0.15],
            "train_discrepancy_upper": [0.1, 0.25],
            "test_contestable": [0.25, 0.4],
            "test_undecided": [0.0, 0.35],
        },
        index=pd.RangeIndex(2, name="fold"),
    )


def _bars(container):
    """(x, bottom, top) of each bar of an errorbar container."""
    (segments,) = [c.get_segments() for c in container.lines[2]]
    return [(s[0][0], s[0][1], s[1][1]) for s in segments]


def test_fold_display_marks_lower_bounds_and_bars_up_to_upper_bounds():
    fig, ax = plt.subplots()
    display = FoldMultiplicityDisplay(results=fold_results(), epsilon=0.05)
    assert display.plot(ax=ax) is display
    assert display.ax_ is ax and display.figure_ is fig
    expected = {
        "training ambiguity": ([0.2, 0.3], [0.2, 0.7]),
        "training discrepancy": ([0.1, 0.15], [0.1, 0.25]),
        "held-out ambiguity": ([0.25, 0.4], [0.25, 0.75]),
    }
    assert sorted(display.errorbars_) == sorted(expected)
    for name, (lower, upper) in expected.items():
        container = display.errorbars_[name]
        np.testing.assert_allclose(container.lines[0].get_ydata(), lower)
        bars = _bars(container)
        np.testing.assert_allclose([b[1] for b in bars], lower)
        np.testing.assert_allclose([b[2] for b in bars], upper)
    # The three marks of a fold sit around its tick.
    xs = [display.errorbars_[n].lines[0].get_xdata()[1] for n in expected]
    assert min(xs) < 1 < max(xs)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]
    assert "ε = 0.05" in ax.get_title()


def test_fold_display_from_estimator_passes_kwargs(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randint(0, 2, size=(40, 3))
    y = (X[:, 0] + rng.rand(40) > 0.8).astype(int)
    _, ax = plt.subplots()
    display = FoldMultiplicityDisplay.from_auditor(
        MultiplicityAuditor(LogisticRegression()), X, y, eps=0.05, cv=3, ax=ax, ms=9
    )
    assert len(display.results) == 3
    for container in display.errorbars_.values():
        assert container.lines[0].get_markersize() == 9
        assert len(container.lines[0].get_xdata()) == 3
    display.figure_.savefig(tmp_path / "folds.png")
    assert (tmp_path / "folds.png").stat().st_size > 0
