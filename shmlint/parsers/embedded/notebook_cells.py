"""A Jupyter notebook's cells read from its JSON: each cell's type and source strings with their offsets, and the
source's lines as the file writes them. Only the notebook's structure is walked; every other value (outputs,
metadata: often megabytes) is skipped whole by the standard library's decoder, which checks it is JSON, is fast,
and keeps nothing of it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.jsonc import JsoncError, JString

#: a JSON escape inside a string's text (bounded: fixed width after the backslash)
_ESCAPE = LazyRegex(r"\\(?:u[0-9a-fA-F]{4}|.)", re.DOTALL)
_BLANKS = LazyRegex(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class Cell(NamedTuple):
    """A cell: its type (``code``, ``markdown``, ``raw``...) and its source strings."""

    kind: str
    strings: tuple[JString, ...]
    start: int  # where its source is written (a list of strings, or one)
    end: int


class Line(NamedTuple):
    """A line of a cell: ``text`` is as long as what the file writes from ``offset`` (as written, or decoded in
    place)."""

    offset: int
    text: str
    shifted: tuple[tuple[int, int], ...] = ()

    @property
    def end(self) -> int:
        """Where the file writes its end: a ``\\n`` escape's backslash or the string's closing quote."""
        return self.offset + len(self.text)


def read_cells(text: str) -> list[Cell]:
    """Each cell's type and source strings: nbformat 4 (``cells``) and 3 (``worksheets``, a code cell's source
    under ``input``); a key written twice is read as ``json`` reads it, the last one."""
    reader = _Reader(text)
    cells: list[Cell] | None = None
    sheets: list[Cell] = []
    if reader.at("{"):
        for key in reader.members():
            if key == "cells":
                cells = list(_read_cells(reader))
            elif key == "worksheets" and reader.at("["):
                sheets = [cell for _ in reader.items() for cell in _sheet(reader)]
            else:
                reader.skip()
    else:
        reader.skip()
    reader.end()
    return sheets if cells is None else cells


def _sheet(reader: _Reader) -> list[Cell]:
    """An nbformat 3 worksheet's cells."""
    if not reader.at("{"):
        reader.skip()
        return []
    cells: list[Cell] = []
    for key in reader.members():
        if key == "cells":
            cells = list(_read_cells(reader))
        else:
            reader.skip()
    return cells


def _read_cells(reader: _Reader) -> Iterator[Cell]:
    if not reader.at("["):
        reader.skip()
        return
    for _ in reader.items():
        if not reader.at("{"):
            reader.skip()
            continue
        kind, start, end = "", 0, 0
        strings: tuple[JString, ...] = ()
        for key in reader.members():
            if key == "cell_type" and reader.at('"'):
                kind = reader.string().value
            elif key in ("source", "input"):
                start = reader.pos
                strings = tuple(reader.strings())
                end = reader.pos
            else:
                reader.skip()
        yield Cell(kind, strings, start, end)


class _Reader:
    """JSON read where the notebook's structure is (objects, lists, strings with their offsets); any other value
    is skipped whole by the standard library's decoder. Raises ``JsoncError`` with the offset where it stops."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = _after_blanks(text, 0)

    def at(self, char: str) -> bool:
        return self.text.startswith(char, self.pos)

    def skip(self) -> None:
        self._decode()

    def string(self) -> JString:
        start = self.pos
        value, end = self._decode()
        return JString(value, start, end)

    def strings(self) -> Iterator[JString]:
        """A string, or the strings of a list (other items skipped)."""
        if self.at('"'):
            yield self.string()
        elif self.at("["):
            for _ in self.items():
                if self.at('"'):
                    yield self.string()
                else:
                    self.skip()
        else:
            self.skip()

    def members(self) -> Iterator[str]:
        """An object's keys; after each, the caller reads or skips its value."""
        self._expect("{")
        if self._closes("}"):
            return
        while True:
            if not self.at('"'):
                raise JsoncError("expected a quoted key", self.pos)
            key, _ = self._decode()
            self._expect(":")
            yield key
            if self._after_item("}"):
                return

    def items(self) -> Iterator[None]:
        """A list's items; at each, the caller reads or skips it."""
        self._expect("[")
        if self._closes("]"):
            return
        while True:
            yield None
            if self._after_item("]"):
                return

    def end(self) -> None:
        if self.pos != len(self.text):
            raise JsoncError("unexpected text after the JSON value", self.pos)

    def _decode(self) -> tuple[str, int]:
        """The value at ``pos`` (a string where the caller asks for one) and where it ends; ``pos`` moves on to
        what follows."""
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            raise JsoncError(exc.msg, exc.pos) from None
        except RecursionError:
            raise JsoncError("nesting too deep to read", self.pos) from None
        self.pos = _after_blanks(self.text, end)
        return value, end

    def _expect(self, char: str) -> None:
        if not self.at(char):
            raise JsoncError(f"expected '{char}'", self.pos)
        self.pos = _after_blanks(self.text, self.pos + 1)

    def _closes(self, char: str) -> bool:
        if self.at(char):
            self._expect(char)
            return True
        return False

    def _after_item(self, closing: str) -> bool:
        """After a member: ``,`` (False: more follow) or the closing bracket (True)."""
        if self.at(","):
            self._expect(",")
            return False
        if not self._closes(closing):
            raise JsoncError(f"expected ',' or '{closing}'", self.pos)
        return True


def _after_blanks(text: str, position: int) -> int:
    blanks = _BLANKS.match(text, position)
    return blanks.end() if blanks else position


def cell_lines(text: str, cell: Cell) -> Iterator[Line]:
    """A cell's lines as written: split at the ``\\n`` escapes, which are left out (with a ``\\r`` before one:
    Jupyter's editor reads a Windows line break as one), and at each string's end."""
    for string in cell.strings:
        start, end = string.start + 1, string.end - 1
        line_start, carriage_return = start, -1
        for escape in _ESCAPE.finditer(text, start, end):
            if escape.group() == "\\n":
                line_end = carriage_return if carriage_return == escape.start() - 2 else escape.start()
                yield Line(line_start, text[line_start:line_end])
                line_start = escape.end()
            elif escape.group() == "\\r":
                carriage_return = escape.start()
        if line_start < end:
            yield Line(line_start, text[line_start:end])
