"""The command line, the top layer of the package.

:mod:`._arguments` parses and checks the arguments and :mod:`._data` reads
and encodes the CSV file. :mod:`._run` runs an audit, two labels or K, as a
plan of timed stages under one deadline (:mod:`._plans`) and collects its
values in a :class:`~._report.Report`: a
:class:`~._decisions_report.DecisionsReport` (the exact 0-1 audit), a
:class:`~._probabilistic_report.ProbabilisticReport` (the log-loss level
set), or the two side by side (:mod:`._both`). :mod:`._text` renders any
report for the terminal and :mod:`._html` as one page, from the sentences of
:mod:`._sentences`; :mod:`._plots` draws its plots. :func:`main` runs a
subcommand from end to end; only :mod:`sklearn_multiplicity.__main__`
imports this layer.
"""

from ._main import main

__all__ = ["main"]
