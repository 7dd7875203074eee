"""Plans (shares of a request's budget) and time accounts (one per question)."""

import math
import re
import time
from pathlib import Path

import pytest

import sklearn_multiplicity
from sklearn_multiplicity._engine import PLANS, Deadline, Step, run_plan
from sklearn_multiplicity._engine.timing._accounts import TimeAccounts
from sklearn_multiplicity._engine.timing._plans import CONDITIONS, Schedule


def test_every_plan_shares_its_whole_budget():
    for name, plan in PLANS.items():
        assert math.isclose(sum(step.share for step in plan), 1.0), name
        assert all(step.share >= 0 and step.yields for step in plan), name
        names = [step.name for step in plan]
        assert len(set(names)) == len(names), name


def test_twins_without_identities_have_the_same_steps():
    for name, plan in PLANS.items():
        twin = PLANS.get(f"{name} without identities")
        if twin is not None:
            assert [s.name for s in twin] == [s.name for s in plan], name


def test_a_step_ends_at_its_cumulative_share_and_passes_on_unused_time():
    plan = (Step("a", 0.25, "x"), Step("b", 0.25, "x"), Step("c", 0.5, "x"))
    seen = {}

    def record(name):
        def run(deadline):
            seen[name] = deadline.remaining()

        return run

    run_plan(plan, Deadline(8.0), {name: record(name) for name in "abc"})
    assert seen["a"] == pytest.approx(2.0, abs=0.05)  # its own quarter
    assert seen["b"] == pytest.approx(4.0, abs=0.05)  # its own and a's unused
    assert seen["c"] == pytest.approx(8.0, abs=0.05)  # what a and b left


def test_a_step_that_does_not_apply_hands_its_share_on_in_proportion():
    skipped = Step("skipped", 0.5, "x", "groups")
    plan = (Step("a", 0.25, "x"), skipped, Step("c", 0.25, "x"))
    seen = {}
    steps = {"a": lambda d: seen.setdefault("a", d.remaining()), "c": seen.get}
    run_plan(plan, Deadline(8.0), steps)
    assert seen["a"] == pytest.approx(4.0, abs=0.05)  # half of what applies
    assert "skipped" not in seen
    schedule = Schedule(plan, Deadline(8.0))
    assert "skipped" not in schedule
    with pytest.raises(KeyError, match="not a step"):
        schedule.step("skipped")
    assert "skipped" in Schedule(plan, Deadline(8.0), holds={"groups"})


def test_a_plan_refuses_names_it_does_not_hold():
    plan = (Step("a", 0.5, "x"), Step("b", 0.5, "x", "groups"))
    seen = []
    with pytest.raises(ValueError, match="not in the plan: \\['typo'\\]"):
        run_plan(plan, Deadline(1.0), {"a": seen.append, "typo": seen.append})
    with pytest.raises(ValueError, match="no callable for: \\['b'\\]"):
        run_plan(plan, Deadline(1.0), {"a": seen.append}, holds={"groups"})
    with pytest.raises(ValueError, match="not a condition"):
        Step("c", 1.0, "x", "a class with real weights")
    with pytest.raises(ValueError, match="Unknown conditions"):
        Schedule(plan, Deadline(1.0), holds={"grups"})
    assert seen == []


def test_every_condition_of_the_plans_is_read_by_a_request():
    # A condition no request says holds would leave its steps out forever.
    package = Path(sklearn_multiplicity.__file__).parent / "_engine"
    source = "".join(
        path.read_text() for path in package.rglob("*.py") if path.name != "_plans.py"
    )
    used = {s.applies for plan in PLANS.values() for s in plan} - {"always"}
    assert used
    assert all(f'"{condition}"' in source for condition in used)


