"""What a name in Python code holds where it is used, read with ``ast`` as Python scopes it: a function's own
names, else the enclosing function's or the module's (a class body's names are not seen from its methods), and of
a name's assignments only those that can still hold when the line runs (a later one in the same block replaces an
earlier one; one per branch of an ``if``).

Bounded: a name assigned in more than ``MAX_BLOCKS`` statement blocks of one scope holds nothing known.
"""

from __future__ import annotations

import ast
import bisect
from collections import deque
from collections.abc import Iterator

#: statement blocks of one scope in which one name may be assigned and still be followed
MAX_BLOCKS = 64
#: the nodes that open a scope of their own
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class Scope:
    """One function's (or the module's, or a class body's, or a lambda's) own nodes and the names it binds."""

    __slots__ = ("assigned", "bound", "is_class", "nodes", "outer", "parameters", "root")

    def __init__(self, root: ast.AST, nodes: list[ast.AST], outer: Scope | None) -> None:
        self.root, self.nodes, self.outer, self.is_class = root, nodes, outer, isinstance(root, ast.ClassDef)
        arguments = root.args if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
        #: the function's parameters: bound once, on entry, before any of its statements
        self.parameters = frozenset(parameter_names(arguments)) if arguments is not None else frozenset()
        self.bound: dict[str, int] = {}
        #: name -> statement block -> (line, value) of its plain assignments there, in order
        self.assigned: dict[str, dict[int, list[tuple[int, ast.expr]]]] = {}
        added = {id(node.target) for node in nodes if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)}
        for node in nodes:
            if id(node) in added:  # ``cmd += ' -g 0'`` adds to what the name holds: it still starts as assigned
                continue
            for name in bound_names(node):
                self.bound[name] = self.bound.get(name, 0) + 1
        for block, statement in _statements(root):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
                if isinstance(target, ast.Name):
                    lines = self.assigned.setdefault(target.id, {}).setdefault(block, [])
                    lines.append((statement.lineno, statement.value))

    def values(self, name: str, before: int | None = None) -> list[ast.expr]:
        """What the name may hold where it is used (``before``: on the line above; None: anywhere): the values the
        nearest scope that binds it assigns it, when it binds it by plain assignments only (a parameter or a loop
        variable holds what a caller or the loop gives); for a name of its own scope on a line, the last assignment
        above it in each block."""
        scope = self.binding(name)
        if scope is None:
            return []
        blocks = scope.assigned.get(name, {})
        others = scope.bound[name] - sum(len(lines) for lines in blocks.values())  # bound by other means
        if len(blocks) > MAX_BLOCKS or (others and not self._replaced_parameter(name, before, blocks, others)):
            return []
        if before is None or scope is not self:  # an enclosing scope's name: any of its values, by the time it runs
            return [value for lines in blocks.values() for _, value in lines]
        found = []
        for lines in blocks.values():
            at = bisect.bisect_left(lines, before, key=lambda entry: entry[0])
            if at:
                found.append(lines[at - 1][1])
        return found

    def _replaced_parameter(
        self, name: str, before: int | None, blocks: dict[int, list[tuple[int, ast.expr]]], others: int
    ) -> bool:
        """Whether a parameter of this scope is assigned in the function's own body (no branch) above the line:
        what the caller gave no longer holds there (``def train(model): model = YOLO(model); model.train()``)."""
        if before is None or others != 1 or name not in self.parameters:
            return False
        body = getattr(self.root, "body", None)
        top = blocks.get(id(body), []) if isinstance(body, list) else []
        return any(line < before for line, _ in top)

    def value(self, name: str) -> ast.expr | None:
        """The name's one value, where the scope that binds it assigns it once."""
        values = self.values(name)
        return values[0] if len(values) == 1 else None

    def binding(self, name: str) -> Scope | None:
        """The scope whose ``name`` this is: its own, else the nearest enclosing one that binds it, past class
        bodies (a method does not see its class's names)."""
        scope: Scope | None = self
        while scope is not None and (name not in scope.bound or (scope.is_class and scope is not self)):
            scope = scope.outer
        return scope


def bound_names(node: ast.AST) -> list[str]:
    """The names a node binds in the scope it belongs to: an assignment, a loop, a parameter, an import, a def, an
    ``except ... as``, a ``match`` capture, a ``global``/``nonlocal`` declaration (the name is another scope's)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).partition(".")[0]]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def parameter_names(arguments: ast.arguments) -> Iterator[str]:
    """A function's parameter names, every kind (``a``, ``*args``, ``b`` after it, ``**kwargs``)."""
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return (argument.arg for argument in every if argument is not None)


def scopes(nodes: list[ast.AST]) -> list[Scope]:
    """The scopes of a file (``nodes`` begins with its module), the module's first, each with its own nodes in
    ``ast.walk`` order: a nested def, class or lambda is a scope of its own, its name bound in its parent; its
    parameters (with their defaults and annotations) are read as its own."""
    if not nodes:
        return []
    found: list[Scope] = []
    pending: deque[tuple[ast.AST, Scope | None]] = deque([(nodes[0], None)])
    while pending:
        root, outer = pending.popleft()
        own: list[ast.AST] = [] if isinstance(root, SCOPE_NODES) else [root]
        nested: list[ast.AST] = []
        children = list(ast.iter_child_nodes(root))
        if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own.extend(ast.walk(root.args))
            children = [child for child in children if child is not root.args]
        queue = deque(children)
        while queue:
            node = queue.popleft()
            if isinstance(node, SCOPE_NODES):
                nested.append(node)
                if not isinstance(node, ast.Lambda):
                    own.append(node)  # its name is bound here
                continue
            own.append(node)
            queue.extend(ast.iter_child_nodes(node))
        scope = Scope(root, own, outer)
        found.append(scope)
        pending.extend((child, scope) for child in nested)
    for scope in found:  # a ``global``/``nonlocal`` name is bound where it lives too: not one plain value there
        for node in scope.nodes:
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    home = found[0] if isinstance(node, ast.Global) else scope.outer
                    while home is not None and home is not found[0] and (home.is_class or name not in home.bound):
                        home = home.outer
                    if home is not None:
                        home.bound[name] = home.bound.get(name, 0) + 1
    return found


def _statements(root: ast.AST) -> Iterator[tuple[int, ast.stmt]]:
    """The statements of a scope with the block each is written in (an ``if`` and its ``else`` are two blocks),
    not entering nested scopes."""
    blocks: deque[list[ast.stmt]] = deque()
    body = getattr(root, "body", None)
    if isinstance(body, list):
        blocks.append(body)
    while blocks:
        block = blocks.popleft()
        for statement in block:
            yield id(block), statement
            if isinstance(statement, SCOPE_NODES):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    blocks.append(inner)
            for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                blocks.append(part.body)
