"""The source distribution is complete: every file the wheel build needs is in it.

A wheel is built from the sdist, not from the tree (`python -m build`), so a .pyx or .pxd missing from
the sdist breaks every install from PyPI while a build from the tree still works. This test builds the
sdist with setuptools (no network, no isolation) and compares its file list with the files git tracks.
CI goes further (.ci/check-dist): sdist -> wheel -> fresh venv -> `ftc perft startpos 4`.
"""

import shutil
import subprocess
import sys
import tarfile

import pytest

from tests.support import ROOT

pytestmark = pytest.mark.packaging


def tracked(*patterns: str) -> set[str]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return set(out.stdout.split())


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    # A copy of the tracked files (as a clean clone would be): setup.py writes its build stamps into
    # the tree it runs in, and this checkout's may belong to a debug build.
    clone = tmp_path_factory.mktemp("clone")
    for name in tracked():
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_symlink():
            target.symlink_to((ROOT / name).readlink())
        elif (ROOT / name).is_file():
            shutil.copy2(ROOT / name, target)
    return clone


@pytest.fixture(scope="module")
def sdist_files(clone, tmp_path_factory):
    out = tmp_path_factory.mktemp("sdist")
    run = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "--dist-dir", str(out)], cwd=clone,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    (archive,) = out.glob("ftc?engine-*.tar.gz")   # ftc_engine (setuptools >= 69) or ftc-engine
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    prefix = names[0].split("/")[0] + "/"
    return {n[len(prefix):] for n in names if n.startswith(prefix)}


def test_the_sdist_holds_every_source_the_wheel_build_needs(sdist_files):
    needed = tracked("ext/*.pyx", "ext/*.pxd", "engine/*.py", "engine/**/*.py", "engine/*.pyi", "engine/py.typed",
                     "engine/data/*.toml", "engine/interfaces/server/static/*", "setup.py", "pyproject.toml", "README.md")
    assert any(n.endswith(".pyx") for n in needed) and any(n.endswith(".pxd") for n in needed)
    missing = sorted(needed - sdist_files)
    assert not missing, f"missing from the sdist (MANIFEST.in): {missing}"


def test_the_sdist_holds_the_tests_docs_and_oracle_configuration(sdist_files):
    needed = tracked("tests/*.py", "tests/**/*.py", "tests/data/*", "docs/*.md", "docs/rules/*.md",
                     "tools/fairy-stockfish-ftc.ini",
                     "mkdocs.yml", "tools/mkdocs_theme/*")        # the manual builds from the sdist too
    missing = sorted(needed - sdist_files)
    assert not missing, f"missing from the sdist (MANIFEST.in): {missing}"


def test_the_sdist_ships_no_build_output(sdist_files):
    built = sorted(n for n in sdist_files if n.endswith((".so", ".c", ".pyc")) or n in ("engine/_build.py", "ext/.build-mode")
                   or n.startswith(("build/", "ext/engine/")))
    assert not built, f"build output in the sdist: {built}"


def test_the_wheel_build_ships_the_rules_pages(clone, tmp_path):
    # setup.py's build_py copies docs/rules/*.md to engine/docs/rules/, where an installed package
    # finds them (engine/interfaces/rules_pages.py); a wheel is made of this build directory.
    run = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)], cwd=clone,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    pages = sorted(tracked("docs/rules/*.md"))
    assert len(pages) >= 4
    for page in pages:
        shipped = tmp_path / "engine" / "docs" / "rules" / page.rsplit("/", 1)[1]
        assert shipped.is_file(), f"{page} is not in the build"
        assert shipped.read_bytes() == (ROOT / page).read_bytes(), page


def test_every_package_of_the_engine_is_listed_for_the_wheel():
    """pyproject.toml lists the packages the wheel holds by name: a new folder of engine/ left out of
    that list installs without it (and every import of it fails in an installed engine)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "engine").rglob("__init__.py")
             if init.parent.relative_to(ROOT).parts[:2] != ("engine", "docs")}
    assert found - listed == set(), "packages missing from pyproject.toml"
