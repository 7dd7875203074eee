"""The paper's COMPAS workload (skipped where the data file is absent)."""

import numpy as np
import pytest

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._mip._cuts import affine_identities


def test_compas_compresses_to_the_papers_patterns(compas):
    problem = PatternProblem.from_data(compas.data, compas.target)
    assert problem.n_patterns == 329
    assert problem.total_weight == 6172
    # Four race dummies + three age dummies and the *_eq_0 columns are
    # affinely redundant given the intercept.
    assert problem.n_kept == 16
    assert affine_identities(problem.patterns).shape[0] == 73195


@pytest.mark.slow
def test_compas_zero_one_optimum_is_certified(compas):
    clf = ZeroOneLinearClassifier(time_limit=300, n_jobs=2).fit(
        compas.data, compas.target
    )
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == clf.lower_bound_ == 1985
    assert np.sum(clf.predict(compas.data) != compas.target) == 1985


@pytest.mark.slow
def test_compas_ambiguity_matches_the_commercial_anchor(compas):
    auditor = MultiplicityAuditor(epsilon=0.01, time_limit=600, n_jobs=2)
    auditor.fit(compas.data, compas.target)
    lower, upper = auditor.ambiguity_bounds()
    # 4,125 of 6,172 people (66.83%), as certified with a commercial solver.
    assert lower == upper == pytest.approx(4125 / 6172)
