"""Build the Cython extensions of textsel.

Only the extension list lives here; metadata is in pyproject.toml.
Set ``TEXTSEL_DEBUG=1`` to build without optimisation and with Cython's
bounds checks switched back on (for debugging a kernel under gdb or ASan).
"""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("TEXTSEL_DEBUG", "") not in ("", "0")

link_args = []
if sys.platform == "win32":
    compile_args = ["/O2"] if not DEBUG else ["/Od", "/Zi"]
else:
    # -g0 after Python's own -g: a release wheel carries no debug information (a third of its size)
    compile_args = ["-O3", "-std=c99", "-g0"] if not DEBUG else ["-O0", "-g", "-std=c99"]
    if not DEBUG:
        # and no local symbol table: only the module's exported entry point is needed
        link_args = ["-Wl,-x"] if sys.platform == "darwin" else ["-s"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "embedsignature": True,
}


def extension(name, sources, **kwargs):
    return Extension(name, sources, extra_compile_args=compile_args, extra_link_args=link_args, **kwargs)


# the compiled kernels, all in textsel/_ext; each includes the C header for the one status enum
KERNELS = {
    # the C core behind the Python API
    "ccore": [
        "csrc/csr.c",
        "csrc/lsqr.c",
        "csrc/dcd_svm.c",
        "csrc/nested_svm.c",
        "csrc/primal_newton.c",
        "csrc/dense.c",
    ],
    # the distributed solve's step on a worker's row blocks
    "rowblocks": ["csrc/csr.c", "csrc/rowblocks.c"],
    "counting": [],
    "dealing": [],
    "scoring": [],
    "submatrix": [],
    "curves": [],
    "ranking": [],
    "pool": [],
}
extensions = [
    extension(f"textsel._ext.{name}", [f"textsel/_ext/{name}.pyx", *c_sources], include_dirs=["csrc"])
    for name, c_sources in KERNELS.items()
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
