"""scikit-learn's own estimator checks (binary-only, as the tags declare)."""

from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    check_supervised_y_2d,
    parametrize_with_checks,
)

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier

#: Checked apart, with time for the MIP to finish: equal weights and repeated
#: rows give the same 0-1 optimum, not the same incumbent of a MIP stopped by
#: a one-second limit on a loaded machine.
WEIGHT_EQUIVALENCE = "check_sample_weight_equivalence_on_dense_data"
#: Likewise: a column-vector target fits the same model as a flat one, but two
#: fits of a three-label noise table stopped at one second need not stop at
#: the same incumbent.
COLUMN_TARGET = "check_supervised_y_2d"


def expected_failed_checks(estimator):
    if isinstance(estimator, ZeroOneLinearClassifier):
        apart = "checked apart, without a binding time limit"
        return {WEIGHT_EQUIVALENCE: apart, COLUMN_TARGET: apart}
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


def test_a_column_vector_target_fits_the_same_optimum():
    estimator = ZeroOneLinearClassifier(time_limit=120, random_state=0)
    check_supervised_y_2d("ZeroOneLinearClassifier", estimator)
