"""Docstrings kept apart from the methods they document."""


def documented(docstring):
    """Give the decorated function ``docstring`` as its docstring.

    The auditor's methods that call the functions of a module (``_people``,
    ``_requests``, ``_paths``) take their docstrings from that module, next to
    the code behind them.
    """

    def document(function):
        function.__doc__ = docstring
        return function

    return document