def test_a_schedule_keeps_the_last_step_its_share_whatever_came_before():
    plan = PLANS["ambiguity"]
    every = set(CONDITIONS)  # every step applies
    schedule = Schedule(plan, Deadline(10.0), every)
    time.sleep(0.3)  # the earlier steps overran their ends
    assert schedule.step("search").remaining() == pytest.approx(1.7, abs=0.1)
    assert schedule.step("mips").remaining() == pytest.approx(9.7, abs=0.1)
    unlimited = Schedule(plan, Deadline(None), every)
    assert all(unlimited.step(s.name).remaining() == math.inf for s in plan)


def test_a_step_that_overruns_leaves_the_later_ones_their_shares_only():
    plan = (Step("a", 0.5, "x"), Step("b", 0.5, "x"))
    seen = {}

    def slow(deadline):
        time.sleep(0.3)

    def b(deadline):
        seen["b"] = deadline.remaining()

    run_plan(plan, Deadline(1.0), {"a": slow, "b": b})
    assert seen["b"] == pytest.approx(0.7, abs=0.05)


def test_an_unlimited_plan_runs_every_step_unlimited():
    seen = []
    plan = PLANS["tolerance audit"]
    steps = {step.name: lambda d: seen.append(d.remaining()) for step in plan}
    run_plan(plan, Deadline(None), steps, holds={"groups"})
    assert seen == [math.inf] * len(plan)


def test_an_expired_request_runs_no_step():
    seen = []
    plan = PLANS["tolerance audit"]
    steps = {step.name: seen.append for step in plan}
    run_plan(plan, Deadline(0.0), steps)
    assert seen == []


def test_accounts_charge_close_and_grant():
    accounts = TimeAccounts()
    with accounts.charge("q", 10.0) as deadline:
        assert deadline.remaining() == pytest.approx(10.0, abs=0.05)
        time.sleep(0.2)
    assert accounts.remaining("q", 10.0) == pytest.approx(9.8, abs=0.05)
    assert accounts.remaining("other", 10.0) == 10.0  # one account per question
    accounts.close("q", 10.0)
    assert accounts.exhausted("q", 10.0)
    assert not accounts.exhausted("q", 20.0)  # a new limit, a new contract
    accounts.grant("q", 3.0, 10.0)
    assert not accounts.exhausted("q", 10.0)
    assert accounts.remaining("q", 10.0) == pytest.approx(3.0, abs=1e-9)
    assert accounts.remaining("q", None) == math.inf
    accounts.grant("q", None, 10.0)
    assert accounts.remaining("q", 10.0) == math.inf


def test_time_shares_are_defined_in_the_plans_module_only():
    package = Path(sklearn_multiplicity.__file__).parent
    share = re.compile(r"^[A-Z_]*(SHARE|SECONDS)[A-Z_]* = ", re.MULTILINE)
    elsewhere = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "_plans.py" and share.search(path.read_text())
    ]
    # The progress bar's tick is a display rate, not a share of a request.
    assert elsewhere == ["_reporting/_progress.py"]


def test_spend_reads_once_closed_and_runs_while_open():
    accounts, seen = TimeAccounts(), []

    def work(deadline):
        seen.append(deadline.expired())
        return len(seen)

    assert accounts.spend("q", 5.0, None, work, settled=lambda: False) == 1
    assert seen == [False]  # ran with time, left open: closed
    accounts.spend("q", 5.0, None, work, settled=lambda: False)
    assert seen == [False, True]  # read, no time
    accounts.spend("p", 5.0, None, work, settled=lambda: True)
    assert seen == [False, True, True]  # settled: read
    assert not accounts.exhausted("p", 5.0)


def test_every_step_runs_with_an_expired_deadline_once_time_is_up():
    seen = []
    plan = (Step("a", 0.5, "x"), Step("b", 0.5, "x"))
    steps = {name: lambda d, n=name: seen.append((n, d.expired())) for name in "ab"}
    run_plan(plan, Deadline(0.0), steps, every_step=True)
    assert seen == [("a", True), ("b", True)]
