"""Real public files for the tests, read from local git mirrors at pinned commits and never copied here.

Third-party files carry licences this project does not know, so a manifest in tests/data names each one (repo,
40-hex commit, path) and the file is read with ``git show`` from a mirror laid out as ``<mirror>/owner+name/repo``
(``SHMLINT_REAL_MIRROR``, default /work/.mirror). A missing mirror or commit skips the test and says which and where.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT

MIRROR_ENV = "SHMLINT_REAL_MIRROR"
DEFAULT_MIRROR = Path("/work/.mirror")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def load_manifest(name: str) -> list[dict[str, Any]]:
    """The ``[[file]]`` entries of tests/data/<name>; a malformed entry fails collection rather than being run."""
    entries: list[dict[str, Any]] = tomllib.loads((ROOT / "tests" / "data" / name).read_text(encoding="utf-8"))["file"]
    for entry in entries:
        problem = manifest_problem(entry)
        if problem:
            raise ValueError(f"tests/data/{name}: {problem}")
    return entries


def manifest_problem(entry: dict[str, Any]) -> str | None:
    """Why an entry cannot be read safely (it becomes a folder name and a ``git show`` argument), or None."""
    repo, commit, path = entry.get("repo", ""), entry.get("commit", ""), entry.get("path", "")
    if not _REPO.fullmatch(repo) or ".." in repo:
        return f"repo {repo!r} is not owner/name"
    if not _COMMIT.fullmatch(commit):
        return f"{repo}: commit {commit!r} is not a full 40-hex SHA"
    if not path or path.startswith(("-", "/")) or ":" in path:
        return f"{repo}: path {path!r} must be relative, without ':' and not start with '-'"
    return None


def entry_id(entry: dict[str, Any]) -> str:
    return f"{entry['repo']}:{entry['path']}"


def mirror_root() -> Path:
    return Path(os.environ.get(MIRROR_ENV, str(DEFAULT_MIRROR)))


def read_pinned(entry: dict[str, Any]) -> bytes:
    """The file's bytes at the pinned commit; skips, saying why, without git, a mirror or that commit."""
    problem = manifest_problem(entry)
    if problem:
        raise ValueError(problem)
    git = shutil.which("git")
    if git is None:
        pytest.skip(f"git is not on PATH: cannot read {entry_id(entry)} from a mirror")
    folder = mirror_root() / entry["repo"].replace("/", "+") / "repo"
    git_dir = folder / ".git" if (folder / ".git").is_dir() else folder  # bare mirror or a clone
    if not git_dir.is_dir():
        pytest.skip(f"no mirror of {entry['repo']} at {folder}: set {MIRROR_ENV} to a folder of git mirrors")
    shown = subprocess.run(
        [git, "--git-dir", str(git_dir), "show", f"{entry['commit']}:{entry['path']}"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if shown.returncode != 0:
        reason = shown.stderr.decode(errors="replace").strip()
        pytest.skip(f"mirror of {entry['repo']} lacks {entry['commit']}:{entry['path']}: {reason}")
    return shown.stdout
