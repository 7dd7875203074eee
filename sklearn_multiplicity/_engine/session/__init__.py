"""The audit contract and its implementations: :class:`~._contract.Session`
declares what every certifier family answers, :class:`~._binary.AuditSession`
(two labels) and :class:`~._multiclass.MulticlassSession` (K labels) fill it,
and :mod:`._assessment` judges an audit before any MIP runs. The estimators
reach the engine through these sessions only."""
