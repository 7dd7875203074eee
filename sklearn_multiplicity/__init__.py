"""Exact predictive multiplicity of linear classifiers.

Ambiguity and discrepancy (Marx, Calmon & Ustun, ICML 2020) over the
epsilon-level set of linear classifiers, certified by mixed-integer
programming with Google OR-Tools.
"""

from ._classifier import ZeroOneLinearClassifier

__version__ = "0.1.0"

__all__ = ["ZeroOneLinearClassifier", "__version__"]
