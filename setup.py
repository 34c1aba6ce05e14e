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

if sys.platform == "win32":
    compile_args = ["/O2"] if not DEBUG else ["/Od", "/Zi"]
else:
    compile_args = ["-O3", "-std=c99"] if not DEBUG else ["-O0", "-g", "-std=c99"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "embedsignature": True,
}

extensions = [
    Extension("textsel._termstats", ["textsel/_termstats.pyx"], extra_compile_args=compile_args),
    Extension("textsel._metrics", ["textsel/_metrics.pyx"], extra_compile_args=compile_args),
    Extension("textsel._submatrix", ["textsel/_submatrix.pyx"], extra_compile_args=compile_args),
    Extension("textsel._masking", ["textsel/_masking.pyx"], extra_compile_args=compile_args),
    Extension("textsel._tables", ["textsel/_tables.pyx"], extra_compile_args=compile_args),
    Extension(
        "textsel._ccore",
        ["textsel/_ccore.pyx", "csrc/csr.c", "csrc/lsqr.c", "csrc/dcd_svm.c"],
        include_dirs=["csrc"],
        extra_compile_args=compile_args,
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
