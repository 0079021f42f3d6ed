"""Python read with ``ast`` as values with their spans: the syntax adapter the Python launchers and the docker SDK
share (keyword arguments, module-level constants, sizes, character offsets from ``ast``'s UTF-8 byte columns).
Nothing is imported or run: any expression but a literal or a resolved constant is unknown."""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

from shmlint import sizes
from shmlint.formats.python.target import CallTarget
from shmlint.model import ShmKind, ShmMechanism, ShmSource, Size
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_INT, ascii_int, bounded_int
from shmlint.parsers.python_imports import PUBLIC, assignment_lines, from_imports, imported_bindings
from shmlint.signals import MAX_DEVICES, Signals, device_count, positive_count
from shmlint.source import SourceText, Span

#: the most MiB a size may name (docker and Kubernetes keep bytes in an int64)
MAX_MIB = MAX_INT // sizes.MIB
UNKNOWN = object()
#: sibling modules a launcher file's imports read constants from, at most (a flow imports a few)
MAX_SIBLINGS = 8
#: a module beside the file, by its dotted name: its constants (``module_constants``), None where it is not there
Sibling = Callable[[str], Mapping[str, object] | None]


class _Everything:
    """Every name: what a star import may bind."""

    def __contains__(self, name: object) -> bool:
        return True


_EVERYTHING = _Everything()


class Arg(NamedTuple):
    """A keyword argument: its node and its value when literal or a resolved constant (else ``UNKNOWN``)."""

    node: ast.expr
    value: object


