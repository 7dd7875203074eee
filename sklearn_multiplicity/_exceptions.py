"""Warnings of the library."""


class CertificationWarning(UserWarning):
    """A value is reported as its certified lower bound: a limit stopped a MIP.

    The ``*_bounds`` methods of :class:`MultiplicityAuditor` give both bounds.
    """


class ProblemSizeWarning(UserWarning):
    """The audit is probably too large to certify within its time limits.

    Binarise or round the features, audit a sample of the rows, or allow more
    time.
    """
