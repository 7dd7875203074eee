"""scikit-learn's own estimator checks (binary-only, as the tags declare)."""

from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier


@parametrize_with_checks(
    [
        ZeroOneLinearClassifier(time_limit=1, random_state=0),
        MultiplicityAuditor(LogisticRegression(), time_limit=1, random_state=0),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
