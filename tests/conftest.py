import pytest
from shared_data import COMPAS_PATH


@pytest.fixture(scope="session")
def compas():
    """The COMPAS data of the paper, or a clean skip where it is absent."""
    if not COMPAS_PATH.exists():
        pytest.skip(f"COMPAS data not found at {COMPAS_PATH}")
    from sklearn_multiplicity.datasets import load_compas

    return load_compas(COMPAS_PATH)
