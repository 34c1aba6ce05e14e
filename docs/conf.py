"""Sphinx configuration: numpydoc for the API, MyST for the Markdown pages, sphinx-gallery for the
examples, the PyData theme (scikit-learn's and Dask's).

Built with warnings as errors (``sphinx-build -W``) by tests/test_docs.py, offline: the gallery's
scripts run at build time (on the real corpora when the data home holds them, else on the
synthetic corpus), and links into Python's, numpy's, scipy's and scikit-learn's docs need their
inventories from the network, so they are made only with ``TEXTSEL_DOCS_ONLINE=1``.
"""

import os
from pathlib import Path

import textsel

project = "textsel"
author = "textsel developers"
release = textsel.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",  # the landing page's cards and tabs
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
autosummary_generate = True
numpydoc_show_class_members = False
templates_path = ["_templates"]  # class pages document each method (fit's parameters among them)
if os.environ.get("TEXTSEL_DOCS_ONLINE") == "1":
    extensions.append("sphinx.ext.intersphinx")
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every example runs at build time
    "abort_on_example_error": True,
    "backreferences_dir": None,  # no links that would need other projects' inventories
    "download_all_examples": False,
    "show_memory": False,
    "within_subsection_order": "FileNameSortKey",
}
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
    "navbar_align": "left",
    # a reproduction page is one wide table of claims and a few sections: the table takes the width
    # ("*" stops at "/": Sphinx refuses overlapping patterns)
    "secondary_sidebar_items": {
        "*": ["page-toc", "sourcelink"],
        "generated/*": ["page-toc", "sourcelink"],
        "auto_examples/*": ["page-toc", "sourcelink"],
        "reproductions/*": [],
    },
}
# The left sidebar lists a section's pages: the API reference and the gallery have many, every other
# page is one of the header's links and would show an empty "Section Navigation" column.
# (Sphinx refuses overlapping patterns, so the pages without it are named.)
_HERE = Path(__file__).parent
html_sidebars = {
    page: [] for page in ["index", "reproductions/*", *(p.stem for p in _HERE.glob("*.md"))] if page != "api"
}
html_static_path = ["_static"]
html_css_files = ["textsel.css"]
html_title = f"textsel {release}"
