"""The compose project model: what compose would run, not what one mapping says.

Merge keys, ``extends`` (same file or another) and a ``compose.override.yaml`` beside a default file all add keys
to a service. Each service is kept as a stack of *layers* (the mappings that contribute, lowest priority first)
and every lookup asks the stack, so a value keeps its own node and file: a finding about ``shm_size`` points where
``shm_size`` is written, a finding about the service points at its key in the file that defines it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint import sizes
from shmlint.formats.compose import COMPOSE_DEFAULT_FILES, COMPOSE_OVERRIDE_FILES
from shmlint.formats.compose.detect import file_name, is_override
from shmlint.model import Size
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_DECIMAL_CHARS
from shmlint.parsers.yamlnodes import (
    MERGE_TAG,
    MappingNode,
    Mappings,
    Node,
    ScalarNode,
    SequenceNode,
    YamlError,
    compose,
    is_null,
    scalar,
    sequence,
    walk_mappings,
)
from shmlint.runtime.interpolation import dotenv_values, interpolate
from shmlint.source import SourceText, Span

if TYPE_CHECKING:
    from shmlint.formats.compose.file_sets import FileSet
    from shmlint.project.index import ProjectFiles

#: compose tags that remove a value inherited from a lower layer, or replace it instead of merging
RESET_TAG = "!reset"
OVERRIDE_TAG = "!override"
_YAML_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_MAX_EXTENDS = 32


class ComposeFile(NamedTuple):
    """A parsed compose file; ``base_dir`` resolves its relative paths (build contexts, ``extends.file``)."""

    source: SourceText
    root: MappingNode
    base_dir: Path
    #: the file's other YAML documents: compose merges them after the first, in order, as it merges ``-f`` files
    #: (https://github.com/compose-spec/compose-go/pull/451; audit78c: a second document's services were not read)
    later: tuple[MappingNode, ...] = ()

    @property
    def services(self) -> Node | None:
        return next((value for key, value in self.root.value if scalar(key) == "services"), None)

    def documents(self) -> list[ComposeFile]:
        """The file as compose merges it: itself (its first document), then each later document as a file of its
        own in the same place."""
        return [self, *(ComposeFile(self.source, root, self.base_dir) for root in self.later)]


def compose_file(source: SourceText, documents: list[Node], base_dir: Path) -> ComposeFile | None:
    """The compose file a source's YAML documents make (mappings only; None where there is none)."""
    roots = [document for document in documents if isinstance(document, MappingNode)]
    return ComposeFile(source, roots[0], base_dir, tuple(roots[1:])) if roots else None


class Layer(NamedTuple):
    """One mapping that contributes keys to a service, with the file it is written in."""

    node: MappingNode
    file: ComposeFile


class Found(NamedTuple):
    """A value and the layer it came from, so its span names the file it is written in."""

    node: Node
    layer: Layer

    @property
    def source(self) -> SourceText:
        return self.layer.file.source

    @property
    def span(self) -> Span:
        return self.source.span(self.node.start_mark.index, self.node.end_mark.index)

    def span_of(self, node: Node | None) -> Span:
        """The span of a node inside this value (or of the value itself)."""
        target = node if node is not None else self.node
        return self.source.span(target.start_mark.index, target.end_mark.index)


class Service(NamedTuple):
    """A compose service with the layers (extends, anchors, override files) that build it."""

    name: str
    key: ScalarNode  # the service key in the file that defines it
    file: ComposeFile
    mapping: MappingNode
    layers: tuple[Layer, ...]  # lowest priority first


class Entry(NamedTuple):
    """One environment variable or label: its value (None when taken from the host, or from a variable no default
    sets) and where it is written."""

    value: str | None
    span: Span


