"""Which of a Python module's names its ``from m import`` statements bind, read with ``ast``: the one reading the
Python launchers (``formats/python``) and the project walk (``project``) share, so a count imported from a module
beside the file means the same in both. Statements bind in the order they run: a later import takes a name over,
and the module's own assignment after an import makes the name its own again.

It imports nothing of shmlint's; what a module exports (its constants, its numbers) is the caller's to say.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from shmlint.named_tuple import NamedTuple

V = TypeVar("V")
#: the name a module lists its public names in, for ``from m import *``
PUBLIC = "__all__"


class FromImport(NamedTuple):
    """One name of a ``from module import name as alias`` statement: the module with a leading ``.`` for each
    level, the name (``*`` for a star import), the name it binds, and the statement's line."""

    module: str
    name: str
    alias: str
    line: int


def from_imports(statements: Iterable[ast.AST]) -> tuple[FromImport, ...]:
    """The ``from m import`` statements among ``statements`` (a module's own, not a function's), name by name."""
    return tuple(
        FromImport("." * node.level + (node.module or ""), alias.name, alias.asname or alias.name, node.lineno)
        for node in statements
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    )


def assignment_lines(statements: Iterable[ast.AST]) -> dict[str, int]:
    """The last line at which ``statements`` assign each plain name (``=``, an annotated or augmented assignment;
    each name of ``a, b = ...``)."""
    found: dict[str, int] = {}
    for statement in statements:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
            targets = [statement.target]
        else:
            continue
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    found[node.id] = max(found.get(node.id, 0), statement.lineno)
    return found


def imported_bindings(
    imports: Sequence[FromImport],
    exported: Callable[[str], Mapping[str, V | None] | None],
    assigned: Mapping[str, int],
    unknown: V,
) -> dict[str, V]:
    """The names whose last binding at module level is one of ``imports``, each with the value the module it
    names exports (``exported``: a module's names by its dotted name, None for a name it binds to a value not
    known; None for a module that is not read), ``unknown`` where that is not known. A star import binds what the
    module exports but its ``_private`` names (Python's rule without ``__all__``), and nothing known from a module
    not read or one that lists its public names in ``__all__`` (which names it lists is not read: the review's
    ``__all__ = ["GPUS"]`` kept the importer's own ``NUM_WORKERS``); a name ``assigned`` after its import is the
    importing file's own again."""
    found: dict[str, V] = {}
    for imported in sorted(imports, key=lambda each: each.line):
        names = exported(imported.module)
        if imported.name != "*":
            value = names.get(imported.name) if names is not None else None
            found[imported.alias] = unknown if value is None else value
        elif names is not None and PUBLIC not in names:
            found.update(
                (name, unknown if value is None else value) for name, value in names.items() if not name.startswith("_")
            )
        for name in [name for name in found if assigned.get(name, 0) > imported.line]:
            del found[name]
    return found
