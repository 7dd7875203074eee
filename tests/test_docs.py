"""The documentation site builds with warnings as errors, and renders.

One build per module (a CI-sized one: the user guide's figures are drawn,
the API reference generated, and only the fast gallery examples below are
executed; the others are shown with their code). The build runs on a copy
of ``docs/`` and ``examples/`` in a temporary folder, so the source tree is
left as it was. The checks: no warning, every page of the site, every
figure of the pages, and the getting-started page and a gallery page
rendered by headless Chromium (skipped without it, as the report's browser
tests are).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed")
pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed")
pytest.importorskip("pydata_sphinx_theme", reason="the docs extra is not installed")
pytest.importorskip("numpydoc", reason="the docs extra is not installed")
pytest.importorskip("sphinx_copybutton", reason="the docs extra is not installed")
pytest.importorskip("sphinx_design", reason="the docs extra is not installed")
pytest.importorskip("matplotlib", reason="the docs extra is not installed")

import sklearn_multiplicity  # noqa: E402
from sklearn_multiplicity import backends, constraints, datasets  # noqa: E402

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[1]

#: The gallery examples a CI-sized build executes (a few seconds each).
FAST_EXAMPLES = ("plot_figure1_toy", "plot_k_labels", "plot_viable_prediction_ranges")

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
    "i.naturalWidth > 0).join(','));});</script>"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Build the site once: the HTML folder and the build's output."""
    work = tmp_path_factory.mktemp("docs")
    shutil.copytree(
        ROOT / "docs",
        work / "docs",
        ignore=shutil.ignore_patterns("_build", "generated", "auto_examples"),
    )
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copy(ROOT / "ARCHITECTURE.rst", work / "ARCHITECTURE.rst")  # included
    html = work / "html"
    env = dict(
        os.environ,
        SKLEARN_MULTIPLICITY_GALLERY="|".join(FAST_EXAMPLES),
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    )
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html"]
    command += ["-d", str(work / "doctrees"), str(work / "docs"), str(html)]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=900, cwd=work
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    return html, output


def test_the_build_has_no_warning(site):
    _, output = site
    assert "WARNING" not in output
    assert "ERROR" not in output


def public_names():
    names = [f"sklearn_multiplicity.{n}" for n in sklearn_multiplicity.__all__]
    for module in (backends, constraints, datasets):
        names += [f"{module.__name__}.{n}" for n in module.__all__]
    return [name for name in names if not name.endswith("__version__")]


def test_every_page_exists(site):
    html, _ = site
    sources = sorted((ROOT / "docs").rglob("*.rst"))
    pages = [
        source.relative_to(ROOT / "docs").with_suffix(".html")
        for source in sources
        if not {"_build", "generated", "auto_examples", "_templates"}
        & set(source.relative_to(ROOT / "docs").parts)
    ]
    pages += [Path("generated") / f"{name}.html" for name in public_names()]
    pages += [Path("auto_examples/index.html"), Path("genindex.html")]
    pages += [
        Path("auto_examples") / f"{example.stem}.html"
        for example in sorted((ROOT / "examples").glob("plot_*.py"))
    ]
    missing = [str(page) for page in pages if not (html / page).is_file()]
    assert missing == []
    # Every public name has its own page, linked from the API reference.
    api = (html / "api.html").read_text()
    for name in public_names():
        assert f"generated/{name}.html" in api, name


def images_of(page):
    return re.findall(r'<img[^>]+src="([^"]+)"', page.read_text())


def test_every_figure_exists(site):
    html, _ = site
    for page in html.rglob("*.html"):
        for source in images_of(page):
            if source.startswith(("http:", "https:", "data:")):
                continue
            image = (page.parent / source.split("#")[0].split("?")[0]).resolve()
            assert image.is_file() and image.stat().st_size > 0, (page, source)
    # The executed examples drew their figures.
    for example in FAST_EXAMPLES:
        figures = list((html / "_images").glob(f"sphx_glr_{example}_0*.png"))
        assert figures, example
        assert (
            f"sphx_glr_{example}_001.png"
            in (html / "auto_examples" / f"{example}.html").read_text()
        )
    # Every user guide page with a figure drawn by the library shows it.
    for source in sorted((ROOT / "docs" / "user_guide").glob("*.rst")):
        plots = source.read_text().count(".. plot::")
        page = html / "user_guide" / f"{source.stem}.html"
        drawn = [s for s in images_of(page) if "/_images/" in f"/{s}" or "-1.png" in s]
        assert len(drawn) >= plots, source.name


def chromium(*args):
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=True
    ).stdout


def rendered(page, screenshot):
    """The rendered text of ``page`` and whether each of its images loaded."""
    check = page.with_name(f"check-{page.name}")
    check.write_text(page.read_text().replace("</body>", IMAGE_CHECK + "</body>"))
    dom = chromium("--virtual-time-budget=10000", "--dump-dom", check.as_uri())
    chromium(f"--screenshot={screenshot}", "--window-size=1280,2000", page.as_uri())
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
    loaded = re.search(r'data-images="([^"]*)"', dom)
    assert loaded is not None, "the page did not finish loading"
    images = [flag == "true" for flag in loaded.group(1).split(",") if flag]
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", dom, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.split()), images


@pytest.mark.browser
def test_the_pages_render_in_chromium(site, tmp_path):
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    html, _ = site
    text, images = rendered(html / "getting_started.html", tmp_path / "start.png")
    assert "Getting started" in text
    assert "pip install" in text and "python -m sklearn_multiplicity demo" in text
    assert "certified band" in text and "22.85%" in text
    assert "what certified means" in text  # the link to the user guide's answer
    assert len(images) >= 1 and all(images)

    page = html / "auto_examples" / "plot_figure1_toy.html"
    text, images = rendered(page, tmp_path / "figure1.png")
    assert "Figure 1 of the paper" in text
    assert "ambiguity = 100%" in text and "discrepancy = 50%" in text
    assert "What the numbers say" in text
    assert len(images) >= 1 and all(images)