class Project:
    """The compose files one run reads (each parsed once) and the lookups that see a service as compose does."""

    def __init__(self, files: ProjectFiles) -> None:
        """``files``: the tree the other files of the project are read from (the run's ``ProjectFiles``)."""
        self.files = files
        self.m = Mappings()
        self._files: dict[Path, ComposeFile | None] = {}
        self._merged: dict[int, set[int]] = {}
        self.judged_with: FileSet | None = None  # the named set this file was judged in, for the report
        #: what the project's ``.env`` sets: compose interpolates its files with these (the shell's environment,
        #: which would win over them, is not known here). Read for sizes, modes, paths and images; command lines and
        #: environment values are interpolated without them (``plain``), so that no secret reaches a report
        self.variables: dict[str, str] = {}
        #: of those, the counts and switches a command line may show (``plain``), worked out once a project
        self.settings: dict[str, str] = {}

    # -- files and services ----------------------------------------------------------------------------------

    def load(self, path: Path) -> ComposeFile | None:
        """Another compose file (override, ``extends.file``), parsed once; None when missing or not YAML. Its path
        is named plainly (``llm/compose.vllm.yml``, not ``llm/../llm/compose.vllm.yml`` of an ``extends`` chain)."""
        path = Path(os.path.normpath(path))
        if path not in self._files:
            source = self.files.source(path)
            try:
                documents = compose(source) if source is not None else []
            except YamlError:
                documents = []
            self._files[path] = compose_file(source, documents, path.parent) if source is not None else None
        return self._files[path]

    def services_for(self, this: ComposeFile) -> list[Service]:
        """The services ``docker compose`` runs when given this file: the largest set of files the repository names
        with it (``-f`` in its scripts, Makefiles and docs, ``COMPOSE_FILE`` in ``.env``: ``file_sets``), else a
        default file and its override together (from either side), else the file alone."""
        files = self.named_set(this)
        if files is None:
            name = file_name(this.source.path)
            files = [this]
            if is_override(name):
                base = next((f for f in map(self.load, self._beside(this, COMPOSE_DEFAULT_FILES)) if f), None)
                files = [base, this] if base is not None else [this]
            elif name in COMPOSE_DEFAULT_FILES:
                override = next((f for f in map(self.load, self._beside(this, COMPOSE_OVERRIDE_FILES)) if f), None)
                files = [this, override] if override is not None else [this]
        self.variables = self.files.per_folder(_dotenv, str(files[0].base_dir))  # the first file's folder is the
        # project directory, where compose looks for ``.env``
        self.settings = {name: value for name, value in self.variables.items() if _setting(value)}
        return self.services([document for file in files for document in file.documents()])

    def interpolate(self, text: str) -> tuple[str, bool]:
        """``text`` as compose interpolates it in this project, and whether nothing unknown decided it."""
        return interpolate(text, self.variables)

    def plain(self, text: str) -> str:
        """``text`` interpolated as a command line (or an environment value) is: with the defaults it writes and the
        ``.env``'s counts and switches only (``TP=2``, ``SHARDED=true``: audit80a, a committed ``.env``'s tensor
        parallel read as the command's default 1), never its other values, which may be secrets."""
        return interpolate(text, self.settings)[0] if "$" in text else text

    def named_set(self, this: ComposeFile) -> list[ComposeFile] | None:
        """The files of the largest named set that holds this file, in compose's order; None when no set names it
        or one of its files cannot be read (then the file is judged as it would be alone)."""
        from shmlint.formats.compose.file_sets import sets_naming

        here = os.path.abspath(this.source.path)
        sets = sets_naming(self.files, str(this.base_dir))
        holding = [s for s in sets if here in map(os.path.abspath, s.files)]
        if not holding:
            return None
        chosen = max(holding, key=lambda s: len(s.files))
        files = [this if os.path.abspath(f) == here else self.load(Path(f)) for f in chosen.files]
        if any(f is None for f in files):
            return None
        self.judged_with = chosen
        return [f for f in files if f is not None]

    @staticmethod
    def _beside(file: ComposeFile, names: tuple[str, ...]) -> list[Path]:
        return [file.base_dir / name for name in names]

    def services(self, files: list[ComposeFile]) -> list[Service]:
        """The services of the files merged in order: each at home in the first file that defines it, with the
        layers of every file on top, as compose merges ``-f`` files."""
        names = {id(f): self.service_names(f) for f in files}
        services: list[Service] = []
        for name in dict.fromkeys(n for f in files for n in names[id(f)]):
            home = next(f for f in files if name in names[id(f)])
            pair = self.service_node(home, name)
            if pair is None:
                continue  # a scalar or list where a service should be: compose rejects it, shmlint skips it
            layers = tuple(layer for f in files for layer in self.chain(f, name))
            services.append(Service(name, pair[0], home, pair[1], layers))
        return services

    def service_node(self, file: ComposeFile | None, name: str) -> tuple[ScalarNode, MappingNode] | None:
        if file is None:
            return None
        pair = self.m.items(file.services).get(name)
        if pair is None or not isinstance(pair[1], MappingNode):
            return None
        return pair

    def service_names(self, file: ComposeFile | None) -> list[str]:
        if file is None:
            return []
        return [name for name in self.m.items(file.services) if not name.startswith("x-")]

    def chain(self, file: ComposeFile, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[Layer, ...]:
        """The layers of one service in one file: what it ``extends`` first, then its own mapping."""
        pair = self.service_node(file, name)
        marker = (file.source.path, name)
        if pair is None or marker in seen or len(seen) > _MAX_EXTENDS:
            return ()
        mapping = pair[1]
        own = (Layer(mapping, file),)
        extends = self.m.get(mapping, "extends")
        target_name = scalar(extends) or scalar(self.m.get(extends, "service"))
        if not target_name:
            return own
        other = scalar(self.m.get(extends, "file"))
        target_file = self.load(file.base_dir / self.interpolate(other)[0]) if other else file
        if target_file is None:
            return own
        return self.chain(target_file, target_name, seen | {marker}) + own

    def merged_elsewhere(self, file: ComposeFile) -> set[int]:
        """Ids of the mappings that some mapping of the file merges in with ``<<`` (worked out once per file)."""
        found = self._merged.get(id(file.root))
        if found is None:
            found = self._merged[id(file.root)] = set()
            for mapping in walk_mappings(file.root):
                for key, value in mapping.value:
                    if key.tag == MERGE_TAG:
                        found.update(id(n) for n in (value.value if isinstance(value, SequenceNode) else [value]))
        return found

    # -- lookups across layers -------------------------------------------------------------------------------

    def walk(self, layer: Layer, path: tuple[str, ...]) -> tuple[Node | None, bool]:
        """The node at ``path`` in one layer, and whether a tag on the way says lower layers no longer count."""
        node: Node | None = layer.node
        final = False
        for part in path:
            node = self.m.get(node, part)
            if node is None:
                return None, final
            if node.tag in (RESET_TAG, OVERRIDE_TAG):
                final = True
                if node.tag == RESET_TAG:
                    return None, True
        return node, final

    def get(self, service: Service, *path: str) -> Found | None:
        """The value at ``path`` from the highest layer that sets it (mappings merge, everything else overrides)."""
        for layer in reversed(service.layers):
            node, final = self.walk(layer, path)
            if node is not None and not is_null(node):
                return Found(node, layer)
            if final:
                return None
        return None

    def every(self, service: Service, *path: str) -> list[Found]:
        """The value at ``path`` from every layer, lowest first, for lists that compose appends or merges."""
        found: list[Found] = []
        for layer in service.layers:
            node, final = self.walk(layer, path)
            if final:
                found.clear()
            if node is not None and not is_null(node):
                found.append(Found(node, layer))
        return found

    def text(self, found: Found | None) -> str | None:
        """A scalar with compose interpolation applied (defaults used)."""
        value = scalar(found.node) if found else None
        return self.interpolate(value)[0] if value is not None else None

    def entries(self, service: Service, *path: str) -> dict[str, Entry]:
        """A ``list_or_dict`` field (environment, labels) merged by name across layers, the higher layer winning. Its
        values are interpolated with the defaults written in the file only, never the ``.env``: that file often holds
        secrets, and environment values reach messages (a command a ``-c`` string runs)."""
        merged: dict[str, Entry] = {}
        for found in self.every(service, *path):
            if isinstance(found.node, MappingNode):
                for name, (key, value) in self.m.items(found.node).items():
                    text = scalar(value)
                    span = found.source.span(key.start_mark.index, value.end_mark.index)
                    merged[name] = Entry(_certain(text), span)
            for item in sequence(found.node):
                text = scalar(item)
                if text is not None:
                    name, equals, value = text.partition("=")
                    span = found.source.span(item.start_mark.index, item.end_mark.index)
                    merged[name.strip()] = Entry(_certain(value) if equals else None, span)
        return merged

    def size(self, found: Found | None) -> Size | None:
        """A docker-dialect Size from a compose value (bytes when a YAML number); None for a variable neither the
        ``.env`` nor a default sets, or a non-scalar."""
        raw = scalar(found.node) if found else None
        if found is None or raw is None:
            return None
        text, certain = self.interpolate(raw)
        if not certain:
            return None
        if found.node.tag in _YAML_NUMBER_TAGS:
            number = _yaml_number(text)
            if number is not None:
                return Size(raw, number, found.span, sizes.DOCKER)
        parsed = sizes.parse(text, sizes.DOCKER)
        suggestion = parsed.suggestion if text == raw else None
        return Size(raw, parsed.bytes, found.span, sizes.DOCKER, parsed.error, suggestion)


def _setting(value: str) -> bool:
    """A ``.env`` value a command line may show: a count or a switch, never a secret."""
    return (value.isascii() and value.isdigit() and len(value) <= 4) or value in ("true", "false", "True", "False")


def _certain(text: str | None) -> str | None:
    """An environment value or label interpolated with its own defaults; None (the host's, not known) when a
    variable no default sets decides it."""
    if text is None:
        return None
    value, certain = interpolate(text)
    return value if certain else None


def _dotenv(files: ProjectFiles, folder: str) -> dict[str, str]:
    """What the ``.env`` of a compose project directory sets (asked through ``files.per_folder``: once a folder);
    nothing when the folder's scripts run compose with another env file or project directory (then which values
    compose reads is not known: the variables stay unresolved, and no fix writes over them)."""
    from shmlint.formats.compose.file_sets import env_file_named

    source = files.source(os.path.join(folder, ".env"))
    if source is None or files.per_folder(env_file_named, folder):
        return {}
    return dotenv_values(source.text)


def _yaml_number(text: str) -> int | None:
    if len(text) > MAX_DECIMAL_CHARS or not text.isascii():  # what int() refuses or misreads ("١٢")
        return None
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        pass
    try:
        return int(float(text))
    except (ValueError, OverflowError):
        return None
