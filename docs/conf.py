"""Sphinx configuration of the sklearn-multiplicity documentation.

Build with ``python -m sphinx -W -b html docs docs/_build/html``.

Two environment variables shape the gallery:

``SKLEARN_MULTIPLICITY_DATA``
    Folder holding ``compas-scores-two-years.csv`` and ``german-credit.csv``
    (default: ``../shared/data`` next to the repository). Examples that need
    a file that is absent are shown with their code but not executed.
``SKLEARN_MULTIPLICITY_GALLERY``
    A regular expression: only the examples whose path matches it are
    executed (for a quick build, e.g. ``"plot_figure1|plot_k_labels"``);
    the others are shown with their code. Default: every example.
"""

import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "sphinxext"))

from data_files import data_file  # noqa: E402

import sklearn_multiplicity  # noqa: E402

# -- Project ------------------------------------------------------------------

project = "sklearn-multiplicity"
author = "sklearn-multiplicity developers"
copyright = "sklearn-multiplicity developers"
release = sklearn_multiplicity.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "sphinx_design",
    "matplotlib.sphinxext.plot_directive",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "sphinxext", "Thumbs.db", ".DS_Store"]
root_doc = "index"
default_role = "literal"
pygments_style = "sphinx"

# -- API reference ------------------------------------------------------------

autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- Figures drawn by the library in the user guide (``.. plot::``) -----------

plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.autolayout": True, "savefig.bbox": "tight"}
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt\n"

# -- Gallery ------------------------------------------------------------------

#: Examples that read a data file, and the file each needs.
NEEDS_DATA = {
    "plot_compas_figure3.py": "compas-scores-two-years.csv",
    "plot_compas_groups.py": "compas-scores-two-years.csv",
    "plot_german_credit.py": "german-credit.csv",
}


def _executed_examples():
    """The regular expression of the examples sphinx-gallery executes."""
    chosen = os.environ.get("SKLEARN_MULTIPLICITY_GALLERY", "")
    names = sorted(path.name for path in (ROOT / "examples").glob("plot_*.py"))
    runnable = [
        name
        for name in names
        if name not in NEEDS_DATA or data_file(NEEDS_DATA[name]) is not None
    ]
    if chosen:
        runnable = [name for name in runnable if re.search(chosen, name)]
    if not runnable:
        return r"^$"
    return "/(" + "|".join(re.escape(name) for name in runnable) + ")$"


sphinx_gallery_conf = {
    "examples_dirs": [str(ROOT / "examples")],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": _executed_examples(),
    "within_subsection_order": "gallery_order.ExampleOrder",
    "doc_module": ("sklearn_multiplicity",),
    "backreferences_dir": "generated/backreferences",
    "remove_config_comments": True,
    "show_memory": False,
    "download_all_examples": False,
    "plot_gallery": "True",
    "capture_repr": ("_repr_html_", "__repr__"),
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib", "gallery_reset.tight_figures"),
    "min_reported_time": 1,
}

# -- HTML ---------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-multiplicity {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting_started": []}
html_context = {"default_mode": "light"}

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
