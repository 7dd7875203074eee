"""The auditor's time model: one audit per tolerance, which calls read.

The first call about a tolerance runs its audit within ``total_time_limit``;
later calls read what it certified (no solver call); ``refine`` continues it
and only tightens; a pickled auditor answers without solving; ``fit`` of a
given estimator solves nothing until the minimum error is asked for.
"""

import pickle
import time
import warnings

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny
from faulty_backends import NoSolutionBackend, SleepyBackend, _highs
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import (
    CertificationWarning,
    MultiplicityAuditor,
    ambiguity_scorer,
    discrepancy_scorer,
)
from sklearn_multiplicity.backends import Backend, get_backend


class Counting(Backend):
    """Records the name of every MIP it is asked to solve.

    ``inner`` solves them (``"highs"`` or ``"none"``: find and prove
    nothing). Copies share one record, as the engine copies backends.
    """

    name = "counting"

    def __init__(self, inner="highs", record=None, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner
        self.record = [] if record is None else record

    def _solve(self, mip, *, first_solution=False):
        self.record.append(mip.name)
        inner = _highs(self) if self.inner == "highs" else NoSolutionBackend()
        return inner._solve(mip, first_solution=first_solution)


def continuous(n=120, seed=0):
    X, y = make_classification(
        n_samples=n, n_features=4, n_informative=3, n_redundant=0, random_state=seed
    )
    groups = np.where(X[:, 0] > 0, "a", "b")
    return X, y, groups


def every_reading(auditor, X, y, eps):
    """Every call that reads the audit of ``eps``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        return {
            "ambiguity": auditor.ambiguity(eps),
            "ambiguity_bounds": auditor.ambiguity_bounds(eps),
            "discrepancy": auditor.discrepancy(eps),
            "discrepancy_bounds": auditor.discrepancy_bounds(eps),
            "evidence": auditor.evidence(eps),
            "conflicts": auditor.conflicts(eps),
            "competing_model": auditor.competing_model(0, eps),
            "discrepancy_model": auditor.discrepancy_model(eps),
            "by_group": auditor.by_group(eps),
            "ambiguity_scorer": ambiguity_scorer(eps)(auditor, X, y),
            "discrepancy_scorer": discrepancy_scorer(eps)(auditor, X, y),
        }


def test_a_tolerance_is_audited_once_and_read_after():
    X, y, groups = continuous()
    record = []
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=Counting("none", record), total_time_limit=30
    )
    auditor.fit(X, y, groups=groups)
    assert record == []  # fitting a given estimator solves no MIP
    with pytest.warns(CertificationWarning, match=r"lies in .*refine\(eps=0.05"):
        auditor.discrepancy(0.05)
    assert record  # the audit ran: nothing it asked was answered
    lower, upper = auditor.discrepancy_bounds(0.05)
    assert lower < upper  # open: the backend proves nothing
    solved = len(record)
    first = every_reading(auditor, X, y, 0.05)
    assert len(record) == solved  # every reading: no solver call
    # The same audit from a pickled copy: no solver call either.
    copy = pickle.loads(pickle.dumps(auditor))
    copy.session_.backend = Counting("none", record)
    again = every_reading(copy, X, y, 0.05)
    assert len(record) == solved
    assert again["ambiguity_bounds"] == first["ambiguity_bounds"]
    assert again["discrepancy_bounds"] == first["discrepancy_bounds"]
    # More time is an explicit act.
    auditor.refine(0.05, seconds=5)
    assert len(record) > solved


@pytest.mark.parametrize("seed", range(6))
def test_refine_only_tightens_and_meets_enumeration(seed):
    X, y = random_tiny(seed, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=NoSolutionBackend(), total_time_limit=20
    ).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for eps in (0.1, 0.25):
        before = (auditor.ambiguity_bounds(eps), auditor.discrepancy_bounds(eps))
        auditor.session_.backend = get_backend("highs", time_limit=20)
        auditor.refine(eps)
        after = (auditor.ambiguity_bounds(eps), auditor.discrepancy_bounds(eps))
        exact = (truth.ambiguity(z0, err0, eps), truth.discrepancy(z0, err0, eps))
        for (lo0, hi0), (lo1, hi1), value in zip(before, after, exact, strict=True):
            assert lo0 - 1e-9 <= lo1 and hi1 <= hi0 + 1e-9  # only tightens
            assert lo1 == pytest.approx(value) and hi1 == pytest.approx(value)
        auditor.session_.backend = NoSolutionBackend()


def test_minimum_error_is_solved_on_first_need():
    X, y = random_tiny(3, n=9, d=2, levels=3)
    record = []
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=Counting("highs", record)
    )
    auditor.fit(X, y)
    truth, _, _ = baseline_truth(auditor, X, y)
    assert auditor.session_.baseline_in_class()
    assert not any(name.startswith("min") for name in record)
    assert auditor.min_error_bounds_ == (truth.min_error, truth.min_error)
    solved = len(record)
    assert auditor.min_error_bounds_ == (truth.min_error, truth.min_error)
    assert len(record) == solved  # kept


def test_same_seed_same_results_where_no_limit_binds():
    X, y = random_tiny(4, n=40, d=3, levels=3)
    groups = np.where(X[:, 0] > 0, "a", "b")

    def audit():
        auditor = MultiplicityAuditor(
            LogisticRegression(), total_time_limit=None, time_limit=None
        )
        auditor.set_params(random_state=0).fit(X, y, groups=groups)
        readings = every_reading(auditor, X, y, 0.05)
        readings["path"] = auditor.path(0.05)
        return readings

    first, second = audit(), audit()
    for key in ("ambiguity_bounds", "discrepancy_bounds"):
        assert first[key] == second[key]
        assert first[key][0] == first[key][1]  # certified: no limit bound
    for key in ("evidence", "path"):
        assert first[key].equals(second[key])
    np.testing.assert_array_equal(first["conflicts"], second["conflicts"])


def test_the_time_of_a_tolerance_holds_over_every_call():
    X, y, groups = continuous()
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=SleepyBackend(), time_limit=0.3
    )
    auditor.set_params(total_time_limit=1.0).fit(X, y, groups=groups)
    began = time.perf_counter()
    every_reading(auditor, X, y, 0.05)
    # Unlimited, every MIP would sleep 0.3 s and there are dozens; the
    # calls share the tolerance's one second.
    assert time.perf_counter() - began <= 1.0 + 1.5


def test_refine_checks_its_seconds():
    X, y = random_tiny(0, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="seconds"):
        auditor.refine(0.1, seconds=-1)


def test_progress_moves_while_one_mip_runs(monkeypatch, capsys):
    from sklearn_multiplicity._reporting import _progress

    monkeypatch.setattr(_progress, "TICK_SECONDS", 0.1)
    X, y, groups = continuous()
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=SleepyBackend(), time_limit=1.0, verbose=1
    )
    auditor.set_params(total_time_limit=1.5).fit(X, y)
    session = auditor.session_
    readings = []
    snapshot = session.snapshot

    def reading(budget):
        readings.append(time.perf_counter())
        return snapshot(budget)

    monkeypatch.setattr(session, "snapshot", reading)
    began = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        auditor.ambiguity_bounds(0.05)
    # Read several times while the sleeping MIPs (1 s each) ran.
    during = [t for t in readings if t - began < 1.4]
    assert len(during) >= 5
    assert "audit at eps=0.05" in capsys.readouterr().err


class Reporting(Backend):
    """Reports a narrowing band five times over a second, then finds and
    proves nothing."""

    name = "reporting"

    def _solve(self, mip, *, first_solution=False):
        for step in range(5):
            time.sleep(0.2)
            self._observe(mip, 40 - step, 10 + step)
        return NoSolutionBackend()._solve(mip)


def test_the_minimum_errors_band_moves_while_its_mip_runs(monkeypatch, capsys):
    from sklearn_multiplicity import ZeroOneLinearClassifier
    from sklearn_multiplicity._reporting import _progress

    monkeypatch.setattr(_progress, "TICK_SECONDS", 0.05)
    X, y = random_tiny(0, n=60, d=3, levels=6, noise=0.3)
    ZeroOneLinearClassifier(solver=Reporting(), time_limit=5, verbose=1).fit(X, y)
    shown = capsys.readouterr().err
    assert "minimum error" in shown
    # The bar showed the solver's band as it narrowed, not only the end.
    assert "[10, " in shown and "[14, " in shown
    ZeroOneLinearClassifier(solver=Reporting(), time_limit=5).fit(X, y)
    assert "minimum error" not in capsys.readouterr().err


def test_a_known_minimum_error_shows_no_bar(capsys):
    X, y = random_tiny(0, n=30, d=2, levels=4, noise=0.3)
    auditor = MultiplicityAuditor(time_limit=10, verbose=1).fit(X, y)
    capsys.readouterr()
    assert auditor.min_error_bounds_ == auditor.session_.min_error_bounds(None)
    assert "minimum error" not in capsys.readouterr().err


def test_the_default_baselines_fit_fits_one_logistic_regression(monkeypatch):
    from sklearn_multiplicity._core import _models

    fits = []

    class Counted(_models.LogisticRegression):
        def fit(self, *args, **kwargs):
            fits.append(1)
            return super().fit(*args, **kwargs)

    monkeypatch.setattr(_models, "LogisticRegression", Counted)
    X, y = random_tiny(0, n=40, d=3, levels=4, noise=0.3)
    # The assessment and the warm start of the minimum-error MIP share it.
    MultiplicityAuditor(time_limit=10).fit(X, y)
    assert len(fits) == 1
