"""Sphinx configuration: numpydoc for the API, MyST for the Markdown pages, sphinx-gallery for the
examples, the PyData theme (scikit-learn's and Dask's).

Built with warnings as errors (``sphinx-build -W``) by tests/test_docs.py, offline: the gallery's
scripts run at build time (on the real corpora when the data home holds them, else on the
synthetic corpus), and links into Python's, numpy's, scipy's and scikit-learn's docs need their
inventories from the network, so they are made only with ``TEXTSEL_DOCS_ONLINE=1``.
"""

import os
import re

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
toc_object_entries_show_parents = "hide"  # a class page's contents list "fit()", not "Class.fit()"
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
    "header_links_before_dropdown": 7,
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
# The left sidebar lists a section's pages (the user guide's, the API reference's groups, the
# gallery's, the development pages); the pages that are sections of their own have none, and a
# reproduction page is one wide table of claims that takes the width.
html_sidebars = {page: [] for page in ["index", "guide", "changelog", "reproductions/*"]}
html_static_path = ["_static"]
html_css_files = ["textsel.css"]
html_title = f"textsel {release}"

# The class pages list the methods textsel's estimators inherit from scikit-learn (score,
# get_params, fit_transform, get_support, ...); their docstrings link into scikit-learn's user
# guide by labels this site does not have, so the link text stays and the link goes.
_SKLEARN_REF = re.compile(r":ref:`([^`<]*?)\s*<[^`>]*>`|:ref:`([^`]*)`")


def _unlink_sklearn_refs(app, what, name, obj, options, lines):
    if (getattr(obj, "__module__", None) or "").startswith("sklearn"):
        lines[:] = [_SKLEARN_REF.sub(lambda m: m.group(1) or m.group(2), line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _unlink_sklearn_refs)
