"""Launcher command lines a Python program writes in its own code: ``accelerate launch ... train.py`` in an
f-string, ``["torchrun", "--nproc_per_node", str(n), "train.py"]``, ``"deepspeed " + script``. A web UI or a
wrapper that starts training at run time says what it starts only there.

Read only in the files a container is followed into (``follow``: its program and the local modules that imports),
never across the repository: over whole trees, strings that begin with a launcher word are mostly package pins,
messages and option names, and only the program the container runs says what that container starts. A string
counts when it begins with a launcher (``torchrun``, ``deepspeed``, ``accelerate launch``, ``python -m
torch.distributed.run``...) followed by the program it launches (a ``.py`` file or a module), and is not a
docstring, a help text, a message printed or logged, or an exception's text. What the code fills in at run time
(``{workers}``, ``str(n)``) is marked unknown and never read as a value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from shmlint.named_tuple import NamedTuple
from shmlint.project.launchers import UNKNOWN, known, shown, target
from shmlint.project.pysyntax import called

#: command strings taken from one file: a program that writes more is not a launcher wrapper
MAX_COMMANDS = 16
#: longer strings are not read as command lines (a whole script template or a document is not one command)
MAX_CHARS = 8192
#: terms of a string sum (``"torchrun " + a + " " + b``) read; a longer sum is not read
MAX_TERMS = 64
#: calls whose string arguments are text for people, not commands (print, logging, UI notices, exceptions)
_MESSAGE_CALLS = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "echo", "secho"}
)
#: keyword arguments that hold text for people (argparse, click, UI widgets)
_TEXT_KEYWORDS = frozenset({"help", "description", "epilog", "usage", "info", "label", "placeholder", "msg"})


class Command(NamedTuple):
    """A launcher command line written in the code: its line and its words (those the code fills in dropped)."""

    line: int
    text: str


def commands(nodes: Iterable[ast.AST]) -> tuple[Command, ...]:
    """The launcher command lines of a file's nodes (``ast.walk`` order)."""
    nodes = list(nodes)
    skipped = _skipped(nodes)
    found: list[Command] = []
    for node in nodes:
        if id(node) in skipped or not isinstance(node, (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.BinOp)):
            continue
        words = _words(node)
        if words is None or not words or not known(words[0]):
            continue
        launched = target(words)
        if launched is None or not launched.launcher:
            continue
        found.append(Command(node.lineno, " ".join(map(shown, words))))
        if len(found) >= MAX_COMMANDS:
            break
    return tuple(found)


def _skipped(nodes: list[ast.AST]) -> set[int]:
    """Nodes not read on their own: parts of a larger string (read with it) and text for people."""
    skipped: set[int] = set()
    for node in nodes:
        parts: list[ast.AST] = []
        if isinstance(node, ast.Expr):
            parts = [node.value]  # a docstring or a string that does nothing
        elif isinstance(node, ast.JoinedStr):
            parts = list(node.values)
        elif isinstance(node, (ast.List, ast.Tuple)):
            parts = list(node.elts)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [node.left, node.right]
        elif isinstance(node, ast.Raise) and node.exc is not None:
            parts = [node.exc, *ast.walk(node.exc)]
        elif isinstance(node, ast.Call):
            if called(node.func) in _MESSAGE_CALLS:
                parts = list(node.args)
            parts += [k.value for k in node.keywords if k.arg in _TEXT_KEYWORDS]
        skipped.update(id(part) for part in parts)
    return skipped


def _words(node: ast.AST) -> list[str] | None:
    """The words of a command string or list; None for anything else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts or len(node.elts) > 512:
            return None
        return [_word(element, first=index == 0) for index, element in enumerate(node.elts)]
    text = _text(node)
    if text is None or len(text) > MAX_CHARS:
        return None
    return [word for word in text.split() if word != "\\"]


def _word(node: ast.expr, first: bool) -> str:
    """One word of a command list: a string, an f-string with its holes marked, ``sys.executable`` in first place
    (the Python running the program), else unknown."""
    if first and isinstance(node, ast.Attribute) and node.attr == "executable":
        return "python"
    text = _text(node)
    return text if text is not None else UNKNOWN


def _text(node: ast.AST, depth: int = 0) -> str | None:
    """A string's text, with what the code fills in marked unknown; None when the node is not a string (or a sum
    of strings deeper than ``MAX_TERMS``)."""
    if depth > MAX_TERMS:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else UNKNOWN for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _text(node.left, depth + 1)
        if left is None:
            return None
        right = _text(node.right, depth + 1)
        return left + (right if right is not None else UNKNOWN)
    return None
