"""Sparse classes (``MaxNonzero``) as a union of small classes, one per
support: the minimum error, flips, disagreement and weight ends, support by
support."""
