"""Witness searches of two labels: cheap heuristics, exact descents of the
0-1 loss, LP dives and the offset searches of rate-gap constraints. They find
models; they prove nothing."""
