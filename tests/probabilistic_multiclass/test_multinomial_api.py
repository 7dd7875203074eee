"""ProbabilisticAuditor on targets of three or more labels: the public
readings against scipy's constrained solver, their shapes, and the errors of
the readings defined for two labels only."""

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from multinomial_truth import min_with_label, objective, three_labels
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._exceptions import CertificationWarning

EPS = 0.03


def _lr():
    return LogisticRegression(tol=1e-12, max_iter=10_000)


@pytest.fixture(scope="module")
def audited():
    X, y = three_labels(seed=2, n=24)
    auditor = ProbabilisticAuditor(_lr(), log_loss_epsilon=EPS, total_time_limit=None)
    return X, y, auditor.fit(X, y)


@pytest.fixture(scope="module")
def truth(audited):
    """Per pair, whether scipy finds a model of the set giving the label."""
    X, y, auditor = audited
    lr = auditor.estimator_
    W0 = np.hstack([lr.coef_, lr.intercept_[:, None]])
    level = objective(W0, X, y, 1.0) + EPS
    base = lr.predict(X)
    out = np.zeros((len(X), 3), dtype=object)
    for i in range(len(X)):
        for k, lab in enumerate(lr.classes_):
            if lab == base[i]:
                out[i, k] = "yes"
                continue
            best = min_with_label(X, y, 1.0, W0, X[i], k)
            out[i, k] = (
                "yes"
                if best <= level - 1e-7
                else ("no" if best > level + 1e-7 else "tie")
            )
    return out


def test_reachable_labels_agree_with_scipy(audited, truth):
    X, y, auditor = audited
    reach = auditor.reachable_labels()
    assert list(reach.columns) == list(auditor.classes_)
    assert reach.shape == (len(X), 3)
    decided = truth != "tie"
    assert np.array_equal(reach.to_numpy()[decided], truth[decided])
    # Ambiguity is exact and matches the truth.
    other = truth == "yes"
    other[np.arange(len(X)), auditor.predict(X)] = False
    lower, upper = auditor.ambiguity_bounds()
    assert lower == upper == pytest.approx(other.any(axis=1).mean())
    assert auditor.ambiguity() == lower


def test_label_models_are_in_the_set(audited):
    X, y, auditor = audited
    reach = auditor.reachable_labels()
    level = auditor.objective_level()
    for i, lab in list(zip(*np.nonzero(reach.to_numpy() == "yes"), strict=True))[:10]:
        model = auditor.label_model(int(i), auditor.classes_[lab])
        assert model.predict(X[i : i + 1])[0] == auditor.classes_[lab]
        assert auditor.objective(model) <= level
    no = np.argwhere(reach.to_numpy() == "no")
    if len(no):
        with pytest.raises(LookupError):
            auditor.label_model(int(no[0, 0]), auditor.classes_[no[0, 1]])


def test_probability_ranges_shape_and_order(audited):
    X, y, auditor = audited
    r = auditor.viable_prediction_range()
    assert r.columns.names == ["field", "class"]
    for field in ("lower", "upper", "baseline", "lower_bound", "upper_bound"):
        assert list(r[field].columns) == list(auditor.classes_)
    base = auditor.predict_proba(X)
    assert np.allclose(r["baseline"].to_numpy(), base, atol=1e-8)
    tol = 1e-12
    assert np.all(r["lower_bound"].to_numpy() <= r["lower"].to_numpy() + tol)
    assert np.all(r["lower"].to_numpy() <= base + tol)
    assert np.all(base <= r["upper"].to_numpy() + tol)
    assert np.all(r["upper"].to_numpy() <= r["upper_bound"].to_numpy() + tol)
    # A label no model gives has probability at most 1/2.
    no = auditor.reachable_labels().to_numpy() == "no"
    assert np.all(r["upper_bound"].to_numpy()[no] <= 0.5)


def test_capacity_and_measures(audited):
    X, y, auditor = audited
    capacity = auditor.rashomon_capacity()
    assert isinstance(capacity, pd.Series) and len(capacity) == len(X)
    assert np.all((capacity >= 1 - 1e-9) & (capacity <= 3 + 1e-9))
    amb_lo, amb_hi = auditor.ambiguity_bounds()
    lo, hi = auditor.discrepancy_bounds()
    assert 0 <= lo <= hi == amb_hi
    assert lo > 0 if amb_lo > 0 else True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        assert 0 <= auditor.delta_ambiguity(delta=0.05) <= 1


def test_binary_only_readings_raise(audited):
    X, y, auditor = audited
    with pytest.raises(ValueError, match="label_model"):
        auditor.extreme_models(0)
    with pytest.raises(ValueError, match="threshold"):
        auditor.ambiguity(threshold=0.3)


