import json
import time

import pytest
from relations import check_report
from shared_data import COMPAS_PATH


@pytest.fixture(scope="session")
def compas():
    """The COMPAS data of the paper, or a clean skip where it is absent."""
    if not COMPAS_PATH.exists():
        pytest.skip(f"COMPAS data not found at {COMPAS_PATH}")
    from sklearn_multiplicity.datasets import load_compas

    return load_compas(COMPAS_PATH)


@pytest.fixture(autouse=True)
def _every_report_meets_the_relations(tmp_path_factory):
    """Every ``report.json`` a test writes passes the relations checker
    (``relations.check_report``)."""
    base = tmp_path_factory.getbasetemp()
    start = time.time()
    yield
    for path in base.rglob("report.json"):
        if path.stat().st_mtime >= start - 1:
            report = json.loads(path.read_text())
            assert check_report(report) == [], path
