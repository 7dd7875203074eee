"""The K-label certifier family: minimum error, ambiguity and discrepancy of
K-class linear models, with its first pass, hull proofs, intercept shifts and
label proofs for new people. Imports :mod:`..timing` and :mod:`.._records`,
never :mod:`..binary` or :mod:`..session`."""
