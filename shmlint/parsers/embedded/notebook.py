"""The shell of a Jupyter notebook (``.ipynb``), kept where the file writes it.

A notebook is JSON whose cells hold their source as strings (one line each, or one string for the cell). What a
code cell runs through the system shell is read as shell, as IPython reads it: a statement that starts with ``!``
or ``!!``, an assignment from one (``x = !cmd``) or a ``%sx``/``%system`` line magic, with the lines its trailing
backslashes continue; and the whole body of a ``%%bash``/``%%sh``/``%%script bash``/``%%!`` cell (after any
``%%capture``, ``%%time``... whose body is a cell of its own). A Markdown cell's shell code blocks are read as a
Markdown document's. Raw cells, outputs and metadata are never read; the rest of the file is blanked, so offsets
are the file's own and a fix is an edit inside a JSON string.

Each line is decoded where it is written: a JSON escape is shorter decoded than written, and what it leaves over
is made up with blanks after the next unquoted blank, so every word starts where the file has it; an escaped quote
that opens a string is written ``$"`` (bash's translated string, read as ``"``), so what the string holds stays in
place too. Where a word's characters are not where the file has them (``shifted``), no fix is written. A line
ends at its ``\\n`` escape and at the end of its string, whatever the file's own line breaks (a notebook may be
written on one line). IPython puts Python values into a ``!`` line with ``{name}``; such a placeholder is read as
a variable (``$name``), a value shmlint does not know.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.markdown import code_blocks_of_lines
from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.embedded.shell_blocks import ShellBlocks, close_constructs, mark_end, mask_shell_blocks
from shmlint.parsers.jsonc import JsoncError, JString
from shmlint.parsers.programs import SHELLS
from shmlint.parsers.shell import BLOCK_END

#: what a JSON escape stands for (``\\uXXXX`` aside); control characters are blanks
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": " ", "f": " ", "n": " ", "r": " ", "t": "\t"}
#: a JSON escape inside a string's text (bounded: fixed width after the backslash)
_ESCAPE = LazyRegex(r"\\(?:u[0-9a-fA-F]{4}|.)", re.DOTALL)
_BLANKS = LazyRegex(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
#: what starts a statement IPython sends to the shell: ``!``/``!!``, an assignment from one, ``%sx``/``%system``
_SHELL_ESCAPE = LazyRegex(
    r"[ \t]*(?:[A-Za-z_][\w.]{0,80}(?:[ \t]*,[ \t]*[A-Za-z_][\w.]{0,80}){0,8}[ \t]*=[ \t]*)?"
    r"(?:!!?|%(?:sx|system)(?=[ \t]|$))"
)
#: cell magics whose body is run by a shell, and those whose body is a cell of its own (Python, or another magic)
_SHELL_MAGICS = frozenset({"%%bash", "%%sh", "%%!", "%%sx", "%%system", "%%shell"})  # %%shell: Colab's
_CELL_MAGICS = frozenset({"%%capture", "%%time", "%%timeit", "%%prun"})
#: ``%%script`` options that take a value (``--out name``): the program is the first other word
_SCRIPT_VALUES = frozenset({"--out", "--err", "--proc"})
#: ``{name}`` in a ``!`` line: IPython's placeholder for a Python value (``{{`` is a literal brace)
_PLACEHOLDER = LazyRegex(r"(?<![{$\\])\{(?=[A-Za-z_])")
_NAME_START = LazyRegex(r"[A-Za-z_]")
#: what a double-quoted string reads otherwise than a single-quoted one, beyond ``$``
_DOUBLE_QUOTED_SPECIALS = frozenset('"`\\')
#: a Markdown heading in a cell's line, after the JSON string's indentation
_HEADING = LazyRegex(r"^[ \t]*(?:#{1,6}(?:[ \t]|$)|(?:={3,}|-{3,})[ \t]*$)", re.MULTILINE)


class NotebookShell(NamedTuple):
    """A notebook's shell, masked with its offsets, with its Markdown cells' shell blocks and the ranges whose
    characters are not where the file writes them (a fix is not written there)."""

    text: str
    blocks: ShellBlocks
    shifted: tuple[tuple[int, int], ...]


class _Cell(NamedTuple):
    kind: str
    strings: tuple[JString, ...]
    start: int  # where its source is written (a list of strings, or one)
    end: int


class _Line(NamedTuple):
    """A line of a cell, decoded in place: ``text`` is as long as what the file writes from ``offset``."""

    offset: int
    text: str
    shifted: tuple[tuple[int, int], ...] = ()

    @property
    def end(self) -> int:
        """Where the file writes its end: a ``\\n`` escape's backslash or the string's closing quote."""
        return self.offset + len(self.text)


def notebook_shell(text: str) -> NotebookShell:
    """The notebook with everything but its shell blanked; raises ``JsoncError`` when the file is not JSON."""
    cells = _cells(text)
    broken = _broken(text, cells)
    markdown = [[_decoded(line)[0] for line in _lines(text, cell)] for cell in cells if cell.kind == "markdown"]
    documented = Mask(broken)
    for lines in markdown:
        for line in lines:
            documented.put(line.offset, line.text)
    pairs = ([(line.offset, line.text) for line in lines] for lines in markdown)
    blocks = (block for lines in pairs for block in code_blocks_of_lines(lines))
    masked, shell_blocks = mask_shell_blocks(documented.result(), blocks, _HEADING)
    mask = Mask(broken)
    mask.put(0, masked)
    shifted = [span for lines in markdown for line in lines for span in line.shifted]
    for cell in cells:
        if cell.kind == "code":
            shifted.extend(_keep_code_cell(mask, list(_lines(text, cell))))
    return NotebookShell(mask.result(), shell_blocks, tuple(shifted))


# -- reading the JSON ------------------------------------------------------------------------------------------------


def _cells(text: str) -> list[_Cell]:
    """Each cell's type and source strings: nbformat 4 (``cells``) and 3 (``worksheets``, a code cell's source
    under ``input``); a key written twice is read as ``json`` reads it, the last one. Every other value (outputs,
    metadata: often megabytes) is only checked to be JSON, by the standard library's decoder, which is fast and
    keeps nothing of it."""
    reader = _Reader(text)
    cells: list[_Cell] | None = None
    sheets: list[_Cell] = []
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


def _sheet(reader: _Reader) -> list[_Cell]:
    """An nbformat 3 worksheet's cells."""
    if not reader.at("{"):
        reader.skip()
        return []
    cells: list[_Cell] = []
    for key in reader.members():
        if key == "cells":
            cells = list(_read_cells(reader))
        else:
            reader.skip()
    return cells


