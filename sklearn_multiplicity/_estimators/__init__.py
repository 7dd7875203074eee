"""The estimators: ``ZeroOneLinearClassifier``, ``MultiplicityAuditor``,
``AbstainingClassifier``, ``SamplingAuditor`` and ``CompetingModel``, with
what opens an audit (the baseline, the session of its family) and answers its
requests (people, paths, coefficient ranges). They reach the engine through
the audit contract (:class:`~.._engine.Session`) only."""
