"""The checked tree as data for the engine (``ProjectIndex``): where code may be read from and the caps on reading,
the kustomize fragments, the KServe runtimes and the images built in the repository found before any file is checked (``runner.project_for``); and one
workload's bounded reads (``Reader``).

The code containers run is not listed or read up front: a file is read only when a container's command names it,
so a repository of 10,000 Python files costs the files its containers run. Every path stays inside a root (links resolved first), a
file larger than ``max_bytes`` is not read, and a workload reads at most ``max_files`` files and ``max_total``
bytes in all.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple
from shmlint.source import InputError, read_bytes

if TYPE_CHECKING:
    from shmlint.extract.kserve import RuntimeIndex
    from shmlint.project.builds import BuildIndex
    from shmlint.project.kustomize import Fragments

#: path components a container path may have before it is not tried at all (a hostile ``a/a/a/...``)
MAX_PARTS = 32


class ProjectIndex(NamedTuple):
    """The run's cross-file facts: where code may be read from (real paths of the folders given to ``check``) and
    how much of it, and what completes a file from another one."""

    roots: tuple[str, ...]
    max_files: int = 48  # files one workload may read
    max_bytes: int = 512 * 1024  # a larger file is not read (no hand-written script or config is near it)
    max_total: int = 4 * 1024 * 1024  # bytes one workload may read in all
    max_depth: int = 2  # shell wrappers and local imports followed below the command
    fragments: Fragments | None = None  # kustomize patches and component files, judged through their overlays
    runtimes: RuntimeIndex | None = None  # the KServe ServingRuntimes of the checked files (any file's complete)
    builds: BuildIndex | None = None  # images the checked files build (``docker build -t``, compose, CI, skaffold)

    @classmethod
    def for_paths(cls, paths: Iterable[os.PathLike[str] | str]) -> ProjectIndex:
        """The repository each path is in (the nearest folder above it with ``.git``: a hook or a CI job names a
        few files, and the code they run sits elsewhere in the repository), else the folder given, or the folder
        of a file given alone."""
        roots: list[str] = []
        for given in paths:
            real = os.path.realpath(given)
            folder = real if os.path.isdir(real) else os.path.dirname(real)
            root = _repository(folder) or folder
            if root not in roots:
                roots.append(root)
        return cls(tuple(roots))


def _repository(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that holds ``.git`` (a folder, or a worktree's file)."""
    for _ in range(MAX_PARTS * 4):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


class Reader:
    """One workload's reads: inside the roots, each file once, within the index's budget. ``texts`` is the engine's
    cache of file texts (shared by workloads; the budget is counted per workload all the same)."""

    def __init__(self, index: ProjectIndex, texts: dict[str, str | None]) -> None:
        self.index = index
        self.texts = texts
        self.files = 0
        self.bytes = 0
        self.exhausted = False  # a read was refused for the budget: what was not read may hold anything

    def inside(self, path: str) -> str | None:
        """The real path of a regular file inside a root, or None."""
        real = os.path.realpath(path)
        if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.index.roots):
            return None
        return real if os.path.isfile(real) else None

    def locate(self, bases: Iterable[str], path: str) -> str | None:
        """The repository file a path (as a container or a command writes it) stands for: relative to each base in
        turn, and for an absolute container path (``/app/src/train.py``) its tails (``src/train.py``...), since an
        image copies the repository somewhere under its own root."""
        parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts or len(parts) > MAX_PARTS or (".." in parts and path.startswith("/")):
            return None
        tails = [parts[i:] for i in range(len(parts))] if path.startswith("/") else [parts]
        for tail in tails:
            for base in bases:
                found = self.inside(os.path.join(base, *tail))
                if found is not None:
                    return found
        return None

    def text(self, path: str) -> str | None:
        """The text of a located file, or None when it cannot be read or the budget is spent."""
        if path in self.texts and self.texts[path] is None:
            return None
        if self.files >= self.index.max_files or self.bytes >= self.index.max_total:
            self.exhausted = True
            return None
        if path not in self.texts:
            try:
                data = read_bytes(path, self.index.max_bytes)
                self.texts[path] = data.decode("utf-8", "replace")
            except InputError:
                self.texts[path] = None
                return None
        text = self.texts[path]
        self.files += 1
        self.bytes += len(text or "")
        return text

    def display(self, path: str) -> str:
        """A file as the report names it: relative to its root, with forward slashes."""
        for root in self.index.roots:
            if path.startswith(root.rstrip(os.sep) + os.sep):
                return posixpath.join(*os.path.relpath(path, root).split(os.sep))
        return os.path.basename(path)
