"""YAML composed into position-carrying nodes with libyaml, plus safe accessors.

Nodes are never constructed into Python objects: tags cannot run code, and aliases stay shared references, so an
alias bomb costs nothing unless a walk expands it. Every walk here is iterative or memoised for that reason.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterable, Iterator

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from shmlint.lazy_regex import LazyRegex
from shmlint.source import SourceText

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # without libyaml: slower, same results
_RESOLVER = yaml.resolver.Resolver()


@functools.lru_cache(maxsize=65536)
def _plain_scalar_tag(value: str) -> str:
    """The tag of a plain scalar depends on its text only; manifests repeat the same texts over and over.

    A scalar longer than any number or keyword is a string: PyYAML's number patterns backtrack quadratically on a
    long run of digits, which a hostile file could use to stall the run.
    """
    if len(value) > 200:
        return "tag:yaml.org,2002:str"
    tag: str = _RESOLVER.resolve(ScalarNode, value, (True, False))
    return tag


class _Resolving:
    """Tag resolution memoised; path resolvers, which the safe loader never has, skipped (a mixin of the loaders
    below). Same tags as the safe loader, about a third less work per document."""

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode and implicit[0]:
            return _plain_scalar_tag(value)
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[misc]
        return tag

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _Loader(_Resolving, _BaseLoader):
    """The safe loader (libyaml's, where it is there) with ``_Resolving``'s tags."""


class _RedefiningLoader(_Resolving, yaml.SafeLoader):
    """The pure-Python safe loader, letting a document define an anchor again: an alias then refers to the latest
    node of that anchor (YAML 1.2, 3.2.2.2; YAML 1.1 says the same; Go's yaml, behind Helm, kubectl and compose,
    agrees). PyYAML's composers, in C and in Python, refuse it; this one is used only for a text they refused
    for that reason alone."""

    def compose_node(self, parent: Node | None, index: object) -> Node:
        if not self.check_event(yaml.AliasEvent):
            anchor = self.peek_event().anchor
            if anchor is not None:
                self.anchors.pop(anchor, None)
        node: Node = super().compose_node(parent, index)
        return node


#: deeper documents are refused: libyaml's composer recurses in C and no real manifest nests past a few dozen
MAX_DEPTH = 1000
#: aliases may share nodes, but a document that would expand past this many is an alias bomb, not a manifest
MAX_EXPANDED = 1_000_000
#: and the characters of scalars the file's aliases expand to, all documents together (or the file's own length,
#: when larger): every walk that reads a value through an alias reads its text again (1.1 MB of YAML aliasing
#: long values from thousands of containers ran past 5 minutes, each finding quoting them whole)
MAX_EXPANDED_CHARS = 16 << 20
#: a document of more parser events (about one per node) is not composed: composing costs ~500 bytes and ~15 us
#: a node, so this keeps any file within a few seconds and ~150 MiB (an 8 MB ``[1,1,...]`` is 4 million nodes)
MAX_EVENTS = 200_000
#: libyaml's scanner looks at every open flow collection for each token, so its work is tokens x flow depth (a
#: 990-deep ``[[[...]]]`` around 5 million items took 150 s to parse in C): past this much, a file is too complex
MAX_FLOW_WORK = 20_000_000
#: a large file without a signal is parsed in C at full speed when no document of it opens more than this many flow
#: collections (its work is then at most 16 x its tokens); otherwise its events are counted with the bounds above
FLOW_OPENERS_IN_C = 16
#: a document marker at the start of a line ends every flow collection (or the parse, with an error)
_DOCUMENT_MARKER = LazyRegex(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)
#: ... and then at most this many events are read for its syntax (a few seconds) before it is too complex
MAX_SYNTAX_EVENTS = 1_000_000
MERGE_TAG = "tag:yaml.org,2002:merge"
NULL_TAG = "tag:yaml.org,2002:null"

__all__ = [
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "TooComplex",
    "YamlError",
    "check_syntax",
    "compose",
    "key_problem",
]


class YamlError(Exception):
    """A YAML syntax error with the parser's own position (1-based)."""

    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


class TooComplex(YamlError):
    """Valid YAML, perhaps, but more nodes than a check may spend time and memory on."""


class Refused(YamlError):
    """A text refused for its shape, not its syntax: nesting deeper than a parser goes (``MAX_DEPTH``, libyaml's
    own limit) or aliases that expand like a bomb. What loads it next (kubectl, docker compose) fails too."""


class _SyntaxLoader(_Loader):
    """For files that only need their syntax checked: every node gets the same tag, no resolution at all.

    The composer reports the same errors (undefined aliases, duplicate anchors) whatever the tags are.
    """

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        return "tag:yaml.org,2002:str"


def _may_be_too_deep(text: str) -> bool:
    """Cheap bound: depth never exceeds flow openers + dashes + the largest indentation."""
    if len(text) < MAX_DEPTH:
        return False
    budget = MAX_DEPTH - text.count("[") - text.count("{") - text.count("-")
    if budget <= 0:
        return True
    if "\t" not in text and " " * budget not in text:  # no run of blanks that long anywhere: no pattern to build
        return False
    return re.search(rf"^[ \t]{{{budget},}}", text, re.MULTILINE) is not None


def _most_flow_openers(text: str) -> int:
    """An upper bound on how deep flow collections nest: the most ``[`` and ``{`` of any one document (the whole
    text's, when that is few enough: most files are not split into documents at all)."""
    openers = text.count("[") + text.count("{")
    if openers <= FLOW_OPENERS_IN_C:
        return openers
    return max(part.count("[") + part.count("{") for part in _DOCUMENT_MARKER.split(text))


def _check_events(text: str, limit: int) -> None:
    """One pass over the parser's events that stops early: nesting deeper than ``MAX_DEPTH`` is an error; more
    than ``limit`` events, or more scanner work than ``MAX_FLOW_WORK`` (open flow collections summed over the
    events), is too complex. The work so far is bounded by the limits: ``limit`` events at most ``MAX_DEPTH`` deep."""
    depth = flow = work = 0
    flows: list[bool] = []
    for events, event in enumerate(yaml.parse(text, Loader=_SyntaxLoader), 1):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise Refused(f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1, mark.index)
            flows.append(bool(event.flow_style))
            flow += flows[-1]
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
            flow -= flows.pop()
        work += flow
        if events > limit or work > MAX_FLOW_WORK:
            raise TooComplex(
                f"too complex to check: more than {limit:,} YAML nodes and events, or flow collections nested "
                "around too many of them (split the file)",
                1,
                1,
                0,
            )


def compose(source: SourceText, *, tags: bool = True) -> list[Node]:
    """All documents of a YAML stream as nodes; empty and comment-only documents are dropped.

    ``tags=False`` checks syntax only (the nodes' tags are meaningless): a third cheaper, for files that cannot
    hold a workload.
    """
    text = source.text
    with _as_yaml_error(source):
        return list(_composed(text, tags) if len(text) <= MEMO_MAX_CHARS else _compose_stream(text, tags))


#: texts up to this size keep their nodes for the next call: the fixer reads back the text it wrote, then checks
#: it for findings, and composing it once serves both; larger texts are composed each time (memory stays flat)
MEMO_MAX_CHARS = 1 << 20


@functools.lru_cache(maxsize=2)
def _composed(text: str, tags: bool) -> tuple[Node, ...]:
    return _compose_stream(text, tags)


def _compose_stream(text: str, tags: bool) -> tuple[Node, ...]:
    """The documents; a stream over the node budget because of its CRDs (``yaml_definitions``) is composed without
    their schemas, after its whole syntax is checked by the parser alone (so no reader composes it a second way)."""
    try:
        return _compose_text(text, tags)
    except TooComplex:
        from shmlint.parsers.yaml_definitions import blank_definitions  # rare: not on a small file's path

        blanked = blank_definitions(text) if _may_be_too_many(text) else None
        if blanked is None:
            raise
    _parse_only(text)
    return _compose_text(blanked, tags)


def _parse_only(text: str) -> None:
    """The whole text through the parser without composing: in C when libyaml is there and the text has few flow
    collections, else with the work bounds of ``_check_events`` (too complex past ``MAX_SYNTAX_EVENTS``)."""
    if hasattr(_SyntaxLoader, "raw_parse") and _most_flow_openers(text) <= FLOW_OPENERS_IN_C:
        _SyntaxLoader(text).raw_parse()
    else:
        _check_events(text, MAX_SYNTAX_EVENTS)


def _may_be_too_many(text: str) -> bool:
    """Cheap bound: every node but the first is introduced by a separator, an indicator or a line break."""
    return len(text) > MAX_EVENTS and sum(text.count(mark) for mark in ",\n:-[{?") > MAX_EVENTS // 2


def _compose_text(text: str, tags: bool) -> tuple[Node, ...]:
    """Nodes are shared between callers through the memo: nothing in shmlint changes a node once composed."""
    if _may_be_too_many(text) or _may_be_too_deep(text):
        _check_events(text, MAX_EVENTS)
    loader = _Loader if tags else _SyntaxLoader
    try:
        documents = tuple(doc for doc in yaml.compose_all(text, Loader=loader) if doc is not None)
    except yaml.composer.ComposerError as exc:
        if not (exc.context or "").startswith("found duplicate anchor"):
            raise
        documents = _compose_redefining(text)
    if "*" in text and "&" in text:  # an alias needs an anchor (the composer refuses an undefined one)
        budget = _ExpansionBudget(max(MAX_EXPANDED_CHARS, len(text)))
        for document in documents:
            _check_expansion(document, budget)
    return documents


#: the Python composer recurses about three frames a level: a text it composes nests at most this deep
MAX_PYTHON_DEPTH = 200
#: and it reads about a megabyte a second, fifteen times slower than libyaml: a larger text is not composed so
MAX_PYTHON_CHARS = 1 << 20


def _compose_redefining(text: str) -> tuple[Node, ...]:
    """The documents of a text that defines an anchor again (``_RedefiningLoader``), composed in Python: its size
    and depth bounded first, within the interpreter's recursion limit and a second or so."""
    if len(text) > MAX_PYTHON_CHARS:
        size = f"{MAX_PYTHON_CHARS >> 20} MiB"
        raise TooComplex(
            f"too complex to check: an anchor defined again in a text over {size} (split the file)", 1, 1, 0
        )
    depth = 0
    for event in yaml.parse(text, Loader=_SyntaxLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_PYTHON_DEPTH:
                mark = event.start_mark
                why = f"an anchor defined again in a document nested deeper than {MAX_PYTHON_DEPTH} levels"
                raise Refused(why, mark.line + 1, mark.column + 1, mark.index)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return tuple(doc for doc in yaml.compose_all(text, Loader=_RedefiningLoader) if doc is not None)


def check_syntax(source: SourceText) -> None:
    """Raise ``YamlError`` where the text is not YAML; for files that cannot hold a workload.

    libyaml's parser alone builds no node and is about four times faster than composing. It refuses the same
    texts unless the text has what only the composer or the depth guard refuses (anchors and aliases, deep
    nesting): those texts are composed, unless they are too large to compose (``MAX_EVENTS``): a large file with
    no signal is parsed only (libyaml's parser keeps its nesting on the heap), in C when it has few flow
    collections, else with the work bounds of ``_check_events`` (too complex past ``MAX_SYNTAX_EVENTS``).
    """
    text = source.text
    composer_only = "&" in text or "*" in text or _may_be_too_deep(text)
    large = _may_be_too_many(text)
    if not hasattr(_SyntaxLoader, "raw_parse") or (composer_only and not large):
        compose(source, tags=False)
        return
    with _as_yaml_error(source):
        _parse_only(text)


@contextlib.contextmanager
def _as_yaml_error(source: SourceText) -> Iterator[None]:
    """Whatever PyYAML raises on bad input, as one ``YamlError`` with a 1-based position in the decoded text."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        # an error at the very end points at the last line that has text, not past it
        offset = min(mark.index if mark else 0, len(source.text.rstrip()))
        line, column = source.position(offset)
        refused = Refused if "maximum nesting depth" in problem else YamlError  # libyaml's own depth limit
        raise refused(problem, line, column, offset) from None
    except UnicodeEncodeError as exc:  # bytes that are not UTF-8, kept as surrogates when the file was read
        line, column = source.position(exc.start)
        raise YamlError("not valid UTF-8 text", line, column, exc.start) from None
    except yaml.YAMLError as exc:  # reader errors: a character YAML forbids (libyaml counts bytes, not characters)
        character = getattr(exc, "character", None)
        found = source.text.find(chr(character)) if isinstance(character, int) else -1
        position = found if found != -1 else min(getattr(exc, "position", 0) or 0, len(source.text))
        line, column = source.position(position)
        raise YamlError(str(exc).splitlines()[0], line, column, position) from None


class _ExpansionBudget:
    """The scalar characters a file's documents expand to so far (``MAX_EXPANDED_CHARS``)."""

    __slots__ = ("left", "limit")

    def __init__(self, chars: int) -> None:
        self.left = self.limit = chars


def _check_expansion(root: Node, budget: _ExpansionBudget) -> None:
    """Refuse a document whose aliases would expand past MAX_EXPANDED nodes (a "billion laughs" bomb), or past
    what is ``budget``'s left of the file's expanded characters.

    Counted on the shared node graph with memoisation, so the check itself is linear in the file.
    """
    sizes: dict[int, int] = {}
    chars: dict[int, int] = {}
    open_nodes: set[int] = set()  # nodes whose children are still being counted: meeting one again is a cycle
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, MappingNode)
            else node.value
            if isinstance(node, SequenceNode)
            else []
        )
        if not children_done:
            if any(id(child) in open_nodes or child is node for child in children):
                _refuse(node, "an alias refers to a node that contains it (endless expansion)")
            open_nodes.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        open_nodes.discard(id(node))
        sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
        own = len(node.value) if isinstance(node, ScalarNode) else 0
        chars[id(node)] = own + sum(chars[id(child)] for child in children)
        if sizes[id(node)] > MAX_EXPANDED:
            _refuse(node, f"aliases expand to more than {MAX_EXPANDED:,} nodes (a YAML alias bomb)")
        if chars[id(node)] > budget.left:
            _refuse(node, f"aliases expand to more than {budget.limit:,} characters (a YAML alias bomb)")
    budget.left -= chars[id(root)]


