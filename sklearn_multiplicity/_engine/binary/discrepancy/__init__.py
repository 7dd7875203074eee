"""Discrepancy of two labels: the certifier, its requests, the envelope of
bounds across budgets and the order of a path's budgets."""
