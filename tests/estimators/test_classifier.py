import pickle
import warnings

import numpy as np
import pytest
from brute_force import Truth, random_tiny
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_multiplicity import ZeroOneLinearClassifier
from sklearn_multiplicity._mip._program import ERROR, MIPResult
from sklearn_multiplicity.backends import Backend

SOLVERS = ["highs", "scip", "cpsat"]


@pytest.mark.parametrize("seed", range(12))
def test_min_error_matches_enumeration(seed):
    d = 2 + seed % 2
    X, y = random_tiny(seed, n=9, d=d, levels=3 + seed % 2)
    truth = Truth(X, y)
    clf = ZeroOneLinearClassifier(time_limit=20).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == truth.min_error == clf.lower_bound_
    # The reported error is the error of the returned coefficients.
    assert np.sum(clf.predict(X) != y) == clf.n_errors_


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_backend_certifies_the_same_optimum(solver, seed):
    X, y = random_tiny(100 + seed, n=10, d=2, levels=3)
    truth = Truth(X, y)
    clf = ZeroOneLinearClassifier(solver=solver, time_limit=20).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == clf.lower_bound_ == truth.min_error


def test_weighted_errors_match_enumeration():
    X, y = random_tiny(7, n=9, d=2, levels=3)
    weight = np.arange(1, 10, dtype=float)
    truth = Truth(X, y, weight)
    clf = ZeroOneLinearClassifier(time_limit=20).fit(X, y, sample_weight=weight)
    assert clf.n_errors_ == truth.min_error
    assert np.sum(weight * (clf.predict(X) != y)) == clf.n_errors_


def test_xor_has_a_known_optimum():
    # XOR: any line misclassifies at least one of the four corners.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = np.array([0, 1, 1, 0] * 5)
    clf = ZeroOneLinearClassifier(time_limit=10).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == 5
    assert clf.training_error_ == pytest.approx(0.25)
    assert clf.n_patterns_ == 4


def test_repeating_rows_scales_errors():
    X, y = random_tiny(3, n=10, d=2, levels=4)
    k = 7
    once = ZeroOneLinearClassifier(time_limit=20).fit(X, y)
    many = ZeroOneLinearClassifier(time_limit=20).fit(
        np.repeat(X, k, 0), np.repeat(y, k)
    )
    assert many.n_errors_ == k * once.n_errors_
    assert many.n_patterns_ == once.n_patterns_


def test_mixed_patterns_give_a_lower_bound():
    # The same point with both labels costs one error whatever the model.
    X = np.array([[0.0], [0.0], [1.0], [2.0]])
    y = np.array([0, 1, 1, 1])
    clf = ZeroOneLinearClassifier(time_limit=10).fit(X, y)
    assert clf.n_errors_ == 1 == clf.lower_bound_


def test_redundant_one_hot_columns_are_mapped_back():
    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, size=40)
    onehot = np.eye(3)[group]
    extra = rng.integers(0, 2, size=(40, 1))
    X = np.hstack([onehot, extra, np.ones((40, 1))])  # plus a constant column
    y = ((group == 1) ^ (extra[:, 0] == 1)).astype(int)
    y[:3] = 1 - y[:3]
    clf = ZeroOneLinearClassifier(time_limit=20).fit(X, y)
    assert clf.coef_.shape == (1, 5)
    assert np.sum(clf.predict(X) != y) == clf.n_errors_ == clf.lower_bound_
    assert Truth(X, y).min_error == clf.n_errors_


def test_time_limit_too_short_gives_consistent_bounds():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    y = (X[:, 0] + 0.8 * rng.normal(size=400) > 0).astype(int)
    quick = ZeroOneLinearClassifier(time_limit=0.05, cuts=False).fit(X, y)
    assert quick.status_ == "feasible"
    assert quick.lower_bound_ < quick.n_errors_
    assert quick.gap_ > 0
    assert np.sum(quick.predict(X) != y) == quick.n_errors_
    better = ZeroOneLinearClassifier(time_limit=3, cuts=False).fit(X, y)
    # Whatever the longer run reaches, both bound pairs must overlap the truth.
    assert quick.lower_bound_ <= better.n_errors_
    assert better.lower_bound_ <= quick.n_errors_


class FailingBackend(Backend):
    name = "failing"

    def _solve(self, mip, *, first_solution=False):
        return MIPResult(ERROR, None, np.nan, -np.inf, 0.0, self.name, "boom")


def test_solver_failure_returns_the_warm_start():
    X, y = random_tiny(1, n=10)
    with pytest.warns(RuntimeWarning, match="did not solve"):
        clf = ZeroOneLinearClassifier(time_limit=5, solver=FailingBackend()).fit(X, y)
    assert clf.status_ in ("feasible", "optimal")
    assert clf.solver_status_ == "error"
    assert clf.lower_bound_ <= clf.n_errors_
    assert np.sum(clf.predict(X) != y) == clf.n_errors_
    assert np.any(clf.coef_ != 0) or clf.n_errors_ == min(y.sum(), len(y) - y.sum())


def test_fit_honours_the_time_limit():
    import time

    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 8))
    y = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    start = time.perf_counter()
    ZeroOneLinearClassifier(time_limit=1.0, cuts=False).fit(X, y)
    # Generous: the contract is time_limit plus a documented overhead.
    from sklearn_multiplicity._estimators._classifier import TIME_LIMIT_OVERHEAD

    assert time.perf_counter() - start < 1.0 + TIME_LIMIT_OVERHEAD


