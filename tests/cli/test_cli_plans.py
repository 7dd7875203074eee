"""The command line's plans share their whole budget, as the engine's do."""

import math

from sklearn_multiplicity._cli._plans import PLANS


def test_every_plan_shares_its_whole_budget():
    for name, plan in PLANS.items():
        assert math.isclose(sum(step.share for step in plan), 1.0), name
        assert all(step.share >= 0 and step.yields for step in plan), name
        names = [step.name for step in plan]
        assert len(set(names)) == len(names), name


def test_without_a_limit_the_path_comes_before_the_measures():
    limited = [step.name for step in PLANS["command-line audit"]]
    unlimited = [step.name for step in PLANS["command-line audit, unlimited"]]
    assert sorted(limited) == sorted(unlimited)
    assert unlimited.index("path") < unlimited.index("measures")
    assert limited.index("measures") < limited.index("path")
