"""Earlier versions of this repository as runnable checkouts, for the tools that measure one
version against another (tools/compare_versions.py: speed; tools/ladder.py: strength).

- :func:`resolve_commit` turns any git revision into a full commit id (one clear line when it is
  not a commit of this repository);
- :func:`export_commit` writes a commit's files into a folder (``git archive``: a plain folder, no
  worktree registered in the repository);
- :func:`build_kernels` compiles a checkout's Cython kernels in place (``setup.py build_ext
  --inplace``, about a minute);
- :func:`cached_checkout` keeps one built checkout per commit under a cache folder
  (``~/.cache/ftc-ladder/<commit>`` by default) and builds a commit only when no checkout it knows
  (a cached one or this one) was built from the same ``ext/`` and ``setup.py``: then it copies
  that checkout's compiled modules instead;
- :func:`engine_digest` names the engine a checkout plays with, changes not committed included (the
  journals of tools/ladder.py and tools/vs_fairy_stockfish.py refuse to resume a test whose
  candidate's engine has changed).

A checkout is ready when its build stamp (``.ftc-build``) names the build key it was made from
(the git ids of ``ext/`` and ``setup.py`` at its commit); a folder without one is made again.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = Path.home() / ".cache" / "ftc-ladder"
STAMP = ".ftc-build"
#: What a build writes into engine/ that a checkout of the same ext/ and setup.py can share.
BUILT = ("*.so", "_build.py")

__all__ = ["CheckoutError", "DEFAULT_CACHE", "resolve_commit", "build_key", "export_commit", "build_kernels",
           "cached_checkout", "copy_build", "engine_digest"]


class CheckoutError(ValueError):
    """A commit that cannot be checked out or built, in one line."""


def _git(args: list[str], root: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True)


def resolve_commit(revision: str, root: Path = ROOT, option: str = "--base") -> str:
    """The full commit id of ``revision`` (any git revision: a hash, HEAD~3, a branch)."""
    if not revision or revision.startswith("-"):
        raise CheckoutError(f"{option} {revision!r} is not a commit of this repository")
    done = _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], root)
    if done.returncode != 0:
        raise CheckoutError(f"{option} {revision!r} is not a commit of this repository ({root})")
    return done.stdout.decode().strip()


def build_key(commit: str, root: Path = ROOT) -> str:
    """The git ids of ``ext/`` and ``setup.py`` at ``commit``: two commits with the same key build the
    same kernels."""
    ids = []
    for path in ("ext", "setup.py"):
        done = _git(["rev-parse", f"{commit}:{path}"], root)
        if done.returncode != 0:
            raise CheckoutError(f"commit {commit[:12]} has no {path}: not a version of this engine")
        ids.append(done.stdout.decode().strip())
    return "-".join(ids)


def export_commit(commit: str, dest: Path, root: Path = ROOT) -> None:
    """The files of ``commit`` written into the folder ``dest`` (made; it must not hold files yet)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as archive:
        done = subprocess.run(["git", "archive", "--format=tar", commit], cwd=root, stdout=archive,
                              stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise CheckoutError(f"git archive {commit[:12]} failed: {done.stderr.decode(errors='replace').strip()}")
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(dest, filter="data")


def build_kernels(checkout: Path) -> None:
    """Compile the Cython kernels of ``checkout`` in place (CheckoutError with the build's last lines
    when it fails)."""
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=checkout, capture_output=True,
                          text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout)[-2000:]
        raise CheckoutError(f"building the kernels in {checkout} failed (exit {done.returncode}):\n{tail}")


def copy_build(source: Path, dest: Path) -> None:
    """The compiled modules of ``source``'s engine/ copied into ``dest``'s."""
    for pattern in BUILT:
        for path in (source / "engine").glob(pattern):
            shutil.copy2(path, dest / "engine" / path.name)


def _working_tree_key(root: Path) -> str | None:
    """This checkout's build key when its kernels are built and its ext/ and setup.py are those of
    its HEAD; else None (a change not committed may be built into them)."""
    if not any((root / "engine").glob("*.so")):
        return None
    clean = _git(["diff", "--quiet", "HEAD", "--", "ext", "setup.py"], root)
    untracked = _git(["ls-files", "--others", "--exclude-standard", "--", "ext"], root)
    if clean.returncode != 0 or untracked.stdout.strip():
        return None
    try:
        return build_key("HEAD", root)
    except CheckoutError:
        return None


def _stamp(checkout: Path) -> str | None:
    try:
        return (checkout / STAMP).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def cached_checkout(revision: str, cache: Path = DEFAULT_CACHE, root: Path = ROOT,
                    say: Callable[[str], None] | None = None, option: str = "--base") -> tuple[str, Path]:
    """``(commit, folder)``: the built checkout of ``revision`` under ``cache/<commit>``, made when it
    is not there yet (the module's notes)."""
    say = say or (lambda line: None)
    commit = resolve_commit(revision, root, option)
    key = build_key(commit, root)
    folder = Path(cache) / commit
    if _stamp(folder) == key:
        return commit, folder
    if folder.exists():
        shutil.rmtree(folder)          # a checkout left half made (stopped while building)
    Path(cache).mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=cache))
    try:
        say(f"checking out {commit[:12]} into {folder}")
        export_commit(commit, partial, root)
        donor = next((other for other in sorted(Path(cache).iterdir())
                      if other.is_dir() and other != partial and _stamp(other) == key), None)
        if donor is None and _working_tree_key(root) == key:
            donor = root
        if donor is not None:
            say(f"its ext/ and setup.py are those of {donor}: reusing that build")
            copy_build(donor, partial)
        else:
            say(f"building the kernels of {commit[:12]} (about a minute)")
            build_kernels(partial)
        (partial / STAMP).write_text(key + "\n", encoding="utf-8")
        os.replace(partial, folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return commit, folder


def engine_digest(root: Path = ROOT) -> str:
    """A digest of the engine as this checkout holds it: every file under ``engine/`` and ``ext/``
    and ``setup.py`` that git tracks or would track (changes not committed included, ignored build
    outputs left out), by name and content. Two checkouts with the same digest play the same AI."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
                             "engine", "ext", "setup.py"], cwd=root, capture_output=True)
    if listed.returncode != 0:
        raise CheckoutError(f"{root}: git cannot list the engine's files: {listed.stderr.decode(errors='replace').strip()}")
    digest = hashlib.sha256()
    for name in sorted(set(filter(None, listed.stdout.decode().split("\0")))):
        path = root / name
        if path.is_file():                  # a tracked file deleted in the working tree is absent
            digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]
