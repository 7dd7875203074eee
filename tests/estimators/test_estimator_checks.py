"""scikit-learn's own estimator checks (binary-only, as the tags declare)."""

from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    parametrize_with_checks,
)

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier

#: Checked apart, with time for the MIP to finish: equal weights and repeated
#: rows give the same 0-1 optimum, not the same incumbent of a MIP stopped by
#: a one-second limit on a loaded machine.
WEIGHT_EQUIVALENCE = "check_sample_weight_equivalence_on_dense_data"


def expected_failed_checks(estimator):
    if isinstance(estimator, ZeroOneLinearClassifier):
        return {WEIGHT_EQUIVALENCE: "checked apart, without a binding time limit"}
    return {}


@parametrize_with_checks(
    [
        ZeroOneLinearClassifier(time_limit=1, random_state=0),
        MultiplicityAuditor(LogisticRegression(), time_limit=1, random_state=0),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_sample_weights_equal_repeated_rows_at_the_optimum():
    estimator = ZeroOneLinearClassifier(time_limit=60, random_state=0)
    check_sample_weight_equivalence_on_dense_data("ZeroOneLinearClassifier", estimator)