def _read_cells(reader: _Reader) -> Iterator[_Cell]:
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
        yield _Cell(kind, strings, start, end)


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


# -- lines -------------------------------------------------------------------------------------------------------


def _lines(text: str, cell: _Cell) -> Iterator[_Line]:
    """A cell's lines as written: split at the ``\\n`` escapes, which are left out (with a ``\\r`` before one:
    Jupyter's editor reads a Windows line break as one), and at each string's end."""
    for string in cell.strings:
        start, end = string.start + 1, string.end - 1
        line_start, carriage_return = start, -1
        for escape in _ESCAPE.finditer(text, start, end):
            if escape.group() == "\\n":
                line_end = carriage_return if carriage_return == escape.start() - 2 else escape.start()
                yield _Line(line_start, text[line_start:line_end])
                line_start = escape.end()
            elif escape.group() == "\\r":
                carriage_return = escape.start()
        if line_start < end:
            yield _Line(line_start, text[line_start:end])


def _broken(text: str, cells: list[_Cell]) -> str:
    """The text with its lines broken where the shell sees a cell's lines end (at each ``\\n`` escape's backslash
    and each string's closing quote), not where the file breaks its lines between the strings."""
    chars = list(text)
    for cell in cells:
        for position in range(cell.start, cell.end):
            if chars[position] == "\n":
                chars[position] = " "
        for line in _lines(text, cell):
            chars[line.end] = "\n"
    return "".join(chars)


