"""Docstrings kept apart from the methods they document."""

#: The ``eps`` parameter of every request, put where a docstring says ``{eps}``.
EPS = """eps : float in [0, 1] or dict, default=None
        Error tolerance (or one per class label); defaults to the
        ``epsilon`` parameter."""


def documented(docstring):
    """Give the decorated function ``docstring`` as its docstring, with
    ``{eps}`` replaced by the parameter's entry (:data:`EPS`).

    The auditor's methods that call the functions of a module (``_people``,
    ``_requests``, ``_paths``) take their docstrings from that module, next to
    the code behind them.
    """

    def document(function):
        function.__doc__ = docstring.replace("{eps}", EPS)
        return function

    return document