class CallReader:
    """A parsed module's calls and values, positioned in its source."""

    def __init__(self, source: SourceText, signals: Signals, tree: ast.Module, sibling: Sibling | None = None) -> None:
        """``sibling``: a module beside this one by its dotted name, for the constants it imports (read only when
        a name its own statements leave open is looked up)."""
        self.source, self.signals, self.tree = source, signals, tree
        self.constants = module_constants(tree)
        self.sibling = sibling
        self.lines = source.text.splitlines(keepends=True)

    @functools.cached_property
    def imported(self) -> dict[str, object]:
        """``imported_constants``, worked out on the first name that needs it."""
        return imported_constants(self.tree, self.sibling) if self.sibling is not None else {}

    @functools.cached_property
    def imported_names(self) -> frozenset[str] | _Everything:
        """The names the module's own ``from m import`` statements may bind (any name, after a star import)."""
        names = {imported.alias for imported in from_imports(self.tree.body)}
        return _EVERYTHING if "*" in names else frozenset(names)

    @functools.cached_property
    def module_expressions(self) -> dict[str, ast.expr]:
        """What each name the module's own statements assign exactly once holds (``shm = dsl.PipelineVolume(...)``
        at the top of a pipeline file, used in its tasks)."""
        counts = Counter(
            node.id
            for statement in self.tree.body
            if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign)
            for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        )
        return {
            target.id: statement.value
            for statement in self.tree.body
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1
            for target in statement.targets
            if isinstance(target, ast.Name) and counts.get(target.id) == 1
        }

    # -- positions ---------------------------------------------------------------------------------------------

    def offset(self, line: int, column: int) -> int:
        """A character offset from ``ast``'s line and UTF-8 byte column."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        prefix = text.encode("utf-8", "surrogateescape")[:column].decode("utf-8", "surrogateescape")
        return safe_offset(self.source, line) + len(prefix)

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]

    def span(self, node: ast.AST) -> Span:
        return self.source.span(self.start(node), self.end(node))

    def text(self, node: ast.AST) -> str:
        return self.source.text[self.start(node) : self.end(node)]

    # -- values --------------------------------------------------------------------------------------------------

    def value(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            operand = node.operand.value
            return -operand if isinstance(operand, int | float) and not isinstance(operand, bool) else UNKNOWN
        if isinstance(node, ast.Name):
            if node.id in self.imported_names and node.id in self.imported:
                return self.imported[node.id]
            return self.constants.get(node.id, UNKNOWN)
        return UNKNOWN

    def keywords(self, call: ast.Call) -> dict[str, Arg]:
        return {k.arg: Arg(k.value, self.value(k.value)) for k in call.keywords if k.arg is not None}

    def spread(self, call: ast.Call) -> Iterator[ShmSource]:
        """``**options`` in a call may carry the shm setting: an unknown source, which lowers a finding."""
        for keyword in call.keywords:
            if keyword.arg is None:
                description = f"**{self.text(keyword.value)} (resolved at run time)"
                yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, self.span(keyword), description)

    def size(self, arg: Arg, dialect: str) -> Size:
        """A size in ``dialect``: ``mib`` (an integer of MiB), ``kubernetes`` or ``docker`` (int: bytes)."""
        span, text, value = self.span(arg.node), self.text(arg.node), arg.value
        if value is UNKNOWN:
            return Size(text, None, span, dialect)
        if dialect == "mib":
            mib = (
                bounded_int(value, maximum=MAX_MIB) if not isinstance(value, str) else ascii_int(value, maximum=MAX_MIB)
            )
            if mib:
                return Size(text, mib * sizes.MIB, span, dialect)
            return Size(text, None, span, dialect, f"{text} is not a whole number of MiB (e.g. 8192)")
        if isinstance(value, int) and not isinstance(value, bool) and bounded_int(value) is None:
            return Size(text, None, span, dialect, f"{text[:40]} is out of range")
        if isinstance(value, int) and not isinstance(value, bool) and dialect == sizes.DOCKER:
            return Size(text, value, span, dialect)  # the docker SDK reads an integer as bytes
        if not isinstance(value, str | int) or isinstance(value, bool):
            return Size(text, None, span, dialect, f"{text} is not a size")
        parsed = sizes.parse(str(value), dialect)
        return Size(text, parsed.bytes, span, dialect, parsed.error, parsed.suggestion)

    def positive(self, arg: Arg | None) -> bool:
        if arg is None or arg.value is UNKNOWN or arg.value is None or isinstance(arg.value, bool):
            return False
        value = arg.value
        if isinstance(value, int | float):
            return value > 0  # a number from the source, however large: no str() of it (5000 digits raise)
        return isinstance(value, str) and positive_count(value)

    def call_target(self, node: ast.expr, keyword: str, unit: str) -> CallTarget:
        """Before the closing parenthesis of a call; for a bare decorator (``@batch``), right after its name."""
        end = self.end(node)
        return CallTarget(end - 1 if isinstance(node, ast.Call) else end, keyword, unit)


def safe_offset(source: SourceText, line: int) -> int:
    starts = source.line_starts
    return starts[min(max(line, 1), len(starts)) - 1] if starts else 0


def imported_constants(tree: ast.Module, sibling: Sibling) -> dict[str, object]:
    """The values a module's own ``from m import NAME`` (or ``*``) statements bind from the modules beside it
    (``sibling``: a module's constants by its dotted name, None where it is not in the tree; a relative import
    one level up is a sibling too), ``UNKNOWN`` for a name from elsewhere, in the order the statements run
    (``python_imports.imported_bindings``: ``from consts import *`` then ``gpu=N_GPU``, as outerbounds' Metaflow
    examples keep their counts in ``consts.py``). At most ``MAX_SIBLINGS`` modules are read."""
    read: dict[str, Mapping[str, object] | None] = {}

    def constants(module: str) -> Mapping[str, object] | None:
        name = module[1:] if module.startswith(".") else module
        if not name or name.startswith("."):
            return None
        if name not in read and len(read) < MAX_SIBLINGS:
            read[name] = sibling(name)
        return read.get(name)

    return imported_bindings(from_imports(tree.body), constants, assignment_lines(tree.body), UNKNOWN)


def module_constants(tree: ast.Module) -> dict[str, object]:
    """``NAME = literal`` at module level, assigned once; a name assigned twice is not a constant. ``__all__`` is
    kept (its value None) where the module assigns one: a star import from it then binds nothing known (what it
    lists is not read, ``python_imports.imported_bindings``)."""
    found: dict[str, object] = {}
    assigned: set[str] = set()
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if target.id in assigned:
                found.pop(target.id, None)
                continue
            assigned.add(target.id)
            if isinstance(value, ast.Constant):
                found[target.id] = value.value
            elif target.id == PUBLIC:
                found[PUBLIC] = None
    return found


def text_value(arg: Arg | None) -> str | None:
    """The string an argument gives, when it is a literal or a resolved constant string."""
    return arg.value if arg is not None and isinstance(arg.value, str) else None


def called_name(node: ast.expr) -> str | None:
    """``batch`` for ``@batch``, ``@batch(...)``, ``@metaflow.batch(...)``."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def method_name(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def device_counts(arg: Arg) -> list[int]:
    """The device count a literal ``gpu=2`` / ``"2"`` / ``set_accelerator_limit(2)`` names; none when unknown."""
    value = arg.value
    if isinstance(value, bool) or not isinstance(value, int | str):
        return []
    count = device_count(value) if isinstance(value, str) else bounded_int(value, maximum=MAX_DEVICES)
    return [count] if count is not None else []


def flat_strings(node: ast.expr) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def command_words(command: Arg, reader: CallReader) -> list[str]:
    """A command as words: a string split on spaces, or a list of literal strings."""
    if isinstance(command.value, str):
        return command.value.split()
    if isinstance(command.node, ast.List | ast.Tuple):
        return [word for element in command.node.elts if isinstance(word := reader.value(element), str)]
    return []