class Shell(NamedTuple):
    """A line decoded as the shell reads it, as long as it is written, and what it leaves open for the next."""

    text: str
    quote: str = ""  # the quote open at its end: "", "'", '"' or "$'"
    continued: bool = False  # it ends with a backslash: IPython goes on with the next line (bash: if unescaped)
    shifted: tuple[tuple[int, int], ...] = ()  # where its characters are not where written (from its start)


def as_shell(written: str, quote: str = "") -> Shell:
    """A line as written in a JSON string, decoded for the shell with the same length (see the module's note)."""
    out: list[str] = []
    owed = 0  # written characters not yet made up for
    shifted: list[tuple[int, int]] = []  # from an escape that leaves characters over to where they are made up
    escaped = False  # the last character was a backslash that escapes the next one
    after_dollar = False  # the last character was a ``$`` outside quotes
    position = 0
    while position < len(written):
        start, before = position, owed
        width, char = _unit(written, position)
        position += width
        dollar = not escaped and not quote and char == "$"  # before a quote: ``$'`` and ``$"`` strings
        if not escaped and char == '"' and quote in ("", '"'):
            spelled = not quote and width == 2 and not after_dollar  # ``$$"`` would read ``$$``
            out.append('$"' if spelled else '"')
            owed += 0 if spelled else width - 1
            quote = "" if quote else '"'
        else:
            out.append(char)
            owed += width - 1
            if escaped:
                escaped = False
            elif char == "\\" and quote != "'":
                escaped = True
            elif char == "'" and quote != '"':
                quote = "" if quote else ("$'" if after_dollar else "'")  # ``$'...'``: backslashes escape
            elif char in " \t" and not quote and owed:
                out.append(" " * owed)
                owed = 0
        after_dollar = dollar
        if not before and owed:
            shifted.append((start, len(written)))
        elif before and not owed:
            shifted[-1] = (shifted[-1][0], position)
    out.append(" " * owed)
    return Shell("".join(out), quote, written.endswith("\\\\"), tuple(shifted))


def _unit(written: str, position: int) -> tuple[int, str]:
    """The character at ``position`` decoded: (how many characters it is written with, the character). Control
    characters are blanks (a vertical tab is the mask's mark of a block's end), a lone surrogate a ``?``."""
    if written[position] != "\\" or position + 1 >= len(written):
        char = written[position]
        return 1, " " if char == BLOCK_END else char
    letter = written[position + 1]
    if letter == "u":
        code = int(written[position + 2 : position + 6], 16)
        char = "?" if 0xD800 <= code <= 0xDFFF else chr(code)
        return 6, char if char == "\t" or code >= 0x20 else " "
    return 2, _JSON_ESCAPES.get(letter, letter)


def _decoded(line: _Line, quote: str = "") -> tuple[_Line, Shell]:
    """The line decoded in place, with its shifted ranges in the file's offsets."""
    shell = as_shell(line.text, quote)
    shifted = tuple((line.offset + start, line.offset + end) for start, end in shell.shifted)
    return _Line(line.offset, shell.text, shifted), shell


# -- code cells --------------------------------------------------------------------------------------------------


def _keep_code_cell(mask: Mask, lines: list[_Line]) -> list[tuple[int, int]]:
    """A code cell's shell in the mask; each shell statement (or a shell cell) read on its own: what it leaves open
    (a quote, a ``$(``) does not run on into the next. Returns the ranges whose characters are shifted."""
    body, whole = _cell_body(lines)
    groups: list[list[tuple[int, _Line]]] = [[]] if whole else []  # (where the shell starts, the line decoded)
    last = Shell("")
    string = ""  # the triple quote a Python line left open
    for line in body:
        goes_on = whole or last.continued
        decoded, shell = _decoded(line, last.quote if goes_on else "")
        start = line.offset
        if not goes_on:
            escape = None if string else _SHELL_ESCAPE.match(shell.text)
            if escape is None:
                string, last = _python_string(_plain(line.text), string), Shell("")
                continue
            start += escape.end()
            groups.append([])
        groups[-1].append((start, decoded))
        last = shell
    for group in groups:
        _keep_group(mask, group, placeholders=not whole)
    return [span for group in groups for _, line in group for span in line.shifted]


