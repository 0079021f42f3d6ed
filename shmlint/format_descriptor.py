"""What a format is, as one immutable value: how its files are recognised (by name, then by their first bytes, and
YAML by its content), read, fixed and worded in messages and docs.

Each package under ``shmlint/formats/`` exports one ``Format`` as ``FORMAT``; discovery, dispatch, the fixer, the
rules' messages and the docs iterate over them (``shmlint.formats``), so no other module names a format. A
descriptor is cheap to import: its reading functions import the format's extractor only when a file is read, and
its writer is named by module path.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from importlib import import_module
from typing import TYPE_CHECKING, Any

from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat
from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    import os
    from typing import TypeAlias

    from shmlint.model import Notice, Workload
    from shmlint.parsers.yamlnodes import Node
    from shmlint.source import SourceText

    Found: TypeAlias = tuple[list[Workload], list[Notice]]
    Path: TypeAlias = str | os.PathLike[str]

#: what every file of a run is read with (``shmlint.extract.dispatch.Extraction``); named loosely here, as the
#: descriptors sit below the extraction that asks them (each format's functions name it exactly)
Run = Any


class FileKind(StrEnum):
    """How a file is read, decided by its name or first bytes (``FileNames``, ``Sniff``); what its workloads are
    written in is their ``WorkloadFormat`` (a YAML file holds Kubernetes, compose, CI, Ray... workloads)."""

    YAML = "yaml"  # the content decides which format's (``YamlClaim``)
    #: a YAML file named as a template (``x.yaml.template``, ``x.yaml.j2``): read as YAML when it is plain YAML with
    #: placeholders (``${VAR}`` for envsubst, values to come); not checked when it holds template actions, does not
    #: parse or is not text, with a notice when it looks like a manifest (``extract.dispatch``)
    YAML_TEMPLATE = "yaml-template"
    SHELL = "shell"
    POWERSHELL = "powershell"  # read as the POSIX shell it maps to character for character (``windows_scripts``)
    BATCH = "batch"  # cmd's .bat and .cmd, read so too
    MAKEFILE = "makefile"
    JUSTFILE = "justfile"  # just's recipes (https://just.systems)
    MARKDOWN = "markdown"
    DOCKERFILE = "dockerfile"  # evidence for the formats that build it, and an image's own start
    TERRAFORM = "terraform"
    PYTHON = "python"
    RST = "rst"
    NOTEBOOK = "notebook"  # Jupyter: its shell escapes, shell cells and Markdown cells' code blocks
    UNIT = "unit"
    JSON = "json"  # the content decides whether shmlint reads it at all
    DEVCONTAINER = "devcontainer"
    GITLAB_RUNNER = "gitlab-runner"
    JENKINSFILE = "jenkinsfile"


class FileNames(NamedTuple):
    """Files of one kind by their name. Of all formats' rules, the one with the lowest ``rank`` that matches
    decides (``x.devcontainer.json`` is a dev container before it is JSON)."""

    kind: FileKind
    rank: int
    endings: tuple[str, ...] = ()  # of the lower-cased name
    beginnings: tuple[str, ...] = ()  # of the lower-cased name
    names: tuple[str, ...] = ()  # whole names as written (``Makefile``, not ``MAKEFILE``)
    lower_names: tuple[str, ...] = ()  # whole lower-cased names
    #: why a text of this kind does not parse (``strict``: also what kubectl and compose reject, a duplicate key),
    #: None when it does: the fixer's guard against an edit that breaks the file. None: never rejected
    syntax_error: Callable[[SourceText, bool], str | None] | None = None
    #: what a walked file of this name must also hold in its first bytes to be checked (package.json is no AWS
    #: definition); a file named on the command line is checked all the same
    content: Callable[[str], bool] | None = None


class Sniff(NamedTuple):
    """A file without a telling name, by its first bytes (decoded): the lowest ``rank`` that matches decides."""

    kind: FileKind
    rank: int
    pattern: LazyRegex[str]  # searched, so it says itself where it must match (``\\A``, ``^`` with MULTILINE)


class YamlClaim(NamedTuple):
    """How a format recognises its YAML files among all YAML: asked in ``rank`` order, the first that may hold the
    file (before anything is parsed or the format imported: a file name among ``names``, or one of ``words`` in
    the text where the ``marker`` is found; neither given: any YAML) and whose ``detect`` takes the composed
    documents reads the file. The cheap test is data, so a run imports only the formats it may read."""

    rank: int
    detect: Callable[[SourceText, list[Node]], bool]
    read: Callable[[SourceText, list[Node], Path, Run], Found]
    names: tuple[str, ...] = ()  # ``fnmatch`` patterns of the lower-cased file name
    words: tuple[str, ...] = ()  # one of them is in the text (searched before the marker)
    marker: LazyRegex[str] | None = None
    #: whether a file must be composed even without any signal word (a compose file merged with others)
    without_signal: Callable[[Path, Run], bool] | None = None


def documents_test(module: str, function: str) -> Callable[[SourceText, list[Node]], bool]:
    """A ``YamlClaim.detect`` that asks ``module.function(documents)``: the format's module is imported only when a
    file reaches its claim."""

    def detect(source: SourceText, documents: list[Node]) -> bool:
        return bool(getattr(import_module(module), function)(documents))

    return detect


def documents_reader(module: str, function: str) -> Callable[[SourceText, list[Node], Path, Run], Found]:
    """A ``YamlClaim.read`` for an extractor that takes the documents and the signals and gives no notices:
    ``module.function(source, documents, signals)``, imported when a file is read."""

    def read(source: SourceText, documents: list[Node], path: Path, run: Run) -> Found:
        return getattr(import_module(module), function)(source, documents, run.signals), []

    return read


class Format(NamedTuple):
    """One format: a ``shmlint/formats/<name>/`` package's ``FORMAT``."""

    name: str  # the package's name
    label: str  # how the docs name it
    workload_format: WorkloadFormat  # what its workloads are written in: one format spells each one's fix
    remedy: str  # how it sizes /dev/shm, for messages that say what to do
    fix_in_short: str  # the same in a few words, for one-line messages
    writer: str  # the module that writes its fixes (``can_write`` and ``edits_for``), imported when needed
    fixtures: tuple[str, ...]  # its folders under fixtures/, checked by tests/test_fixtures.py
    files: tuple[FileNames, ...] = ()  # the files it reads by name
    sniffs: tuple[Sniff, ...] = ()
    #: reads a file of a kind it names in ``files`` (other than YAML, which ``yaml`` reads); raises
    #: ``UnparsableInput``. None: its files are never checked on their own
    read: Callable[[SourceText, FileKind, Path, Run], Found] | None = None
    yaml: YamlClaim | None = None
    #: how a workload declares its DataLoader where the format has its own way (else the hint comment)
    declare_loader: str | None = None
    #: its writer also fixes a workload in a documentation YAML code block: the block edited as its own file, the
    #: edits kept only if it still parses (``shmlint.edits.codeblock``)
    fixes_in_blocks: bool = False
