"""Certified intervals, the currency of every answer of the audit."""

from dataclasses import dataclass


@dataclass
class Bounds:
    """A certified interval ``lower <= value <= upper`` (shares in [0, 1])."""

    lower: float
    upper: float

    @property
    def certified(self):
        return self.upper - self.lower <= 1e-12
