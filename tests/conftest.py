from pathlib import Path

import pytest

COMPAS_PATH = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "compas-scores-two-years.csv"
)


@pytest.fixture(scope="session")
def compas():
    """The COMPAS data of the paper, or a clean skip where it is absent."""
    if not COMPAS_PATH.exists():
        pytest.skip(f"COMPAS data not found at {COMPAS_PATH}")
    from sklearn_multiplicity.datasets import load_compas

    return load_compas(COMPAS_PATH)
