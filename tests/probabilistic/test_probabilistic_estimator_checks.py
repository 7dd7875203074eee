"""scikit-learn's own estimator checks for the probabilistic auditor."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_multiplicity import ProbabilisticAuditor


@parametrize_with_checks([ProbabilisticAuditor()])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
