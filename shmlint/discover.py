"""Which files to check and what kind each one is, decided from the name first and the content second."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from shmlint.file_formats import FileKind, file_names, kind_by_content, kind_for_name
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from typing import Protocol

    from shmlint.git_index import TrackedPaths
    from shmlint.patterns import PathPatterns

    class WalkOptions(Protocol):
        """What a folder walk needs to know of the settings (``Settings`` has it); this layer never imports them."""

        @property
        def exclude(self) -> tuple[str, ...]: ...
        @property
        def pattern_root(self) -> str | None: ...
        @property
        def respect_gitignore(self) -> bool: ...
        @property
        def force_exclude(self) -> bool: ...


#: the files that make a folder a kustomization (rendered with ``kubectl kustomize`` when it is installed)
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
#: folders never walked unless configuration replaces this list (``exclude``); virtualenvs are found by content.
#: ``testdata``: Go's folders of test inputs and expected outputs (the go tool leaves them out of every build), never
#: deployed and some invalid on purpose (audit51b: a converter's golden pod specs, vLLM with tensor parallel 16 on
#: one device, failed the gate four times); the walk says how many it left out (``TEST_DATA``)
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "site-packages",
    ".eggs",
    "testdata",
)
#: the name of Go's test data folders, counted in a notice when a pattern leaves them out
TEST_DATA = "testdata"
#: how much of a file without a telling name is read to tell its kind
SNIFF_BYTES = 4096
#: a Go/Helm template action or a Jinja tag; GitHub's ${{ }} and Argo's {{inputs.x}} are YAML string content
_TEMPLATE_MARK = LazyRegex(r"(?<!\$)\{\{|\{%|%\{~?[ \t]*(?:if|else|endif|for|endfor)\b")
#: a line that is only a variable: where an envsubst template puts lines of YAML (at the margin, or indented right
#: under the key whose entries it fills: ``limits:`` then ``${MEM_LIMIT}``; not in a block scalar's text)
_SUBSTITUTED_LINE = LazyRegex(
    r"(?:^|:[ \t]{0,200}\r?\n[ \t]{1,200})\$(?:[A-Za-z_]\w{0,63}|\{[A-Za-z_]\w{0,63}\})[ \t]*\r?$", re.MULTILINE
)
_HELM_ACTION = LazyRegex(
    r"\{\{-?\s*(\.|\$|-|(if|else|end|range|with|include|template|define|toYaml|tpl|printf|default)\b)|\{%"
)


#: more than any real .gitignore holds; a larger one is read this far, so a hostile tree cannot exhaust memory
_GITIGNORE_MAX_BYTES = 1024 * 1024


#: a path as callers may give it; discovery's own paths are the strings ``os.walk`` gives (no object per file)
StrPath = str | os.PathLike[str]


def clean_path(path: StrPath) -> str:
    """A path written as pathlib writes it: repeated and trailing separators and ``.`` segments left out, ``..``
    kept (it may cross a symbolic link), ``.`` for an empty path."""
    text = os.fspath(path)
    root = os.sep if text.startswith(os.sep) else ""
    return root + os.sep.join(part for part in text.split(os.sep) if part not in ("", ".")) or "."


def path_parts(path: str) -> list[str]:
    """The segments of a path (``Path.parts`` without the root)."""
    return [part for part in path.split(os.sep) if part not in ("", ".")]


class Candidate(NamedTuple):
    """A file to check and how to read it, decided by its name or, failing that, its first bytes."""

    path: str
    kind: FileKind
    explicit: bool  # named on the command line: checked even with an unusual name
    error: str | None = None  # a folder that could not be read while walking: reported, not skipped silently
    notice: bool = False  # ``error`` is said as a notice, not SHM000: nothing is wrong with the input itself


def kind_by_name(path: StrPath) -> FileKind | None:
    """The kind of a file by its name (``shmlint.formats`` decides)."""
    return kind_for_name(os.path.basename(path))


def has_template_marks(text: str) -> bool:
    """Any ``{{`` or ``{%`` (Helm, Jinja), or a Terraform template's directive (``%{ for r in rs }``, ``%{ if
    x }``; not curl's ``-w '%{http_code}'``): enough to call an unparsable file a template rather than broken
    YAML."""
    return ("{{" in text or "{%" in text or "%{" in text) and _TEMPLATE_MARK.search(text) is not None


def has_substituted_lines(text: str) -> bool:
    """A line that is one variable, for envsubst to fill with lines of YAML (``$OPT_RESOURCEPOOLS``, ``${MEM_LIMIT}``):
    in a file that does not parse, the mark of a template rather than broken YAML (in one that parses it is text,
    inside a flow sequence or a quoted scalar, and the file is read as the YAML it is)."""
    return "$" in text and _SUBSTITUTED_LINE.search(text) is not None


def has_helm_actions(text: str) -> bool:
    """Helm/Jinja actions (``{{ .Values.x }}``, ``{{- if }}``): such a file is not YAML until rendered."""
    return ("{{" in text or "{%" in text) and _HELM_ACTION.search(text) is not None


def chart_root(path: StrPath) -> str | None:
    """The Helm chart a file belongs to: a parent folder with Chart.yaml, the file below its templates/."""
    return chart_above(os.path.dirname(clean_path(path)) or ".")


def chart_above(parent: str) -> str | None:
    """The nearest folder at or above ``parent`` (a cleaned path) that holds a Chart.yaml."""
    while True:
        if os.path.isfile(os.path.join(parent, "Chart.yaml")):
            return parent
        above = os.path.dirname(parent) or "."
        if above == parent:
            return None
        parent = above


def discover(paths: Iterable[StrPath], options: WalkOptions | None = None) -> Iterator[Candidate]:
    """Files to check, in a stable order; folders are walked without following links, leaving out what
    ``exclude``/``extend-exclude`` and (unless ``respect-gitignore`` is off) ``.gitignore`` files name. A file named
    on the command line is checked unless ``force-exclude`` is on and ``exclude``/``extend-exclude`` name it (or a
    folder above it). Without ``options``: the default exclusions and .gitignore files. A file reached twice (named
    twice, or named and inside a named folder) is checked once, under the first name, as ``fix`` writes it once."""
    paths = list(paths)
    if len(paths) < 2:  # one named path: a walk reaches each file once (it enters no linked folder)
        yield from _discover(paths, options)
        return
    here = os.getcwd()
    checked: set[str] = set()
    for candidate in _discover(paths, options):
        if candidate.error is None:
            where = os.path.normpath(os.path.join(here, candidate.path))
            if where in checked:
                continue
            checked.add(where)
        yield candidate


def _discover(paths: Iterable[StrPath], options: WalkOptions | None) -> Iterator[Candidate]:
    said: set[tuple[str, str | None]] = set()  # a notice two walks reach (one .gitignore, one index) is said once
    for given in paths:
        root = clean_path(given)
        if options is not None and options.force_exclude and force_excluded(root, options):
            continue
        if os.path.isdir(root):
            if _folder_links_out(root):
                yield Candidate(root, FileKind.YAML, explicit=True, error=LINKED_OUT)
                continue
            for candidate in _walk(root, _Exclusions.for_root(root, options)):
                if candidate.notice:
                    if (candidate.path, candidate.error) in said:
                        continue
                    said.add((candidate.path, candidate.error))
                yield candidate
            continue
        if _links_out(root):
            yield Candidate(root, FileKind.YAML, explicit=True, error=LINKED_OUT)
            continue
        kind = kind_by_name(root)
        if kind is None:
            kind = _sniff(root)
        yield Candidate(root, kind or FileKind.YAML, explicit=True)


#: why a file reached through a link out of its repository is not read: a pull request can plant
#: ``deploy.yaml -> ~/.ssh/id_ed25519``, and a finding's source lines would show the runner's file
LINKED_OUT = "a link out of the repository (or into .git): not read"


def _folder_links_out(folder: str) -> bool:
    """Whether a named folder inside a git work tree is reached through a link out of it (``sub -> ../outside``,
    a link pre-commit hands over as a changed file): its files are not the repository's, and ``fix --write`` would
    change them. A folder outside any work tree is the user's to name, as it is."""
    from shmlint.infile import links_out, repository_top

    if not links_out(folder):
        return False
    top = repository_top(os.path.dirname(os.path.abspath(folder)))
    return os.path.lexists(os.path.join(top, ".git"))


def _links_out(path: str, walked: str | None = None) -> bool:
    """Whether ``path`` is reached through a link out of its repository: the top of its git work tree, else the
    folder being walked (a tree without ``.git``), else the named file's own folder."""
    from shmlint.infile import leaves, links_out, repository_top

    if walked is None:
        return links_out(path)
    return leaves(path, repository_top(walked))


def force_excluded(path: str, options: WalkOptions) -> bool:
    """Whether ``exclude``/``extend-exclude`` name this path or a folder above it, asked as a folder walk would ask
    (relative to the configuration's folder; a path outside it as written): what ``--force-exclude`` leaves out of
    the paths a caller names (pre-commit names each changed file, an editor its open buffer). ``.gitignore`` files
    are not consulted: a named file is tracked or open, so the user chose it."""
    from shmlint.patterns import compiled, relative_posix

    relative = relative_posix(path, options.pattern_root)
    if relative is None:
        relative = path.replace(os.sep, "/").lstrip("/")
    patterns = compiled(options.exclude)
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    last = len(parts) - 1
    return any(
        patterns.matches("/".join(parts[: index + 1]), is_dir=index < last or os.path.isdir(path))
        for index in range(len(parts))
    )


def _sniff_content(path: str, kind: FileKind) -> bool:
    """Whether a walked file whose name says ``kind`` also holds what the kind needs (a JSON file: an AWS
    definition's keys; package.json is left alone)."""
    wanted = file_names(kind).content
    if wanted is None:
        return True
    if not _regular(path):
        return False
    try:
        with open(path, "rb") as handle:
            return wanted(handle.read(SNIFF_BYTES).decode("utf-8", "replace"))
    except OSError:
        return False


def _sniff(path: str) -> FileKind | None:
    if not _regular(path):  # never open a FIFO or a device: reading it could block forever
        return None
    try:
        with open(path, "rb") as handle:
            return kind_by_content(handle.read(SNIFF_BYTES))
    except OSError:
        return None


class _Exclusions:
    """What one folder walk leaves out; paths are asked about relative to the walked folder, with ``/``.

    The configured patterns belong to the configuration file's folder (the current folder without one); a walked
    folder outside it, or one the patterns exclude but the command line names, is matched from itself. Each
    ``.gitignore`` speaks for its own folder, the deepest one with something to say decides (as in git), and those
    above the walked folder count up to the top of its git repository.
    """

    __slots__ = (
        "gitignore",
        "ignores",
        "outside",
        "patterns",
        "prefix",
        "refused",
        "root",
        "test_data",
        "tracked",
        "tracked_only",
    )

    def __init__(
        self, patterns: PathPatterns, prefix: str, gitignore: bool, above: list[_Ignore], root: str = "."
    ) -> None:
        self.patterns = patterns
        self.prefix = prefix  # the walked folder relative to the patterns' folder: "" or ending in "/"
        self.gitignore = gitignore
        self.ignores = {"": above}  # walked folder -> the .gitignore files that apply in it, outermost first
        #: .gitignore files with patterns too costly to match, and why: the walk reports them (more is checked)
        self.refused = [(ignore.path, ignore.spec.refused) for ignore in above if ignore.spec.refused]
        self.root = root
        #: what git tracks, read on the first path a .gitignore leaves out (most walks never need it)
        self.tracked: _Tracked | None = None
        #: ignored folders walked for the tracked files they hold: nothing else in them is checked
        self.tracked_only: set[str] = set()
        #: paths a .gitignore left out where no git work tree tells the tracked ones (an archive, a copy), and the
        #: first .gitignore that did: the walk says so once, at its end
        self.outside: tuple[int, str] = (0, "")
        #: ``testdata`` folders the patterns left out, and the first one: the walk says so once, at its end
        self.test_data: tuple[int, str] = (0, "")

    @classmethod
    def for_root(cls, root: str, options: WalkOptions | None) -> _Exclusions:
        from shmlint.patterns import compiled, relative_posix

        exclude, base, gitignore = (
            (options.exclude, options.pattern_root, options.respect_gitignore)
            if options
            else (DEFAULT_EXCLUDE, None, True)
        )
        patterns = compiled(exclude)
        prefix = relative_posix(root, base)
        prefix = "" if not prefix or patterns.matches(prefix, is_dir=True) else prefix + "/"
        above = _gitignores_above(root) if gitignore else []
        if any(ignore.spec.decide(ignore.prepend.rstrip("/"), is_dir=True) for ignore in above):
            above = []  # the command line names a folder its repository ignores: it is walked all the same
        return cls(patterns, prefix, gitignore, above, root)

    def enter(self, folder: str, filenames: list[str], directory: str) -> None:
        """Take in the folder's own ``.gitignore``; called for each folder before its entries are asked about."""
        if not self.gitignore:
            return
        inherited = self.ignores[folder.rpartition("/")[0]] if folder else self.ignores[""]
        spec = _read_gitignore(os.path.join(directory, ".gitignore")) if ".gitignore" in filenames else None
        path = os.path.join(directory, ".gitignore")
        own = _Ignore(spec, "", len(folder) + 1 if folder else 0, path) if spec is not None else None
        if own is not None and own.spec.refused:
            self.refused.append((path, own.spec.refused))
        self.ignores[folder] = [*inherited, own] if own is not None else inherited

    def excluded(self, folder: str, relative: str, is_dir: bool) -> bool:
        if self.patterns.matches(self.prefix + relative, is_dir):
            if is_dir and relative.rpartition("/")[2] == TEST_DATA:
                count, first = self.test_data
                self.test_data = (count + 1, first or relative)
            return True
        ignored, by = folder in self.tracked_only, ""
        if not ignored:
            for ignore in reversed(self.ignores.get(folder, ())):
                decision = ignore.spec.decide(ignore.prepend + relative[ignore.strip :], is_dir)
                if decision is not None:
                    ignored, by = decision, ignore.path
                    break
        if not ignored:
            return False
        if not self._tracked(relative, is_dir):
            if by and self.tracked is not None and not self.tracked.in_work_tree(relative):
                count, first = self.outside
                self.outside = (count + 1, first or by)
            return True
        if is_dir:
            self.tracked_only.add(relative)
        return False

    def _tracked(self, relative: str, is_dir: bool) -> bool:
        """Whether git tracks this file, or a file in this folder: ``.gitignore`` does not apply to those."""
        if self.tracked is None:
            self.tracked = _Tracked(self.root)
        return self.tracked.holds(relative, is_dir)


class _Tracked:
    """What git tracks in the work trees a walk crosses, asked with paths relative to the walked folder: the
    nearest work tree above a path answers for it (a nested repository or a submodule has its own index). Each
    index is read once, when a ``.gitignore`` first leaves out a path of its work tree."""

    __slots__ = ("indexes", "root", "tops", "unread")

    def __init__(self, root: str) -> None:
        self.root = root
        #: walked folder ("" the root) -> the top of the work tree holding it, and the folder's path from there
        self.tops: dict[str, tuple[str, str] | None] = {}
        self.indexes: dict[str, TrackedPaths | None] = {}
        #: work trees whose index is there but was not read, and why: the walk says so (a notice)
        self.unread: list[tuple[str, str]] = []

    def in_work_tree(self, relative: str) -> bool:
        """Whether a git work tree holds the walked path (asked after ``holds``: its folder is placed); without
        one, the top is the walked folder and holds no ``.git``."""
        place = self.tops.get(relative.rpartition("/")[0])
        return place is not None and os.path.lexists(os.path.join(place[0], ".git"))

    def holds(self, relative: str, is_dir: bool) -> bool:
        folder, _, name = relative.rpartition("/")
        place = self._place(folder)
        if place is None:
            return False
        top, within = place
        paths = self.indexes[top]
        return paths is not None and paths.holds(within + name, is_dir)

    def _place(self, folder: str) -> tuple[str, str] | None:
        """The work tree holding a walked folder and the folder's path in it ("" or ending in "/"): from the
        nearest folder above already placed, downwards (a loop: a tree deeper than Python's recursion limit is
        walked too)."""
        below: list[str] = []
        known = folder
        while known not in self.tops and known:
            below.append(known)
            known = known.rpartition("/")[0]
        if known not in self.tops:  # the walked folder itself
            self.tops[""] = self._top_of_root()
        place = self.tops[known]
        for here in reversed(below):
            if os.path.lexists(os.path.join(self.root, here, ".git")):
                place = (os.path.realpath(os.path.join(self.root, here)), "")
            elif place is not None:
                place = (place[0], f"{place[1]}{here.rpartition('/')[2]}/")
            self.tops[here] = place
            if place is not None and place[0] not in self.indexes:
                self._read(place[0])
        return place

    def _top_of_root(self) -> tuple[str, str] | None:
        """The work tree holding the walked folder, found from its real path (a root named through a link)."""
        from shmlint.infile import repository_top

        real = os.path.realpath(self.root)
        top = repository_top(real)
        within = os.path.relpath(real, top).replace(os.sep, "/")
        if top not in self.indexes:
            self._read(top)
        return top, "" if within == "." else within + "/"

    def _read(self, top: str) -> None:
        from shmlint.git_index import tracked_paths

        found = tracked_paths(top)
        self.indexes[top] = found if not isinstance(found, str) else None
        if isinstance(found, str):  # said where the walk's paths are (relative to where they are written)
            shown = os.path.relpath(top, os.path.realpath(self.root))
            self.unread.append((os.path.normpath(os.path.join(self.root, shown, ".git")), found))


class _Ignore:
    """A ``.gitignore`` and how to write a walked path relative to its folder: drop ``strip`` leading characters
    (a folder inside the walk), or put ``prepend`` before it (a folder above the walk). A slotted class: a
    NamedTuple would cost a one-file check 0.15 ms of start-up for a type only folder walks use."""

    __slots__ = ("path", "prepend", "spec", "strip")

    def __init__(self, spec: PathPatterns, prepend: str, strip: int, path: str) -> None:
        self.spec, self.prepend, self.strip, self.path = spec, prepend, strip, path


def _gitignores_above(root: str) -> list[_Ignore]:
    """The ``.gitignore`` files of the folders above ``root`` up to the top of its git repository, outermost
    first; none outside a repository."""
    folder = os.path.abspath(root)
    found: list[_Ignore] = []
    below = ""
    while not os.path.exists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return []
        below = f"{os.path.basename(folder)}/{below}"
        folder = parent
        path = os.path.join(folder, ".gitignore")
        spec = _read_gitignore(path)
        if spec is not None:
            found.append(_Ignore(spec, below, 0, path))
    return found[::-1]


def _read_gitignore(path: str) -> PathPatterns | None:
    """A regular file only (a FIFO named .gitignore would block the walk forever), never through a link out of the
    repository (``shmlint.infile``), and its first MiB only."""
    from shmlint.infile import leaves_tree

    if not _regular(path) or (os.path.islink(path) and leaves_tree(path)):  # the walk enters no linked folder
        return None
    from shmlint.patterns import PathPatterns

    try:
        with open(path, "rb") as handle:
            lines = handle.read(_GITIGNORE_MAX_BYTES).decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return None
    return PathPatterns(lines) if lines else None


def _walk(root: str, exclusions: _Exclusions) -> Iterator[Candidate]:
    unreadable: list[OSError] = []
    top = root
    dotted = root == "."  # os.walk joins onto "." ("./a.yaml"): written as pathlib writes it ("a.yaml")
    for directory, dirnames, filenames, links in _walk_tree(root, unreadable.append):
        while unreadable:
            yield _unreadable(unreadable.pop(), directory)
        folder = directory[len(top) :].lstrip(os.sep).replace(os.sep, "/")  # os.walk joins onto ``top``
        exclusions.enter(folder, filenames, directory)
        while exclusions.refused:
            yield _refused(*exclusions.refused.pop(0))
        within = f"{folder}/" if folder else ""
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not exclusions.excluded(folder, within + d, is_dir=True)
            and not os.path.isfile(f"{directory}/{d}/pyvenv.cfg")
        )
        for name in sorted(filenames):
            kind = kind_for_name(name)
            if kind is None and "." in name:
                continue
            if exclusions.excluded(folder, within + name, is_dir=False):
                continue
            full = os.path.join(directory, name)
            if name in links and (why := _link_not_read(full, root)):  # (a linked folder is never entered)
                if kind is not None:  # a name only its content would make a candidate (``data -> /mnt/data``) is
                    # no file of a checked format: not read, and nothing to report
                    shown = clean_path(full) if dotted else full
                    yield Candidate(shown, FileKind.YAML, explicit=False, error=why, notice=True)
                continue
            if kind is not None and not _sniff_content(full, kind):
                continue
            if kind is None and _regular(full):
                kind = _sniff(full)
            if kind is not None:
                yield Candidate(clean_path(full) if dotted else full, kind, explicit=False)
        while exclusions.tracked is not None and exclusions.tracked.unread:
            yield _index_unread(*exclusions.tracked.unread.pop(0))
    while unreadable:  # the last folder walked, or the named folder itself: reported like every other one
        yield _unreadable(unreadable.pop(), root)
    count, gitignore = exclusions.outside
    if count:
        yield _outside_repository(gitignore, count)
    count, first = exclusions.test_data
    if count:
        yield _test_data_left_out(os.path.join(root, first), count)


#: why a walked link to no file is not read: a link committed to a file the repository does not hold (or holds
#: only in a checkout with its submodules), so there is nothing to check
LINKED_TO_NOTHING = "a link to no file: not read"


def _link_not_read(path: str, walked: str) -> str | None:
    """Why a link the walk found is not read, said as a note: it leads out of the repository (``LINKED_OUT``) or
    to nothing. A walked link is the repository's pointer, not a file of its own: what it points at is not the
    pull request's to fail the gate on (a link named on the command line is an error, ``_discover``)."""
    if _links_out(path, walked):
        return LINKED_OUT
    return None if os.path.exists(path) else LINKED_TO_NOTHING


def _unreadable(error: OSError, where: str) -> Candidate:
    message = f"cannot read folder: {error.strerror or error}"
    return Candidate(clean_path(error.filename or where), FileKind.YAML, explicit=False, error=message)


def _refused(path: str, problems: tuple[str, ...]) -> Candidate:
    """A ``.gitignore`` with patterns left out (``patterns.too_costly``): the files they name are checked. A
    notice, not SHM000: git reads the file fine (projen writes ``report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json`` in
    every project it makes), only shmlint declines to match it."""
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    message = f"patterns left out (the files they name are checked): {shown}"
    return Candidate(clean_path(path), FileKind.YAML, explicit=False, error=message, notice=True)


def _outside_repository(gitignore: str, count: int) -> Candidate:
    """Paths ``.gitignore`` files left out where no git work tree is (a source archive, a copy): git would check
    in a file they name when it was added before them, and an archive ships it, so the walk says how many were
    left out (found: a repository's three committed manifests under ``**/*.yaml``). A notice."""
    message = (
        f"{count} path(s) left out by .gitignore patterns with no git repository here to tell the committed ones "
        "(an archive ships them): --no-respect-gitignore checks them"
    )
    return Candidate(clean_path(gitignore), FileKind.YAML, explicit=False, error=message, notice=True)


def _test_data_left_out(first: str, count: int) -> Candidate:
    """``testdata`` folders the exclusions left out, counted in one notice (named by the first): a folder of
    manifests left out unsaid would look checked."""
    message = (
        f"{count} testdata folder(s) left out: test inputs and expected outputs, not deployments "
        "(excluded by default; `exclude` in configuration sets the list)"
    )
    return Candidate(clean_path(first), FileKind.YAML, explicit=False, error=message, notice=True)


def _index_unread(dot_git: str, why: str) -> Candidate:
    """A work tree whose git index was not read: a file its ``.gitignore`` names is left out, though git may track
    it (a CI clone holds tracked files whatever ``.gitignore`` says). A notice: nothing is wrong with the input."""
    message = f"git's index not read ({why}); files a .gitignore names are left out even where git tracks them"
    return Candidate(clean_path(dot_git), FileKind.YAML, explicit=False, error=message, notice=True)


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _walk_tree(
    top: str, onerror: Callable[[OSError], object]
) -> Iterator[tuple[str, list[str], list[str], frozenset[str]]]:
    """``os.walk`` top-down without following links, with a stack instead of recursion: a folder tree deeper than
    Python's recursion limit (a hostile checkout) is walked like any other. ``dirnames`` may be pruned in place.
    With each folder, the names of its entries that are symbolic links, as its listing tells (no ``lstat`` a
    file where the system says the entry's type)."""
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as scanner:
                entries = list(scanner)
        except OSError as error:
            onerror(error)
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        links: list[str] = []
        for entry in entries:  # one pass: a link is never a folder here (links are not followed)
            if _is_folder(entry):
                dirnames.append(entry.name)
                continue
            filenames.append(entry.name)
            if _is_link(entry):
                links.append(entry.name)
        yield directory, dirnames, filenames, frozenset(links)
        stack.extend(os.path.join(directory, name) for name in reversed(dirnames))


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False
