"""The checked tree as data for the engine (``ProjectIndex``): where code may be read from and the caps on reading,
the kustomize fragments, the KServe runtimes and the images built in the repository found before any file is checked (``runner.project_for``); and one
workload's bounded reads (``Reader``).

The code containers run is not listed or read up front: a file is read only when a container's command names it,
so a repository of 10,000 Python files costs the files its containers run. Every path stays inside a root (links resolved first), a
file larger than ``max_bytes`` is not read, and a workload reads at most ``max_files`` files and ``max_total``
bytes in all.

The files a format reads beside the checked one (a compose file's overrides, its ``extends`` and ``.env`` files, the
scripts that name its ``-f`` sets, the dev containers that run it) are answered by ``ProjectFiles``: the engine's
view of the tree, each folder listed once and only when a file in it asks, never through a link out of a root.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar, cast

from shmlint.named_tuple import NamedTuple
from shmlint.source import InputError, SourceText, read_bytes

if TYPE_CHECKING:
    from shmlint.project.builds import BuildIndex
    from shmlint.project.kustomize import Fragments
    from shmlint.project.runtimes import RuntimeIndex

T = TypeVar("T")

#: path components a container path may have before it is not tried at all (a hostile ``a/a/a/...``)
MAX_PARTS = 32
#: how the name of a file a container finds but the disk does not (a ConfigMap's key) starts: the reader answers
#: such a name from its virtual files only, never from the disk
VIRTUAL_PREFIX = "configmap:"


class Walk(NamedTuple):
    """How a run walks folders (``discover.WalkOptions``: the settings' exclusions), kept to walk a repository the
    same way for what a part of it needs from the rest."""

    exclude: tuple[str, ...]
    pattern_root: str | None
    respect_gitignore: bool
    force_exclude: bool


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
    files: ProjectFiles | None = None  # the run's view of the files beside the checked ones (one per run)
    #: where the repository starts a container (``project.start_marks``): a file's path, none found (``()``), or
    #: None when it was not looked for (a run with no Dockerfile, standard input): an image's own start is judged
    #: only in a repository that starts none
    starts: tuple[str, ...] | None = None

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

    def tree(self, max_bytes: int) -> ProjectFiles:
        """The files beside the checked ones as the formats read them: the run's own (``runner.project_for``), else
        a fresh view inside the roots, each file at most ``max_bytes``."""
        return self.files if self.files is not None else ProjectFiles(self.roots, max_bytes)


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


def holds(point: str, path: str) -> bool:
    """Whether a mount at the container path ``point`` is what the container sees at the container ``path``: the
    path itself or one below it."""
    return path == point or path.startswith(point.rstrip("/") + "/")


def within(real: str, roots: tuple[str, ...]) -> bool:
    """Whether a real path is one of the roots or below one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


class Reader:
    """One workload's reads: inside the roots, each file once, within the index's budget. ``texts`` is the engine's
    cache of file texts (shared by workloads; the budget is counted per workload all the same)."""

    def __init__(
        self, index: ProjectIndex, texts: dict[str, str | None], virtual: Mapping[str, tuple[str, str]] | None = None
    ) -> None:
        """``virtual``: files a container finds that are not on disk under that name (a ConfigMap's keys), by
        their container path behind ``VIRTUAL_PREFIX``: the name the report gives them, and their text."""
        self.index = index
        self.texts = texts
        self.virtual = virtual or {}
        self.files = 0
        self.bytes = 0
        self.exhausted = False  # a read was refused for the budget: what was not read may hold anything

    def inside(self, path: str) -> str | None:
        """The real path of a regular file inside a root, or None. Most paths asked about (each place a command's
        file may be) are no file at all: one ``stat`` says so, where resolving the path costs one a part."""
        if path.startswith(VIRTUAL_PREFIX):  # a ConfigMap's folder holds its own keys only
            return path if path in self.virtual else None
        if not os.path.isfile(path):
            return None
        real = os.path.realpath(path)
        return real if within(real, self.index.roots) and os.path.isfile(real) else None

    def folder(self, path: str) -> str | None:
        """The real path of a folder inside a root, or None."""
        if path.startswith(VIRTUAL_PREFIX):
            return None
        real = os.path.realpath(path)
        return real if within(real, self.index.roots) and os.path.isdir(real) else None

    def folders(self, folder: str) -> tuple[str, ...]:
        """The names of the folders among a located folder's first ``MAX_ENTRIES`` entries (sorted, so that what
        is read within a bound does not depend on the file system's order)."""
        return tuple(sorted(_entries(folder).folders))

    def locate(self, bases: Iterable[str], path: str, *, folder: bool = False) -> str | None:
        """The repository file (``folder``: folder) a path (as a container or a command writes it) stands for:
        relative to each base in turn, and for an absolute container path (``/app/src/train.py``) its tails
        (``src/train.py``...), since an image copies the repository somewhere under its own root."""
        parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts or len(parts) > MAX_PARTS or (".." in parts and path.startswith("/")):
            return None
        tails = [parts[i:] for i in range(len(parts))] if path.startswith("/") else [parts]
        found_at = self.folder if folder else self.inside
        for tail in tails:
            for base in bases:
                found = found_at(os.path.join(base, *tail))
                if found is not None:
                    return found
        return None

    def through_binds(self, binds: Iterable[tuple[str, str]], path: str) -> Iterator[str | None]:
        """For each bind mount (container path, repository folder) that holds the container ``path``, in the order
        given, the repository folder it stands for there (None when that folder is not in the repository)."""
        for point, host in binds:
            if holds(point, path):
                below = path[len(point) :].strip("/")
                yield self.folder(os.path.join(host, below)) if below else host

    def text(self, path: str) -> str | None:
        """The text of a located file, or None when it cannot be read or the budget is spent."""
        if path not in self.virtual and path in self.texts and self.texts[path] is None:
            return None
        if self.files >= self.index.max_files or self.bytes >= self.index.max_total:
            self.exhausted = True
            return None
        if path in self.virtual:
            text = self.virtual[path][1]
            if len(text) > self.index.max_bytes:  # as a file that large on disk is not read
                return None
        else:
            if path not in self.texts:
                try:
                    self.texts[path] = read_bytes(path, self.index.max_bytes).decode("utf-8", "replace")
                except InputError:
                    self.texts[path] = None
            found = self.texts[path]
            if found is None:
                return None
            text = found
        self.files += 1
        self.bytes += len(text)
        return text

    def display(self, path: str) -> str:
        """A file as the report names it: relative to its root, with forward slashes."""
        if path in self.virtual:
            return self.virtual[path][0]
        for root in self.index.roots:
            if path.startswith(root.rstrip(os.sep) + os.sep):
                return posixpath.join(*os.path.relpath(path, root).split(os.sep))
        return os.path.basename(path)


#: entries of one folder listed, at most (a folder of 100,000 files is not walked for a compose file's neighbours)
MAX_ENTRIES = 128


class ProjectFiles:
    """The files beside a checked one, for the formats that judge a file with others (compose): each folder
    listed once, lazily, and a file read only inside the roots (its links resolved first). One per run (``run``):
    its answers hold while the run's files are checked, and the index of a later run is another one.

    ``roots`` None: the engine has no index (standard input, one file in a test), and the files beside the checked
    one are read as they are; ``()``: nothing beside it is read (a YAML code block in a document)."""

    def __init__(
        self, roots: tuple[str, ...] | None, max_bytes: int, run: bytes | None = None, whole: Walk | None = None
    ) -> None:
        self.roots = roots
        self.max_bytes = max_bytes
        self.run = run if run is not None else os.urandom(8)  # which run: its copies in workers are equal
        #: set when the run checks part of its repositories (the files a hook names, a folder below the top): how
        #: the whole of them is walked for what a part needs from the rest (``build_marks.repository_builds``), so a
        #: file checked alone finds the build another file writes, as ``check .`` does
        self.whole = whole
        self._entries: dict[str, _Listing] = {}
        self._is_file: dict[str, bool] = {}
        self._folders: dict[str, str] = {}  # real paths of the folders asked about
        self._answers: dict[tuple[Callable[[ProjectFiles, str], object], str], object] = {}

    def _key(self) -> tuple[tuple[str, ...] | None, int, bytes, Walk | None]:
        return self.roots, self.max_bytes, self.run, self.whole

    def __eq__(self, other: object) -> bool:
        """The run's own view, also as a worker process unpickles it for each batch of files (so the worker's
        engine, cached by its settings and index, is built once a run)."""
        return isinstance(other, ProjectFiles) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type[ProjectFiles], tuple[tuple[str, ...] | None, int, bytes, Walk | None]]:
        return ProjectFiles, self._key()  # without what this process has listed

    def _allowed(self, path: str) -> bool:
        if self.roots is None:
            return True
        return within(self._real(path), self.roots)

    def _real(self, path: str) -> str:
        """``os.path.realpath``, with each folder resolved once: a file costs one ``lstat``, not one a part."""
        folder, name = os.path.split(path)
        if name in ("", ".", "..") or folder in ("", os.sep) or os.path.islink(path):
            return os.path.realpath(path)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = self._real(folder)
        return os.path.join(real, name)

    def has_file(self, path: str) -> bool:
        """Whether ``path`` is a regular file that may be read."""
        known = self._is_file.get(path)
        if known is None:
            listed = self._listed(path)
            known = self._is_file[path] = (os.path.isfile(path) if listed is None else listed) and self._allowed(path)
        return known

    def _listed(self, path: str) -> bool | None:
        """Whether the listing of the path's folder (made once, and asked for its other files too: a compose
        file's overrides, ``.env`` and scripts) holds it as a file; None when the listing cannot say and the file
        itself is asked: a folder of more than ``MAX_ENTRIES`` entries or outside the roots, and a name it holds
        only in other letter case or that is not ASCII (a file system may ignore case or Unicode normalisation)."""
        folder, name = os.path.split(path)
        listing = self._listing(folder)
        if not listing.complete:
            return None
        if name in listing.files:
            return True
        lowered = name.lower()
        if not name.isascii() or any(other.lower() == lowered for other in listing.files):
            return None
        return False

    def files_in(self, folder: str) -> tuple[str, ...]:
        """The names of the files among the folder's first ``MAX_ENTRIES`` entries, as the system lists them (none
        when it cannot be listed or is outside the roots)."""
        return self._listing(folder).files

    def complete(self, folder: str) -> bool:
        """Whether the folder's listing holds all its entries (not cut at ``MAX_ENTRIES``, and listed at all)."""
        return self._listing(folder).complete

    def cut(self, folder: str) -> bool:
        """Whether the folder was listed and has more than ``MAX_ENTRIES`` entries (what a name not among its first
        ones may be is not known; a folder not listed at all says nothing of its size)."""
        listing = self._listing(folder)
        return listing is not _UNLISTED and not listing.complete

    def folders_in(self, folder: str) -> tuple[str, ...]:
        """The names of the folders among the folder's first ``MAX_ENTRIES`` entries."""
        return self._listing(folder).folders

    def _listing(self, folder: str) -> _Listing:
        found = self._entries.get(folder)
        if found is None:
            found = self._entries[folder] = _entries(folder) if self._allowed(folder or ".") else _UNLISTED
        return found

    def per_folder(self, answer: Callable[[ProjectFiles, str], T], folder: str) -> T:
        """What ``answer`` says of ``folder`` (compose's named file sets), worked out once for the run's files."""
        key = (answer, folder)
        if key not in self._answers:
            self._answers[key] = answer(self, folder)
        return cast(T, self._answers[key])

    def chart_of(self, path: os.PathLike[str] | str) -> str | None:
        """The Helm chart a file belongs to (``discover.chart_root``: the nearest Chart.yaml above it, inside the
        roots or not, since only its name is reported), asked once a folder."""
        from shmlint.discover import clean_path

        return self.per_folder(_chart_above, os.path.dirname(clean_path(path)) or ".")

    def source(self, path: os.PathLike[str] | str) -> SourceText | None:
        """Another file of the project, decoded as a checked file is; None when it cannot or may not be read."""
        name = os.fspath(path)
        if self._listed(name) is False or not self._allowed(name):
            return None
        try:
            return SourceText.from_bytes(name, read_bytes(name, self.max_bytes))
        except InputError:
            return None


class _Listing(NamedTuple):
    """A folder's first ``MAX_ENTRIES`` entries: its files and folders (links followed), and whether that was all
    of them (then a name not among its files is no file there)."""

    files: tuple[str, ...]
    folders: tuple[str, ...]
    complete: bool


#: a folder outside the roots, or one that cannot be listed: no entries, and nothing said of a name in it
_UNLISTED = _Listing((), (), complete=False)


def _entries(folder: str) -> _Listing:
    files: list[str] = []
    folders: list[str] = []
    seen = 0
    try:
        with os.scandir(folder or ".") as listing:
            for seen, entry in enumerate(listing, 1):
                if seen > MAX_ENTRIES:
                    break
                if entry.is_file():
                    files.append(entry.name)
                elif entry.is_dir():
                    folders.append(entry.name)
    except OSError:
        return _UNLISTED
    return _Listing(tuple(files), tuple(folders), complete=seen <= MAX_ENTRIES)


def _chart_above(_: ProjectFiles, folder: str) -> str | None:
    from shmlint.discover import chart_above

    return chart_above(folder)
