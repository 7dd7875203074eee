"""One request, for the whole process, to stop solving now.

A command line that receives SIGINT or SIGTERM keeps what the audit has
proved so far. :func:`request_stop` ends every deadline of the engine at
once (a request finishes its steps with the certified bands it has, and no
new MIP starts), and interrupts the running solves that can be interrupted:
a solve registers how (:func:`interruptible`), and returns as at a time
limit, with its best solution and its proven bound, which the audit records
as it records any stopped MIP.

CP-SAT stops at once (``stop_search``). HiGHS and SCIP through MathOpt 9.15
finish the MIP they are solving: MathOpt passes HiGHS no interrupter, and
gSCIP's interrupter and callbacks print an event-handler error on every
solve. Their per-MIP time limit bounds the wait.
"""

import contextlib
import threading

_STOP = threading.Event()
_LOCK = threading.Lock()
#: The interruptions of the solves running now.
_RUNNING = set()


def request_stop():
    """Interrupt every running solve and every solve to come, until
    :func:`clear_stop`."""
    with _LOCK:
        _STOP.set()
        running = list(_RUNNING)
    for interrupt in running:
        interrupt()


def stop_requested():
    """Whether :func:`request_stop` was called (and not cleared since)."""
    return _STOP.is_set()


def clear_stop():
    """Let solves run again (a library session that goes on after a stop)."""
    _STOP.clear()


@contextlib.contextmanager
def interruptible(interrupt):
    """Within the block, :func:`request_stop` calls ``interrupt()``; it is
    called at once when a stop was already requested."""
    with _LOCK:
        _RUNNING.add(interrupt)
        stopped = _STOP.is_set()
    try:
        if stopped:
            interrupt()
        yield
    finally:
        with _LOCK:
            _RUNNING.discard(interrupt)
