"""Container runs a Python program starts through a process or a shell: ``subprocess.run(["docker", "run", ...])``,
``os.system("docker run ...")``, ``subprocess.Popen(f"docker run --gpus all {image} ...", shell=True)`` (audit83a,
audit83d: launches built in Python code gave no finding at all, where the same line in a script fails the gate).

The command is rewritten as shell at the file's own offsets (``shmlint.parsers.embedded.mask``), so the command-line
reader finds it and every span points into the Python source: a string's characters where they are written, an
expression (a name, an f-string's ``{image}``) as a shell reference of its width, the punctuation between a list's
items as blanks (a ``\\`` before a line break inside one). Only what the source spells plainly is read: a list or
tuple of string literals and expressions, one string literal or f-string (adjacent literals joined), ``.split()`` of
one, or a name the module assigns such a value once. A string with escapes or a prefix other than ``f`` is not read.
A fix is offered only inside a string (a new option inserted there stays a string's text); a list's run gets none.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise

from shmlint.formats.python import STARTS_A_RUN
from shmlint.formats.python.calls import CallReader, called_name
from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, shell_reference

#: the calls that run a command: the standard library's process and shell calls, by their own names
RUNNERS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput"})
#: a plain string literal: one quote character, no prefix but ``f``, no escape
_PLAIN = LazyRegex(r"(?:f|F)?(\"|')(?!\1\1)[^\"'\\\r\n]*\1")
#: commands read per file
MAX_RUNS = 64


class ShellRuns:
    """The shell a file's process calls run, masked at the file's offsets, and where each list-built one is (no fix
    is written there)."""

    def __init__(self, reader: CallReader) -> None:
        self.reader = reader
        self.text = reader.source.text
        self.mask = Mask(self.text)
        self.lists: list[tuple[int, int]] = []
        self.read_at: set[int] = set()  # the commands read, by where they start (a list run twice is one)
        self.assigned = _assigned_once(reader.tree)

    def read(self) -> str | None:
        """The masked shell, or None when the file starts no container run this way."""
        for node in ast.walk(self.reader.tree):
            if len(self.read_at) >= MAX_RUNS:
                break
            if isinstance(node, ast.Call) and node.args and called_name(node) in RUNNERS:
                self.command(self.assigned.get(_name(node.args[0]), node.args[0]))
        return self.mask.result() if self.read_at else None

    def command(self, node: ast.expr) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split":
            node = node.func.value if not node.args and not node.keywords else node  # ``"docker run ...".split()``
        start, end = self.reader.start(node), self.reader.end(node)
        if start in self.read_at or STARTS_A_RUN.search(self.text, start, end) is None:
            return
        if isinstance(node, ast.List | ast.Tuple) and self.listed(node):
            self.lists.append((start, end))
        elif not (isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp) and self.string(node)):
            return
        self.continue_lines(start, end)
        self.read_at.add(start)

    def listed(self, node: ast.List | ast.Tuple) -> bool:
        """An argument list: each item a word where it is written (a literal's characters, another expression as a
        reference of its width), the punctuation between them blanks. None of it read where an item spans lines."""
        if any(self.text.count("\n", self.reader.start(i), self.reader.end(i)) for i in node.elts):
            return False
        for item in node.elts:
            if isinstance(item, ast.Constant | ast.JoinedStr) and self.plain(item):
                self.literal(item)
            else:
                start, end = self.reader.start(item), self.reader.end(item)
                self.mask.put(start, shell_reference(self.text[start:end], end - start))
        return True

    def string(self, node: ast.expr) -> bool:
        """One command line as a string: its characters where they are written, an f-string's expressions as
        references, literals joined by ``+`` where a blank separates them (else the shell would split them)."""
        parts = list(_concatenated(node))
        if not parts or not all(self.plain(part) for part in parts):
            return False
        inner = [self.inside(part) for part in parts]
        if any(self.text[a[1] - 1 : a[1]].strip() and self.text[b[0] : b[0] + 1].strip() for a, b in pairwise(inner)):
            return False
        for part in parts:
            self.literal(part)
        return True

    def plain(self, node: ast.expr) -> bool:
        """Whether a literal is written plainly on one line (no escape, no prefix but ``f``, no doubled brace)."""
        text = self.reader.text(node)
        return _PLAIN.fullmatch(text) is not None and "{{" not in text and "}}" not in text

    def inside(self, node: ast.expr) -> tuple[int, int]:
        """Where a plain literal's characters are, between its quotes."""
        start, end = self.reader.start(node), self.reader.end(node)
        return start + (2 if self.text[start] in "fF" else 1), end - 1

    def literal(self, node: ast.expr) -> None:
        """A plain literal's characters kept, an f-string's ``{expression}`` parts as references of their width."""
        start, end = self.inside(node)
        self.mask.keep(start, end)
        at = start
        while isinstance(node, ast.JoinedStr) and (opening := self.text.find("{", at, end)) != -1:
            closing = self.text.find("}", opening, end)
            if closing == -1:
                return
            self.mask.put(opening, shell_reference(self.text[opening + 1 : closing], closing + 1 - opening))
            at = closing + 1

    def continue_lines(self, start: int, end: int) -> None:
        """A ``\\`` on the last blank before each line break inside the command (a list's comma, a closing quote)."""
        at = self.text.find("\n", start, end)
        while at != -1:
            blank = at - 1 - (self.text[at - 1 : at] == "\r")
            if blank >= start and self.mask.kept(blank, blank + 1) == " ":
                self.mask.put(blank, "\\")
            at = self.text.find("\n", at + 1, end)


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _concatenated(node: ast.expr) -> Iterator[ast.expr]:
    """The literals a string expression is made of: itself, or both sides of a ``+`` of strings."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _concatenated(node.left)
        yield from _concatenated(node.right)
    elif isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        yield node


def _assigned_once(tree: ast.Module) -> dict[str, ast.expr]:
    """What each name the file assigns exactly once, anywhere, holds (``cmd = ["docker", "run", ...]`` then
    ``subprocess.run(cmd)``): only a list, a tuple or a string."""
    counts = Counter(
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    )
    return {
        target.id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        for target in node.targets
        if isinstance(target, ast.Name)
        and counts[target.id] == 1
        and isinstance(node.value, ast.List | ast.Tuple | ast.Constant | ast.JoinedStr)
    }
