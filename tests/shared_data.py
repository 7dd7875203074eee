"""Where the read-only data shared beside the repository lives (once)."""

from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
COMPAS_PATH = SHARED_DATA / "compas-scores-two-years.csv"
