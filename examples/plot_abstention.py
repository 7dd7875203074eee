"""
=====================================================
Abstaining on contestable people
=====================================================

**Question:** if a decision is arbitrary for some people (a model just as
accurate would decide otherwise), what happens when we refuse to decide for
them? How many people are still decided, and how accurate are those
decisions?

:class:`~sklearn_multiplicity.AbstainingClassifier` predicts the baseline's
label for people no model of the level set flips, and a reject value for the
others. Here it is evaluated on held-out people, where each new person is
asked alone whether some model of the training level set decides them
otherwise.
"""

# %%
# Data: breast cancer, eight features binarised at their median
# -------------------------------------------------------------
# The same table as ``sklearn-multiplicity demo``: 569 people, 98 distinct
# patterns, audited exactly in seconds.
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from sklearn_multiplicity import (
    AbstainingClassifier,
    MultiplicityAuditor,
    coverage_score,
    decided_accuracy_score,
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
X = (cancer.data[FEATURES] >= cancer.data[FEATURES].median()).astype(float)
y = cancer.target_names[cancer.target]
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.25, random_state=0, stratify=y
)

# %%
# Prediction sets for new people
# ------------------------------
# :meth:`~sklearn_multiplicity.MultiplicityAuditor.predict_set` gives a mask
# over ``classes_`` (as MAPIE's prediction sets do): one label where every
# model of the level set agrees, both where some model flips the person.
auditor = MultiplicityAuditor(time_limit=20, total_time_limit=40)
auditor.fit(X_train, y_train)
mask = auditor.predict_set(X_test, eps=0.01)
label_sets = pd.Series(["/".join(auditor.classes_[row]) for row in mask])
print(label_sets.value_counts())

# %%
# Abstaining, at several tolerances
# ---------------------------------
# The wider the level set, the more people are contestable: coverage falls,
# and the accuracy on the people still decided rises.
rows = []
for eps in [0.0, 0.005, 0.01, 0.02, 0.03]:
    clf = AbstainingClassifier(
        MultiplicityAuditor(time_limit=20, total_time_limit=40), eps=eps
    ).fit(X_train, y_train)
    predicted = clf.predict(X_test)
    rows.append(
        {
            "eps": eps,
            "coverage": coverage_score(y_test, predicted, reject=clf.reject_),
            "decided accuracy": decided_accuracy_score(
                y_test, predicted, reject=clf.reject_
            ),
        }
    )
table = pd.DataFrame(rows).set_index("eps")
baseline_accuracy = auditor.score(X_test, y_test)
print(table.round(3))
print(f"baseline accuracy on everyone: {baseline_accuracy:.3f}")

fig, ax = plt.subplots(figsize=(6, 3.8))
ax.plot(table.index, table["coverage"], "o-", label="coverage (decided share)")
ax.plot(table.index, table["decided accuracy"], "s-", label="accuracy on decided")
ax.axhline(baseline_accuracy, color="grey", ls=":", label="baseline accuracy")
ax.set_xlabel("eps (share of extra training errors)")
ax.set_ylim(0, 1.02)
ax.legend(loc="lower left")
ax.set_title("Held-out people: abstaining where the decision is arbitrary")
plt.show()

# %%
# What the numbers say
# --------------------
# At ``eps = 0`` only the few people whose decision flips among models
# exactly as accurate as the baseline are rejected. Each step of the
# tolerance makes more people contestable: at 1% more than a quarter of the
# held-out people get no decision, at 3% more than half. The accuracy on the
# people still decided is above the baseline's accuracy on everyone and
# tends to rise (not strictly: the people set aside are not only the ones
# the baseline gets wrong). Each held-out person's answer is certified: a
# model of the level set that flips them, or a proof that none does.
# ``coverage_scorer`` and ``decided_accuracy_scorer`` give the same two
# numbers inside :func:`~sklearn.model_selection.cross_validate`.
