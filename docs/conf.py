"""Sphinx configuration: numpydoc for the API, MyST for the Markdown pages.

Built with warnings as errors (``sphinx-build -W``) by tests/test_docs.py.  Links into Python's,
numpy's, scipy's and scikit-learn's docs need their inventories from the network: set
``TEXTSEL_DOCS_ONLINE=1`` to fetch them (offline they would only warn).
"""

import os

import textsel

project = "textsel"
author = "textsel developers"
release = textsel.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
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
html_theme = "alabaster"