def _refuse(node: Node, why: str) -> None:
    mark = node.start_mark
    raise Refused(f"{why}; refused", mark.line + 1, mark.column + 1, mark.index)


def scalar(node: Node | None) -> str | None:
    """The text of a scalar node; None for anything else (a mapping, a sequence, a missing node)."""
    if isinstance(node, ScalarNode) and node.tag != NULL_TAG:
        text: str = node.value
        return text
    return None


def is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == NULL_TAG)


def sequence(node: Node | None) -> list[Node]:
    return list(node.value) if isinstance(node, SequenceNode) else []


def scalars(node: Node | None) -> tuple[str, ...]:
    """The text of each item of a sequence that has one (``command: [python, x.py]``); an empty, null or nested item
    says nothing."""
    return tuple(filter(None, map(scalar, sequence(node))))


class Mappings:
    """Key lookup on mapping nodes with merge keys resolved, memoised per node.

    Explicit keys win over merged ones; among ``<<: [*a, *b]`` the earlier mapping wins (YAML merge spec); among
    duplicate keys the later one wins, as every loader does.
    """

    def __init__(self) -> None:
        self._cache: dict[int, dict[str, tuple[ScalarNode, Node]]] = {}

    def items(self, node: Node | None) -> dict[str, tuple[ScalarNode, Node]]:
        if not isinstance(node, MappingNode):
            return {}
        cached = self._cache.get(id(node))
        if cached is not None:
            return cached
        if not any(key.tag == MERGE_TAG for key, _ in node.value):  # most mappings: no source to resolve first
            own = self._cache[id(node)] = self._resolve(node)
            return own
        # merge sources first (post-order), with a stack rather than recursion: a chain of ``<<: *previous``
        # hundreds of anchors long must not reach Python's recursion limit
        stack: list[tuple[MappingNode, bool]] = [(node, False)]
        while stack:
            current, sources_done = stack.pop()
            if sources_done:
                self._cache[id(current)] = self._resolve(current)
            elif id(current) not in self._cache:
                self._cache[id(current)] = {}  # a merge cycle resolves to nothing rather than looping forever
                stack.append((current, True))
                stack.extend((s, False) for s in reversed(_merge_sources(current)) if id(s) not in self._cache)
        return self._cache[id(node)]

    def _resolve(self, node: MappingNode) -> dict[str, tuple[ScalarNode, Node]]:
        """The mapping's keys, once every merge source it names is resolved."""
        merged: dict[str, tuple[ScalarNode, Node]] = {}
        explicit: dict[str, tuple[ScalarNode, Node]] = {}
        for key, value in node.value:
            if key.tag == MERGE_TAG:
                sources = value.value if isinstance(value, SequenceNode) else [value]
                for source in sources:
                    for name, pair in self._cache.get(id(source), {}).items():
                        merged.setdefault(name, pair)
            elif isinstance(key, ScalarNode):
                explicit[key.value] = (key, value)
        return {**merged, **explicit}

    def get(self, node: Node | None, key: str) -> Node | None:
        pair = self.items(node).get(key)
        return pair[1] if pair else None

    def key(self, node: Node | None, key: str) -> ScalarNode | None:
        pair = self.items(node).get(key)
        return pair[0] if pair else None

    def path(self, node: Node | None, *keys: str) -> Node | None:
        for key in keys:
            node = self.get(node, key)
        return node

    def own_key(self, node: Node, key: str) -> bool:
        """True when the key is written in this mapping itself rather than merged in from an anchor."""
        return any(isinstance(k, ScalarNode) and k.value == key and k.tag != MERGE_TAG for k, _ in node.value)