def _keep_group(mask: Mask, group: list[tuple[int, _Line]], placeholders: bool) -> None:
    """One shell statement's lines (a shell cell's: all of them) in the mask, closed and marked at its end."""
    if not group:
        return
    for start, line in group:
        mask.put(start, line.text[start - line.offset :])
        if placeholders:
            for position, char in _python_values(line.text, start - line.offset):
                mask.put(line.offset + position, char)
    close_constructs(mask, group[0][0], group[-1][1].end)
    mark_end(mask, group[-1][1].end + 1)


def _python_values(line: str, start: int) -> Iterator[tuple[int, str]]:
    """Where IPython puts Python values into a ``!`` line, as (position, character to read there): ``{name}`` is
    read as ``$name``; a single-quoted string that holds one, or a ``$name`` (IPython expands both whatever the
    shell's quotes), is read as a double-quoted string, so the shell sees a value to come, not its letters."""
    quote, opened, expands, escaped = "", -1, False, False
    for position in range(start, len(line)):
        char = line[position]
        placeholder = char == "{" and _PLACEHOLDER.match(line, position) is not None
        if placeholder:
            yield position, "$"
        if escaped:
            escaped = False
        elif quote == "'":
            expands = expands or placeholder or (char == "$" and _NAME_START.match(line, position + 1) is not None)
            if char == "'":
                if expands and _DOUBLE_QUOTED_SPECIALS.isdisjoint(line[opened + 1 : position]):
                    yield opened, '"'
                    yield position, '"'
                quote = ""
        elif char == "\\":
            escaped = True
        elif char == "'" and not quote:
            quote, opened, expands = "'", position, False
        elif char == '"':
            quote = "" if quote else '"'


def _cell_body(lines: list[_Line]) -> tuple[list[_Line], bool]:
    """The lines of a code cell that IPython runs, and whether a shell runs them all: after the cell magics whose
    body is a cell of its own (``%%capture``, ``%%time``...), a shell magic takes the rest; any other magic
    (``%%writefile``, ``%%html``, ``%%script python``) runs no shell."""
    body = lines
    while True:
        first, words = next(((index, words) for index, words in _words(body) if words), (0, []))
        if not words:
            return [], False
        if not words[0].startswith("%%"):
            return body, False
        if words[0] in _SHELL_MAGICS or (words[0] == "%%script" and _script_runs_a_shell(words[1:])):
            return body[first + 1 :], True
        if words[0] not in _CELL_MAGICS:
            return [], False
        body = body[first + 1 :]


def _words(lines: list[_Line]) -> Iterator[tuple[int, list[str]]]:
    return ((index, as_shell(line.text).text.split()) for index, line in enumerate(lines))


def _script_runs_a_shell(words: list[str]) -> bool:
    """``%%script [options] program``: whether the program is a shell."""
    values = False
    for word in words:
        if values or word.startswith("-"):
            values = word in _SCRIPT_VALUES
            continue
        return word.rsplit("/", 1)[-1] in SHELLS
    return False


def _plain(written: str) -> str:
    """A line as written in a JSON string, decoded (a Python line, read as Python)."""
    decoded: str = _DECODER.decode(f'"{written}"')
    return decoded


def _python_string(line: str, open_quote: str) -> str:
    """The triple quote a Python line leaves open (``""`` when none), given the one open before it: a ``!`` line
    inside a string is not run. Strings on one line and comments are stepped over, as Python's tokenizer does."""
    position = 0
    while position < len(line):
        if open_quote:
            close = line.find(open_quote, position)
            if close == -1:
                return open_quote
            position, open_quote = close + 3, ""
            continue
        char = line[position]
        if char == "#":
            return ""
        if line.startswith(('"""', "'''"), position):
            open_quote, position = line[position : position + 3], position + 3
        elif char in "'\"":
            position = _string_end(line, position)
        else:
            position += 1
    return open_quote


def _string_end(line: str, start: int) -> int:
    """After a one-line string literal that opens at ``start`` (its backslash escapes stepped over)."""
    position = start + 1
    while position < len(line) and line[position] != line[start]:
        position += 2 if line[position] == "\\" else 1
    return position + 1
