"""Build the Cython kernels in ext/ into modules of the `engine` package.

Compiler directives are set here and nowhere else. FTC_DEBUG=1 builds with bounds checks,
wraparound, initialized-check and C assertions on (slower; used to run the tests once per change
to ext/):  FTC_DEBUG=1 pip install -e . --no-build-isolation --force-reinstall --no-deps
"""
import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FTC_DEBUG", "") not in ("", "0")

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}
COMPILE_ARGS = ["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"]

# ext/engine is a link to ext/ itself, so `cimport engine._board` finds ext/_board.pxd.
MODULES = ["_tables", "_board", "_movegen", "_perft", "_position", "_search"]

# The generated C depends on the build mode: regenerate it whenever the mode changes.
_STAMP = Path(__file__).parent / "ext" / ".build-mode"
_MODE = "debug" if DEBUG else "release"
_MODE_CHANGED = not _STAMP.exists() or _STAMP.read_text() != _MODE
_STAMP.write_text(_MODE)

extensions = [
    Extension(f"engine.{name}", [f"ext/{name}.pyx"], extra_compile_args=COMPILE_ARGS)
    for name in MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["ext"],
        compiler_directives=DIRECTIVES,
        compile_time_env={"FTC_DEBUG": DEBUG},
        force=_MODE_CHANGED,
    )
)