def test_pandas_feature_names_and_string_labels():
    pd = pytest.importorskip("pandas")
    X, y = random_tiny(5, n=12)
    frame = pd.DataFrame(X, columns=["income", "debt"])
    labels = np.where(y == 1, "approve", "deny")
    clf = ZeroOneLinearClassifier(time_limit=10).fit(frame, labels)
    assert list(clf.feature_names_in_) == ["income", "debt"]
    assert set(clf.predict(frame)) <= {"approve", "deny"}
    assert list(clf.classes_) == ["approve", "deny"]
    assert np.sum(clf.predict(frame) != labels) == clf.n_errors_


def test_clone_pickle_pipeline_gridsearch_cross_val():
    X, y = random_tiny(9, n=40, d=2, levels=5, noise=0.2)
    clf = ZeroOneLinearClassifier(time_limit=10, random_state=0)
    assert clone(clf).get_params() == clf.get_params()
    fitted = clf.fit(X, y)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    pipe = make_pipeline(StandardScaler(), ZeroOneLinearClassifier(time_limit=10))
    pipe.fit(X, y)
    assert pipe.score(X, y) == pytest.approx(1 - fitted.training_error_)
    search = GridSearchCV(pipe, {"zeroonelinearclassifier__margin": [1e-3, 1e-2]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["zeroonelinearclassifier__margin"] in (1e-3, 1e-2)
    scores = cross_val_score(ZeroOneLinearClassifier(time_limit=10), X, y, cv=3)
    assert scores.shape == (3,) and np.all((0 <= scores) & (scores <= 1))


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([[np.nan, 1], [1, 2]], [0, 1], "NaN"),
        ([[np.inf, 1], [1, 2]], [0, 1], "infinity"),
        ([[0, 1], [1, 2]], [1, 1], "only one class"),
        ([[0, 1], [1, 2], [2, 2]], [0, 1, 2], "one row only"),
        ([[0, 1], [1, 2], [2, 2]], [0, 1], "inconsistent numbers of samples"),
    ],
)
def test_bad_input_is_refused(X, y, match):
    with pytest.raises(ValueError, match=match):
        ZeroOneLinearClassifier(time_limit=5).fit(np.array(X, float), np.array(y))


@pytest.mark.parametrize(
    "weight, match",
    [
        ([1, -1, 1, 1], "non-negative"),
        ([0, 0, 0, 0], "non-zero|sums to zero"),
        ([1, 1], "shape"),
    ],
)
def test_bad_sample_weight_is_refused(weight, match):
    X = np.array([[0.0], [1], [2], [3]])
    with pytest.raises(ValueError, match=match):
        ZeroOneLinearClassifier(time_limit=5).fit(X, [0, 0, 1, 1], sample_weight=weight)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": -1}, "time_limit"),
        ({"solver": "gurobi"}, "Unknown solver"),
        ({"solver": "glop"}, "Unknown solver"),
        ({"margin": 0}, "margin"),
        ({"weights": "binary"}, "weights"),
        ({"solver": "cpsat", "weights": "continuous"}, "integer"),
    ],
)
def test_bad_parameters_are_refused(params, match):
    X = np.array([[0.0], [1], [2], [3]])
    with pytest.raises(ValueError, match=match):
        ZeroOneLinearClassifier(**params).fit(X, [0, 0, 1, 1])


def test_sparse_input_is_refused():
    sp = pytest.importorskip("scipy.sparse")
    X = sp.csr_matrix(np.eye(4))
    with pytest.raises(TypeError, match="[Ss]parse"):
        ZeroOneLinearClassifier().fit(X, [0, 0, 1, 1])


def test_cpsat_refuses_fractional_features():
    X = np.array([[0.5], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="integer-valued"):
        ZeroOneLinearClassifier(solver="cpsat").fit(X, [0, 0, 1, 1])


def test_unfitted_predict_raises():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        ZeroOneLinearClassifier().predict(np.zeros((2, 2)))


def test_warm_start_is_recorded():
    X, y = random_tiny(11, n=30, d=2, levels=6, noise=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = ZeroOneLinearClassifier(time_limit=10).fit(X, y)
    assert clf.warm_start_["n_errors"] >= clf.n_errors_
    assert clf.warm_start_["source"]


def test_text_columns_are_named():
    pd = pytest.importorskip("pandas")
    X, y = random_tiny(5, n=12)
    frame = pd.DataFrame(X, columns=["income", "debt"])
    frame["job"] = np.where(y == 1, "clerk", "baker")
    with pytest.raises(ValueError, match="text column.*'job'.*OneHotEncoder"):
        ZeroOneLinearClassifier(time_limit=5).fit(frame, y)
    mixed = np.column_stack([X, frame["job"]]).astype(object)
    with pytest.raises(ValueError, match="text column.*'column 2'"):
        ZeroOneLinearClassifier(time_limit=5).fit(mixed, y)
    # Numbers written as text still convert, as before.
    as_text = frame[["income", "debt"]].astype(str).astype(object)
    clf = ZeroOneLinearClassifier(time_limit=10).fit(as_text, y)
    assert clf.n_errors_ == ZeroOneLinearClassifier(time_limit=10).fit(X, y).n_errors_
