"""Build the Cython kernels in ext/ into modules of the `engine` package.

Compiler directives and flags are set here and nowhere else.

FTC_DEBUG=1 builds with bounds checks, wraparound, initialized-check and C assertions on (slower;
used to run the tests once per change to ext/):
    FTC_DEBUG=1 pip install -e . --no-build-isolation --force-reinstall --no-deps

FTC_ARCH chooses the instruction set the kernels are compiled for (a string; default "auto"):
    auto       x86-64: the best of x86-64-v3 / x86-64-v2 / x86-64 that both the build machine's CPU
               (/proc/cpuinfo flags) and the compiler support; other machines: portable
    native     -march=native (fastest here; the build may not run on another CPU)
    x86-64-v3  -march=x86-64-v3 (AVX2, BMI1/2, POPCNT, LZCNT: Haswell / Zen and later)
    x86-64-v2  -march=x86-64-v2 (POPCNT, SSE4.2: Nehalem and later)
    x86-64     -march=x86-64 (baseline: popcount and bit scans become library calls)
    portable   no -march flag at all (the compiler's default target; any architecture)
A build for a higher level than the running CPU stops with an illegal instruction, so build on (or
for) the machine that runs it.

FTC_SLIDERS chooses how flat rook and bishop rides are looked up (default "auto"):
    auto   PEXT when the chosen instruction set has BMI2 and the build CPU is not an AMD Zen 1/2
           (where PEXT is microcoded and slow), else magic multiplication
    pext | magic   force one (pext needs BMI2 in the chosen instruction set; else magic is used)

The choice is written to engine/_build.py (generated, git-ignored) and reported by
`ftc --version` and engine.BUILD_INFO; the compiled modules report what they were really built with.
"""
import os
import platform
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent
DEBUG = os.environ.get("FTC_DEBUG", "") not in ("", "0")
ARCHES = ("auto", "native", "x86-64-v3", "x86-64-v2", "x86-64", "portable")

# x86-64 micro-architecture levels (psABI) by the /proc/cpuinfo flags they need.
_LEVEL_FLAGS = {
    "x86-64-v2": {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"},
    "x86-64-v3": {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3",
                  "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"},
}


def _cpuinfo() -> dict:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    info = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            if info:
                break           # the first processor's block is enough
            continue
        info.setdefault(key.strip(), value.strip())
    return info


def _compiler_accepts(flags: list) -> bool:
    """Whether the C compiler Python builds extensions with accepts `flags`."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    if not shutil.which(cc[0]):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "t.c"
        src.write_text("int main(void) { return __builtin_popcountll(12345ULL) != 6; }\n")
        try:
            r = subprocess.run(cc + flags + ["-c", str(src), "-o", str(Path(tmp) / "t.o")],
                               capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return False
        return r.returncode == 0


def choose_arch():
    """(arch name, -march flags, cpuinfo) for FTC_ARCH (see the module docstring)."""
    wanted = os.environ.get("FTC_ARCH", "auto").strip().lower() or "auto"
    if wanted not in ARCHES:
        raise SystemExit(f"FTC_ARCH={wanted!r}: expected one of {', '.join(ARCHES)}")
    info = _cpuinfo()
    if wanted == "portable":
        return "portable", [], info
    if wanted != "auto":
        return wanted, [f"-march={wanted}"], info
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "portable", [], info
    flags = set(info.get("flags", "").split())
    for level in ("x86-64-v3", "x86-64-v2"):
        if _LEVEL_FLAGS[level] <= flags and _compiler_accepts([f"-march={level}"]):
            return level, [f"-march={level}"], info
    if _compiler_accepts(["-march=x86-64"]):
        return "x86-64", ["-march=x86-64"], info
    return "portable", [], info


def choose_sliders(arch: str, march: list, info: dict) -> str:
    wanted = os.environ.get("FTC_SLIDERS", "auto").strip().lower() or "auto"
    if wanted not in ("auto", "pext", "magic"):
        raise SystemExit(f"FTC_SLIDERS={wanted!r}: expected auto, pext or magic")
    bmi2 = arch == "x86-64-v3" or (arch == "native" and "bmi2" in info.get("flags", "").split())
    if wanted == "magic" or not bmi2:
        return "magic"
    if wanted == "pext":
        return "pext"
    # AMD family 0x17 (Zen 1, Zen 2) and earlier execute PEXT in microcode (~18 cycles per bit).
    slow_pext = info.get("vendor_id") == "AuthenticAMD" and int(info.get("cpu family", "0") or 0) < 0x19
    return "magic" if slow_pext else "pext"


ARCH, MARCH, _INFO = choose_arch()
SLIDERS = choose_sliders(ARCH, MARCH, _INFO)

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    # C division semantics in every build: the debug build checks, it must not compute differently
    # (Python's floor division would round negative evaluation terms the other way).
    "cdivision": True,
    "embedsignature": True,
}
COMPILE_ARGS = (["-O0", "-g", "-UNDEBUG"] if DEBUG else ["-O3"]) + MARCH
MACROS = [("FTC_SLIDERS_PEXT", "1")] if SLIDERS == "pext" else []

# ext/engine is a link to ext/ itself, so `cimport engine._board` finds ext/_board.pxd. A source
# distribution does not carry the link (MANIFEST.in): make it where it is missing.
_LINK = HERE / "ext" / "engine"
if not _LINK.exists():
    _LINK.symlink_to(".", target_is_directory=True)
MODULES = ["_tables", "_board", "_movegen", "_perft", "_position", "_nnue", "_search", "_ransom"]

# The generated C depends on the build mode and the flags: regenerate it (and so recompile every
# module) whenever one of them changes.
_STAMP = HERE / "ext" / ".build-mode"
_MODE = f"{'debug' if DEBUG else 'release'} {ARCH} {SLIDERS}"
_MODE_CHANGED = not _STAMP.exists() or _STAMP.read_text() != _MODE
_STAMP.write_text(_MODE)

# What this build chose; engine/__init__.py reads it into engine.BUILD_INFO.
(HERE / "engine" / "_build.py").write_text(
    '"""Generated by setup.py at build time (git-ignored): how the kernels were compiled."""\n'
    f"ARCH = {ARCH!r}\n"
    f"MARCH_FLAGS = {' '.join(MARCH)!r}\n"
    f"SLIDERS = {SLIDERS!r}\n"
    f"BUILD = {'debug' if DEBUG else 'release'!r}\n"
    f"MACHINE = {platform.machine()!r}\n"
)

extensions = [
    Extension(f"engine.{name}", [f"ext/{name}.pyx"], extra_compile_args=COMPILE_ARGS,
              define_macros=MACROS)
    for name in MODULES
]


class build_py_with_rules(build_py):
    """Also ship the rules pages: docs/rules/*.md become engine/docs/rules/*.md in the build (so in
    every wheel), where engine/interfaces/rules_pages.py (rules_dir) finds them when installed."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "engine" / "docs" / "rules"
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted((HERE / "docs" / "rules").glob("*.md")):
            self.copy_file(str(page), str(target / page.name))


setup(
    cmdclass={"build_py": build_py_with_rules},
    ext_modules=cythonize(
        extensions,
        include_path=["ext"],
        compiler_directives=DIRECTIVES,
        compile_time_env={"FTC_DEBUG": DEBUG},
        force=_MODE_CHANGED,
    )
)
