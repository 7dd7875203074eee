"""Counts and times of the solves of an audit, for its report."""

import collections

from ._format import finite_or_none


def summarize_mip_log(log):
    """Counts by status, total and slowest solve times of a ``mip_log_``.

    Parameters
    ----------
    log : list of dict
        The entries of :attr:`MultiplicityAuditor.mip_log_`, each with the
        keys ``mip``, ``status``, ``objective``, ``bound``, ``seconds``,
        ``solver`` and ``message``.

    Returns
    -------
    dict
        ``n_mips``, ``by_status`` (count of each status), ``total_seconds``,
        ``slowest`` (the five longest solves) and ``entries`` (every solve,
        for provenance: which problem, what the solver proved).
    """
    slowest = sorted(log, key=lambda e: -float(e["seconds"]))[:5]
    return {
        "n_mips": len(log),
        "by_status": dict(collections.Counter(str(e["status"]) for e in log)),
        "total_seconds": float(sum(float(e["seconds"]) for e in log)),
        "slowest": [
            {"mip": e["mip"], "status": e["status"], "seconds": e["seconds"]}
            for e in slowest
        ],
        "entries": [
            {
                "mip": e["mip"],
                "status": e["status"],
                "objective": finite_or_none(e["objective"]),
                "bound": finite_or_none(e["bound"]),
                "seconds": e["seconds"],
                "solver": e["solver"],
                "message": e["message"],
            }
            for e in log
        ],
    }
