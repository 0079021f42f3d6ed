"""The shell of a Jupyter notebook (``.ipynb``), kept where the file writes it.

A notebook is JSON whose cells hold their source as strings (one line each, or one string for the cell). What a
code cell runs through the system shell is read as shell, as IPython reads it: a statement that starts with ``!``
or ``!!``, an assignment from one (``x = !cmd``) or a ``%sx``/``%system`` line magic, with the lines its trailing
backslashes continue; and the whole body of a ``%%bash``/``%%sh``/``%%script bash``/``%%!`` cell (after any
``%%capture``, ``%%time``... whose body is a cell of its own). A Markdown cell's shell code blocks are read as a
Markdown document's. Raw cells, outputs and metadata are never read; the rest of the file is blanked, so offsets
are the file's own and a fix is an edit inside a JSON string.

Each line is decoded where it is written (``shmlint.parsers.embedded.json_shell``); where a word's characters are
not where the file has them (``shifted``), no fix is written. A line ends at its ``\\n`` escape and at the end of
its string, whatever the file's own line breaks (a notebook may be written on one line). IPython puts Python
values into a ``!`` line with ``{name}``; such a placeholder is read as a variable (``$name``), a value shmlint
does not know.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.json_shell import Shell, as_shell
from shmlint.parsers.embedded.markdown import code_blocks_of_lines
from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.embedded.notebook_cells import Cell, Line, cell_lines, read_cells
from shmlint.parsers.embedded.shell_blocks import ShellBlocks, close_constructs, mark_end, mask_shell_blocks
from shmlint.parsers.programs import SHELLS

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


def notebook_shell(text: str) -> NotebookShell:
    """The notebook with everything but its shell blanked; raises ``JsoncError`` when the file is not JSON."""
    cells = [(cell, list(cell_lines(text, cell))) for cell in read_cells(text)]
    broken = _broken(text, cells)
    markdown = [[_decoded(line)[0] for line in lines] for cell, lines in cells if cell.kind == "markdown"]
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
    for cell, lines in cells:
        if cell.kind == "code":
            shifted.extend(_keep_code_cell(mask, lines))
    return NotebookShell(mask.result(), shell_blocks, tuple(shifted))


def notebook_python(text: str) -> str:
    """The Python a notebook's kernel runs: its code cells' lines, decoded, each on the line of the file that writes
    it (so a fact's line is the notebook's own), with what IPython gives the shell or its magics left out (a shell
    cell, a ``!`` statement and the lines it continues, a ``%`` magic); raises ``JsoncError`` for a file that is
    not JSON. Where a file writes two lines on one of its own (a notebook on one line), the later one follows on
    the next line: its place in the file is then not kept."""
    breaks = [index for index, char in enumerate(text) if char == "\n"]
    out: list[str] = []
    for cell in read_cells(text):
        if cell.kind != "code":
            continue
        body, shell = _cell_body(list(cell_lines(text, cell)))
        continued = False
        for line in [] if shell else body:
            plain = _plain(line.text)
            if continued or _SHELL_ESCAPE.match(plain) or plain.lstrip().startswith("%"):
                continued = plain.rstrip().endswith("\\")
                continue
            at = bisect.bisect_left(breaks, line.offset)
            out.extend([""] * max(0, at - len(out)))
            out.append(plain)
    return "\n".join(out) + "\n"


def _broken(text: str, cells: list[tuple[Cell, list[Line]]]) -> str:
    """The text with its lines broken where the shell sees a cell's lines end (at each ``\\n`` escape's backslash
    and each string's closing quote), not where the file breaks its lines between the strings."""
    chars = list(text)
    for cell, lines in cells:
        for position in range(cell.start, cell.end):
            if chars[position] == "\n":
                chars[position] = " "
        for line in lines:
            chars[line.end] = "\n"
    return "".join(chars)


def _decoded(line: Line, quote: str = "") -> tuple[Line, Shell]:
    """The line decoded in place, with its shifted ranges in the file's offsets."""
    shell = as_shell(line.text, quote)
    shifted = tuple((line.offset + start, line.offset + end) for start, end in shell.shifted)
    return Line(line.offset, shell.text, shifted), shell


# -- code cells --------------------------------------------------------------------------------------------------


def _keep_code_cell(mask: Mask, lines: list[Line]) -> list[tuple[int, int]]:
    """A code cell's shell in the mask; each shell statement (or a shell cell) read on its own: what it leaves open
    (a quote, a ``$(``) does not run on into the next. Returns the ranges whose characters are shifted."""
    body, whole = _cell_body(lines)
    groups: list[list[tuple[int, Line]]] = [[]] if whole else []  # (where the shell starts, the line decoded)
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


def _keep_group(mask: Mask, group: list[tuple[int, Line]], placeholders: bool) -> None:
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


def _cell_body(lines: list[Line]) -> tuple[list[Line], bool]:
    """The lines of a code cell that IPython runs, and whether a shell runs them all: after the cell magics whose
    body is a cell of its own (``%%capture``, ``%%time``...), a shell magic takes the rest; any other magic
    (``%%writefile``, ``%%html``, ``%%script python``) runs no shell."""
    for index, line in enumerate(lines):
        words = as_shell(line.text).text.split()
        if not words:
            continue
        if not words[0].startswith("%%"):
            return lines[index:], False
        if words[0] in _SHELL_MAGICS or (words[0] == "%%script" and _script_runs_a_shell(words[1:])):
            return lines[index + 1 :], True
        if words[0] not in _CELL_MAGICS:
            return [], False
    return [], False


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
    decoded: str = json.loads(f'"{written}"')
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
