"""How the kernels were built (setup.py: FTC_ARCH, FTC_DEBUG, FTC_SLIDERS) is reported by
engine.BUILD_INFO and `ftc --version`."""

import re
import subprocess

import engine
from engine import BUILD_INFO, __version__
from tests.support import FTC, ROOT, child_env

ARCHES = {"native", "x86-64-v3", "x86-64-v2", "x86-64", "portable", "unknown"}


def test_build_info_fields():
    assert BUILD_INFO["arch"] in ARCHES
    assert BUILD_INFO["build"] in ("release", "debug")
    assert BUILD_INFO["sliders"] in ("magic", "pext")
    assert set(BUILD_INFO["isa"]) <= {"popcnt", "bmi1", "bmi2", "avx2"}


def test_compiled_isa_matches_the_chosen_arch():
    # The compiler's predefined macros, read back from the compiled module, confirm the -march flag.
    isa = set(BUILD_INFO["isa"])
    if BUILD_INFO["arch"] == "x86-64-v3":
        assert {"popcnt", "bmi1", "bmi2", "avx2"} <= isa
    elif BUILD_INFO["arch"] == "x86-64-v2":
        assert "popcnt" in isa and "avx2" not in isa
    elif BUILD_INFO["arch"] == "x86-64":
        assert not isa


def test_version_option_names_arch_and_build_mode():
    lines = subprocess.run(FTC + ["--version"], capture_output=True, text=True, check=True, env=child_env(),
                           cwd=ROOT).stdout.strip().splitlines()
    assert len(lines) == 3, lines
    for line, label in zip(lines[1:], ("evaluation", "full-game evaluation"), strict=True):
        assert line == f"{label}: classical" or line.startswith(f"{label}: nnue "), lines
    out = lines[0]
    assert out == engine.version_string()
    m = re.fullmatch(r"ftc-engine (\S+) \((\S+), (release|debug) build\)", out)
    assert m, out
    assert m.group(1) == __version__
    assert m.group(2) == BUILD_INFO["arch"]
    assert m.group(3) == BUILD_INFO["build"]
