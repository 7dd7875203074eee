"""The two-label certifier family: the audit state, ambiguity, discrepancy,
the minimum error, coefficient ranges and new people, with the witness
searches (``search/``) and the support-by-support classes (``supports/``)
that only two labels have. Imports :mod:`..timing` and :mod:`.._records`,
never :mod:`..multiclass` or :mod:`..session`."""