def _merge_sources(node: MappingNode) -> list[MappingNode]:
    found: list[MappingNode] = []
    for key, value in node.value:
        if key.tag == MERGE_TAG:
            sources = value.value if isinstance(value, SequenceNode) else [value]
            found.extend(source for source in sources if isinstance(source, MappingNode))
    return found


def walk_mappings(root: Node) -> Iterator[MappingNode]:
    """Every mapping reachable from root, each once (aliases are not expanded twice)."""
    seen: set[int] = set()
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            yield node
            stack.extend(value for _, value in reversed(node.value))
        elif isinstance(node, SequenceNode):
            stack.extend(reversed(node.value))


def mappings_at(source: SourceText, offsets: Iterable[int]) -> dict[int, MappingNode]:
    """The mappings that start at ``offsets`` in the text (fix targets are offsets, so they cross processes as
    plain data); the composition is the memoised one the check of the same text made."""
    wanted = set(offsets)
    found: dict[int, MappingNode] = {}
    try:
        documents = compose(source)
    except YamlError:
        return found
    for document in documents:
        for node in walk_mappings(document):
            if node.start_mark.index in wanted and node.start_mark.index not in found:
                found[node.start_mark.index] = node
    return found


def key_problem(documents: list[Node]) -> YamlError | None:
    """What the strict readers behind kubectl and docker compose refuse although composition accepts it: a key
    written twice in one mapping, or a mapping or sequence used as a key. The fixer's guard, so that a fix never
    turns a file those tools load into one they reject."""
    for document in documents:
        for mapping in walk_mappings(document):
            keys: set[tuple[str, str]] = set()
            for key, _ in mapping.value:
                if not isinstance(key, ScalarNode):
                    return _problem(key, "a mapping or sequence is used as a key")
                if key.tag == MERGE_TAG:
                    continue
                if (key.tag, key.value) in keys:
                    return _problem(key, f"duplicate key {key.value!r} in one mapping")
                keys.add((key.tag, key.value))
    return None


def _problem(node: Node, why: str) -> YamlError:
    mark = node.start_mark
    return YamlError(why, mark.line + 1, mark.column + 1, mark.index)


def syntax_error(read: Callable[[SourceText], list[Node]], source: SourceText, strict: bool) -> str | None:
    """Why ``read`` (``compose``, ``jsonnodes.compose_json``) refuses the text, with ``strict`` also what
    ``key_problem`` finds; None when it reads: the fixer's guard for YAML and JSON files."""
    try:
        documents = read(source)
        problem = key_problem(documents) if strict else None
    except YamlError as exc:
        problem = exc
    return f"line {problem.line}, column {problem.column}: {problem.message}" if problem else None
