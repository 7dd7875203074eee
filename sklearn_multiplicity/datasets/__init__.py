"""Dataset loaders used in predictive-multiplicity experiments."""

from ._compas import load_compas

__all__ = ["load_compas"]
