"""``report.html`` rendered by a real browser (headless Chromium).

Each report (the demo, COMPAS, a probabilistic audit) is opened by
Chromium; the test reads the rendered page's text (summary, band table,
assessment), checks that every image loaded, and saves a screenshot under
the test's tmp path. Skipped cleanly where Chromium is not installed (on
Debian: ``apt-get install chromium``).
"""

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from shared_data import COMPAS_PATH

from sklearn_multiplicity._cli import main

pytestmark = pytest.mark.browser

CHROMIUM = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(name)
    ),
    None,
)

#: Marks the body with whether each image loaded, once the page has.
IMAGE_CHECK = (
    '<script>window.addEventListener("load", () => {document.body.setAttribute('
    '"data-images", [...document.images].map(i => i.complete && '
    'i.naturalWidth > 0).join(","));});</script>'
)


def chromium(*args):
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=True
    ).stdout


def rendered(report_dir, screenshot):
    """The rendered DOM of ``report.html`` and whether each image loaded."""
    page = report_dir / "report.html"
    check = report_dir / "check.html"
    check.write_text(page.read_text() + IMAGE_CHECK)
    dom = chromium("--virtual-time-budget=10000", "--dump-dom", check.as_uri())
    chromium(f"--screenshot={screenshot}", "--window-size=1200,2400", page.as_uri())
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
    loaded = re.search(r'data-images="([^"]*)"', dom)
    assert loaded is not None, "the page did not finish loading"
    images = [flag == "true" for flag in loaded.group(1).split(",") if flag]
    text = re.sub(r"<[^>]+>", " ", dom)
    return " ".join(text.split()), images


def audit(tmp_path, *argv):
    out = tmp_path / "out"
    assert main([str(a) for a in [*argv, "--out", out, "--quiet"]]) == 0
    return out


@pytest.fixture(autouse=True)
def needs_chromium():
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")


def test_the_demo_report_renders(tmp_path):
    out = audit(tmp_path, "demo", "--total-time-limit", "60")
    text, images = rendered(out, tmp_path / "demo.png")
    assert "Assessment: exact" in text
    assert "Predictive multiplicity audit" in text
    # The band table: each measure's value, lower and upper bounds, status.
    assert re.search(r"value lower upper status .* ambiguity [\d.]+% [\d.]+%", text)
    assert "ambiguity" in text and "certified" in text
    assert len(images) >= 1 and all(images)


def test_the_compas_report_renders(tmp_path):
    if not COMPAS_PATH.exists():
        pytest.skip("the shared COMPAS data is absent")
    from sklearn_multiplicity.datasets import load_compas

    compas = load_compas(COMPAS_PATH, as_frame=True)
    frame = compas.data.copy()
    frame["arrest"] = compas.target
    frame["race"] = compas.groups["race"]
    path = tmp_path / "compas.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", path, "--target", "arrest", "--groups", "race"]
    out = audit(tmp_path, *argv, "--total-time-limit", "60")
    text, images = rendered(out, tmp_path / "compas.png")
    assert "Assessment: exact" in text
    assert "By group" in text and "African-American" in text
    assert re.search(r"value lower upper status .* ambiguity", text)
    assert len(images) >= 2 and all(images)  # the path and the groups


def test_a_probabilistic_report_renders(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["y"] = (X @ [1.0, -0.5, 0.2] + rng.normal(size=200) > 0).astype(int)
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", path, "--target", "y", "--measure", "probabilistic"]
    out = audit(tmp_path, *argv, "--epsilon", "0.01")
    text, images = rendered(out, tmp_path / "probabilistic.png")
    assert "Probabilistic multiplicity audit" in text
    assert "ambiguity" in text and "certified" in text
    assert len(images) == 1 and all(images)  # the ranges