def test_label_readings_raise_for_two_labels():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + rng.normal(size=30) > 0).astype(int)
    auditor = ProbabilisticAuditor(log_loss_epsilon=EPS).fit(X, y)
    with pytest.raises(ValueError, match="three or more labels"):
        auditor.reachable_labels()


def test_an_expired_time_limit_gives_bounds(audited, truth):
    X, y, _ = audited
    auditor = ProbabilisticAuditor(_lr(), log_loss_epsilon=EPS, total_time_limit=1e-9)
    auditor.fit(X, y)
    reach = auditor.reachable_labels().to_numpy()
    decided = (reach != "open") & (truth != "tie")
    assert np.array_equal(reach[decided], truth[decided])
    lower, upper = auditor.ambiguity_bounds()
    exact = ProbabilisticAuditor(_lr(), log_loss_epsilon=EPS).fit(X, y).ambiguity()
    assert lower <= exact <= upper
    if lower < upper:
        with pytest.warns(CertificationWarning):
            auditor.ambiguity()


def test_pipeline_and_clone():
    X, y = three_labels(seed=3, n=30)
    model = make_pipeline(StandardScaler(), _lr())
    auditor = ProbabilisticAuditor(model, log_loss_epsilon=EPS)
    assert clone(auditor).get_params()["log_loss_epsilon"] == EPS
    auditor.fit(X * 10, y)
    assert "3 labels" in auditor.level_set_
    reach = auditor.reachable_labels(X[:5] * 10)
    assert reach.shape == (5, 3)
    model = auditor.label_model(0, auditor.predict(X[:1] * 10)[0])
    assert auditor.objective(model) <= auditor.objective_level()


def test_verbose_reports_the_stages_of_the_label_reach(monkeypatch, capsys):
    from sklearn_multiplicity._probabilistic import _label_walk
    from sklearn_multiplicity._reporting import _progress

    monkeypatch.setattr(_progress, "TICK_SECONDS", 0.05)
    walk = _label_walk.LabelWalk._walk

    def slow_walk(self, *args, **kwargs):  # the bar must move along the walk
        time.sleep(0.05)
        return walk(self, *args, **kwargs)

    monkeypatch.setattr(_label_walk.LabelWalk, "_walk", slow_walk)
    monkeypatch.setattr(_label_walk, "BLOCK_FLOATS", 1)  # 8 pairs a block
    X, y = three_labels(seed=2, n=60)
    quiet = ProbabilisticAuditor(_lr(), log_loss_epsilon=EPS, total_time_limit=None)
    quiet.fit(X, y).reachable_labels()
    assert capsys.readouterr().err == ""
    auditor = ProbabilisticAuditor(
        _lr(), log_loss_epsilon=EPS, total_time_limit=None, verbose=1, n_jobs=1
    )
    status = auditor.fit(X, y).reachable_labels().to_numpy()
    shown = capsys.readouterr()
    assert shown.out == ""  # progress goes to stderr
    err = shown.err.replace("\r", "\n").splitlines()
    lines = [line for line in err if line.startswith("[ProbabilisticAuditor]")]
    assert lines[0].startswith(f"[ProbabilisticAuditor] eps={EPS:g} nats: ")
    asked = len(y) * 2  # every person's two other labels
    assert f"{asked} pairs (person, other label) of {len(y)} people" in lines[0]
    walked = int(lines[0].split("; ")[-1].split()[0])
    assert any(
        "walk settled" in line and f"of {walked} pairs" in line for line in lines
    )
    counts = {
        int(line.split("|")[2].split("/")[0]) for line in err if line.startswith("walk")
    }
    # Read at the start, along the way and at the end.
    assert len(counts) >= 3 and max(counts) == walked
    assert np.all(status != "open")
    auditor.reachable_labels()  # cached: nothing computed, nothing said
    assert capsys.readouterr().err == ""


def test_new_people_whom_no_inner_witness_reaches_get_ranges():
    # A block of pairs without a witness of the inner ellipsoid to try once
    # made the witnesses' directions fail to reshape.
    X, y = load_iris(return_X_y=True)
    auditor = ProbabilisticAuditor(
        LogisticRegression(max_iter=1000), log_loss_epsilon=0.02
    ).fit(X, y)
    ranges = auditor.viable_prediction_range(X[:7] * 1.1)
    assert len(ranges) == 7
    assert np.all(ranges["lower"] <= ranges["baseline"])
    assert np.all(ranges["baseline"] <= ranges["upper"])
