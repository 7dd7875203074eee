"""Warnings of the library."""


class CertificationWarning(UserWarning):
    """A value is reported as its certified lower bound: a limit stopped a MIP.

    The ``*_bounds`` methods of :class:`MultiplicityAuditor` give both bounds.
    """


class BaselineGapWarning(UserWarning):
    """A model of the class errs less than the baseline, beyond the tolerance.

    Also warned when no such model is found but the certified lower bound on
    the class's minimum error leaves room for one. The ambiguity then mostly
    measures how far the baseline is from the best models, not how much
    models as good as the best disagree.

    A baseline closer to the class's minimum error (less regularisation,
    scaled features, or the default :class:`ZeroOneLinearClassifier`) gives
    a level set of near-optimal models.
    """


class ProblemSizeWarning(UserWarning):
    """The audit is probably too large to certify within its time limits.

    Binarise or round the features, audit a sample of the rows, or allow more
    time.
    """
