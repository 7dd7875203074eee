"""hand_out: which jobs it starts, when it prepares them, what it learns."""

import pytest

from sklearn_multiplicity._engine.timing._scheduling import Deadline, Job, hand_out


class RecordingBackend:
    """Returns the MIP itself as its result."""

    def __init__(self, solved):
        self.solved = solved

    def solve(self, mip, first_solution=False):
        self.solved.append(mip)
        return mip


def run(n_jobs, workers, *, lookahead, keep=lambda name: True):
    """Hand out jobs ``0 .. n_jobs - 1``; the main thread's events, in order."""
    events, solved = [], []
    queue = list(range(n_jobs))

    def next_job():
        if not queue:
            events.append("next: none")
            return None
        name = queue.pop(0)
        events.append(f"next {name}")

        def refresh():
            events.append(f"refresh {name}")
            return keep(name)

        def learn(result):
            events.append(f"learn {result}")

        return Job(name, learn, refresh=refresh)

    def make_backend(threads):
        return RecordingBackend(solved)

    hand_out(workers, next_job, Deadline(None), make_backend, lookahead=lookahead)
    return events, solved


def test_without_lookahead_each_job_is_chosen_after_the_last_result():
    events, solved = run(3, 1, lookahead=False)
    assert events == [
        "next 0", "refresh 0", "learn 0",
        "next 1", "refresh 1", "learn 1",
        "next 2", "refresh 2", "learn 2",
        "next: none",
    ]  # fmt: skip
    assert solved == [0, 1, 2]


def test_lookahead_prepares_the_next_job_while_the_worker_is_busy():
    events, solved = run(3, 1, lookahead=True)
    assert events == [
        "next 0", "refresh 0", "next 1", "learn 0",
        "refresh 1", "next 2", "learn 1",
        "refresh 2", "next: none", "learn 2",
        "next: none",
    ]  # fmt: skip
    assert solved == [0, 1, 2]


def test_a_job_its_refresh_declines_is_never_solved():
    events, solved = run(4, 1, lookahead=True, keep=lambda name: name != 2)
    assert sorted(solved) == [0, 1, 3]
    assert "learn 2" not in events
    assert events.index("learn 1") < events.index("refresh 2")


@pytest.mark.parametrize("lookahead", [False, True])
def test_every_job_is_solved_and_learnt_once_with_two_workers(lookahead):
    events, solved = run(7, 2, lookahead=lookahead)
    assert sorted(solved) == list(range(7))
    learnt = sorted(int(e.split()[1]) for e in events if e.startswith("learn"))
    assert learnt == list(range(7))


def test_no_job_starts_after_the_deadline():
    started = []

    def next_job():
        started.append(len(started))
        return Job(len(started), lambda result: None)

    hand_out(2, next_job, Deadline(-1), lambda threads: None, lookahead=True)
    assert started == []
