"""
===========================================================================
In a scikit-learn workflow: Pipeline, GridSearchCV and cross-validation
===========================================================================

**Question:** we tune a logistic regression with
:class:`~sklearn.model_selection.GridSearchCV` and report its
cross-validated accuracy. Can we report, fold by fold, how arbitrary its
decisions on *held-out* people are, with the same tools?

:class:`~sklearn_multiplicity.MultiplicityAuditor` is a scikit-learn
estimator: it wraps the model (here a :class:`~sklearn.pipeline.Pipeline`,
audited in the features its last step sees), delegates ``predict`` and
``score`` to the fitted baseline, clones, pickles, and tunes through
``estimator__<param>``. :func:`~sklearn_multiplicity.ambiguity_scorer` and
:func:`~sklearn_multiplicity.discrepancy_scorer` measure multiplicity on
the held-out fold.
"""

# %%
# A Pipeline audited in its transformed features
# ----------------------------------------------
# Eight breast cancer measurements, each cut at its median inside the
# Pipeline (:class:`~sklearn.preprocessing.KBinsDiscretizer`), then a
# logistic regression. The auditor audits the linear model in the one-hot
# features the discretiser produces: binary columns and few distinct
# patterns, which the MIPs certify in seconds.
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from sklearn_multiplicity import (
    MultiplicityAuditor,
    ambiguity_scorer,
    discrepancy_scorer,
)

FEATURES = [
    "mean radius",
    "mean texture",
    "mean smoothness",
    "mean compactness",
    "mean concavity",
    "mean symmetry",
    "worst radius",
    "worst texture",
]
cancer = load_breast_cancer(as_frame=True)
X, y = cancer.data[FEATURES], cancer.target

model = make_pipeline(
    KBinsDiscretizer(
        n_bins=2,
        strategy="quantile",
        encode="onehot-dense",
        quantile_method="averaged_inverted_cdf",
    ),
    LogisticRegression(max_iter=1000),
)
auditor = MultiplicityAuditor(model, epsilon=0.01, time_limit=10, total_time_limit=20)

# %%
# Tuning the baseline through the auditor
# ---------------------------------------
# ``GridSearchCV`` sees an ordinary classifier: its ``score`` is the
# baseline's accuracy, and ``fit`` costs what the baseline costs (no MIP
# runs until a multiplicity question is asked).
search = GridSearchCV(
    auditor,
    {"estimator__logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
    cv=StratifiedKFold(3, shuffle=True, random_state=0),
)
search.fit(X, y)
print(
    pd.DataFrame(search.cv_results_)[
        ["param_estimator__logisticregression__C", "mean_test_score", "rank_test_score"]
    ]
)
best = search.best_estimator_
print(f"best: C = {search.best_params_['estimator__logisticregression__C']}")
print(f"distinct patterns in the audit space: {best.n_patterns_}")
print(f"ambiguity on the training set at 1%: {best.ambiguity_bounds()}")

# %%
# Cross-validated multiplicity scores
# -----------------------------------
# In every fold the auditor is fitted on the training part; the scorers ask
# about the held-out people: ``ambiguity_scorer`` for the share that some
# model of the fold's level set decides otherwise (each person asked alone,
# by a MIP when no known model answers), ``discrepancy_scorer`` for the
# share on which the fold's discrepancy model disagrees with the baseline.
scores = cross_validate(
    best,
    X,
    y,
    cv=StratifiedKFold(3, shuffle=True, random_state=1),
    scoring={
        "accuracy": "accuracy",
        "ambiguity": ambiguity_scorer(0.01),
        "discrepancy": discrepancy_scorer(0.01),
    },
)
table = pd.DataFrame(scores)[["test_accuracy", "test_ambiguity", "test_discrepancy"]]
table.index.name = "fold"
print(table.round(3))
print(table.mean().round(3))

fig, ax = plt.subplots(figsize=(6, 3.5))
table.plot.bar(ax=ax, rot=0)
ax.set_ylim(0, 1)
ax.set_ylabel("held-out share")
ax.set_title("Accuracy and multiplicity on each held-out fold (eps = 1%)")
ax.legend(["accuracy", "ambiguity", "discrepancy"], loc="upper right")
plt.show()

# %%
# What the numbers say
# --------------------
# The grid search picks the baseline as usual; multiplicity does not enter
# its choice unless asked to (a multiplicity scorer can be one of
# ``GridSearchCV``'s scores). The held-out numbers say that, for a model
# about nine in ten right, a sizeable share of *new* patients could be
# classified otherwise by a model making at most 1% more training errors,
# while the single most different model disagrees on far fewer of them.
# Each fold's numbers are certified for that fold's level set; their spread
# across folds is the usual sampling variability of the training data.
