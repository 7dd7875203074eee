"""The command line, the top layer of the package: :mod:`._arguments` parses
and checks the arguments, :mod:`._data` reads and encodes the CSV file,
:mod:`._run` runs the audit with the estimators under one deadline and
collects every value in an :class:`~._report.AuditReport`, which
:mod:`._report` and :mod:`._format` turn into JSON, CSV and text and
:mod:`._html` into plots and an HTML page. :func:`main` runs a subcommand
from end to end; only :mod:`sklearn_multiplicity.__main__` imports this
layer."""

from ._main import main

__all__ = ["main"]
