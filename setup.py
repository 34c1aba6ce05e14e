"""Build the Cython extensions of textsel.

Only the extension list lives here; metadata is in pyproject.toml.
Set ``TEXTSEL_DEBUG=1`` to build without optimisation and with Cython's
bounds checks switched back on (for debugging a kernel under gdb or ASan).

The nine extensions are translated by Cython and compiled in parallel, one job
per core this process may use (``pip install .`` included); ``--parallel N``
(``-j N``) of ``build_ext`` or ``[build_ext] parallel = N`` in setup.cfg sets
another number, 1 builds one at a time.
"""

import os
import sys
import threading

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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
    # a row group's step (a worker's blocks, the in-memory solve's groups) and the groups in C
    "rowblocks": ["csrc/csr.c", "csrc/rowblocks.c", "csrc/rowgroups.c"],
    # words counted from text: scikit-learn's word analyzer and CountVectorizer's counts
    "tokens": ["csrc/csr.c", "csrc/tokens.c"],
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


def cores() -> int:
    """The cores this process may use (its affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def compiles_csrc(ext) -> bool:
    return any(source.startswith("csrc/") for source in ext.sources)


#: extensions compiling the same C file (csrc/csr.c) would write the same object file at once: they
#: take turns
_SHARED_SOURCES = threading.Lock()


class ParallelBuildExt(build_ext):
    """``build_ext`` compiling the extensions in parallel, one per core, unless told a number."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = cores()

    def build_extensions(self):
        # the first of those taking turns starts first, the others wait at the end of the queue,
        # so that no worker idles on the lock while extensions of their own wait to start
        shared = [ext for ext in self.extensions if compiles_csrc(ext)]
        self.extensions = shared[:1] + [ext for ext in self.extensions if not compiles_csrc(ext)] + shared[1:]
        super().build_extensions()

    def build_extension(self, ext):
        if not compiles_csrc(ext):
            return super().build_extension(ext)
        with _SHARED_SOURCES:
            return super().build_extension(ext)


# Cython's translation in parallel too, in worker processes (on Linux only: other platforms build as
# they did)
setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        nthreads=cores() if sys.platform.startswith("linux") else 0,
    ),
    cmdclass={"build_ext": ParallelBuildExt},
)
