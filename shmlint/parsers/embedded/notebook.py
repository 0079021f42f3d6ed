"""The shell of a Jupyter notebook (``.ipynb``), kept where the file writes it.

A notebook is JSON whose cells hold their source as strings, one line each (or one string for the cell). What a
cell runs through the system shell is read as shell: a code cell's ``!cmd`` and ``!!cmd`` lines, ``x = !cmd``
assignments and ``%sx``/``%system`` line magics, with the lines a trailing backslash continues (IPython joins them),
and the whole body of a ``%%bash``/``%%sh``/``%%script bash`` cell; a Markdown cell's shell code blocks are read as
a Markdown document's. Everything else is blanked, so offsets are the file's own and a fix is an edit inside a
JSON string.

Each line is decoded where it is written: a JSON escape is shorter decoded than written, and what it leaves over
is made up with blanks between the shell's words (after the next unquoted blank), so every word starts where the
file has it; an escaped quote that opens a string is written ``$"`` (bash's translated string, read as ``"``), so
what the string holds is where the file has it too. IPython puts Python values into a ``!`` line with ``{name}``;
such a placeholder is read as a variable (``$name``), a value shmlint does not know.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.markdown import code_blocks_of_lines
from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.embedded.shell_blocks import ShellBlocks, close_constructs, mark_end, mask_shell_blocks
from shmlint.parsers.jsonc import JArray, JNode, JObject, JString, parse

#: what a JSON escape stands for (``\\uXXXX`` aside), control characters as blanks
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": " ", "f": " ", "n": " ", "r": " ", "t": "\t"}
#: a JSON escape inside a string's text (bounded: fixed width after the backslash)
_ESCAPE = LazyRegex(r"\\(?:u[0-9a-fA-F]{4}|.)", re.DOTALL)
#: what starts a line IPython sends to the shell: ``!``/``!!``, an assignment from one, ``%sx``/``%system``
_SHELL_ESCAPE = LazyRegex(
    r"[ \t]*(?:[A-Za-z_][\w.]{0,80}(?:[ \t]*,[ \t]*[A-Za-z_][\w.]{0,80}){0,8}[ \t]*=[ \t]*)?"
    r"(?:!!?|%(?:sx|system)(?=[ \t]|$))"
)
#: a cell magic whose body is shell, and one whose body is Python that may hold ``!`` lines
_SHELL_CELL = LazyRegex(r"%%(?:bash|sh|shell|system|sx|script[ \t]+(?:\S*/)?(?:ba|z|da)?sh)(?:[ \t]|$)")
_PYTHON_CELL = LazyRegex(r"%%(?:capture|time|timeit|prun)(?:[ \t]|$)")
#: ``{name}`` in a ``!`` line: IPython's placeholder for a Python value (``{{`` is a literal brace)
_PLACEHOLDER = LazyRegex(r"(?<![{$\\])\{(?=[A-Za-z_])")
#: a Markdown heading in a cell's line, after the JSON string's indentation
_HEADING = LazyRegex(r"^[ \t]*(?:#{1,6}(?:[ \t]|$)|(?:={3,}|-{3,})[ \t]*$)", re.MULTILINE)


def notebook_shell(text: str) -> tuple[str, ShellBlocks]:
    """The notebook with everything but its shell blanked, and its Markdown cells' shell code blocks (typed
    sessions are read in those only); raises ``JsoncError`` when the file is not JSON."""
    markdown: list[list[tuple[int, str]]] = []
    code: list[list[tuple[int, str]]] = []
    for kind, lines in _cells(text, parse(text)):
        (markdown if kind == "markdown" else code).append(lines)
    documented = Mask(text)
    decoded = [[(offset, as_shell(line).text) for offset, line in lines] for lines in markdown]
    for lines in decoded:
        for offset, line in lines:
            documented.put(offset, line)
    blocks = (block for lines in decoded for block in code_blocks_of_lines(lines))
    masked, shell_blocks = mask_shell_blocks(documented.result(), blocks, _HEADING)
    mask = Mask(text)
    mask.put(0, masked)
    for lines in code:
        _keep_code_cell(mask, lines)
    return mask.result(), shell_blocks


def _cells(text: str, root: JNode) -> Iterator[tuple[str, list[tuple[int, str]]]]:
    """Each cell's type and source lines (offset, text as written without its ``\\n`` escape); nbformat 4
    (``cells``) and 3 (``worksheets``, a code cell's source under ``input``)."""
    if not isinstance(root, JObject):
        return
    cells = root.get("cells")
    groups = [cells] if cells is not None else _items(root.get("worksheets"))
    for group in groups:
        for cell in _items(group.get("cells") if isinstance(group, JObject) else group):
            if not isinstance(cell, JObject):
                continue
            kind = cell.get("cell_type")
            source = cell.get("source") or cell.get("input")
            strings = [source] if isinstance(source, JString) else _items(source)
            lines = [line for string in strings if isinstance(string, JString) for line in _lines(text, string)]
            yield (kind.value if isinstance(kind, JString) else ""), lines


def _items(node: JNode | None) -> tuple[JNode, ...]:
    return node.items if isinstance(node, JArray) else ()


def _lines(text: str, string: JString) -> Iterator[tuple[int, str]]:
    """A JSON string's lines as written: split at its ``\\n`` escapes, which are left out."""
    start, end = string.start + 1, string.end - 1
    line_start = start
    for escape in _ESCAPE.finditer(text, start, end):
        if escape.group() == "\\n":
            yield line_start, text[line_start : escape.start()]
            line_start = escape.end()
    if line_start < end:
        yield line_start, text[line_start:end]


class Shell(NamedTuple):
    """A line decoded as the shell reads it, as long as it is written, and what it leaves open for the next."""

    text: str
    quote: str = ""  # the quote open at its end: "", "'" or '"'
    continued: bool = False  # it ends with an unescaped backslash


def as_shell(written: str, quote: str = "") -> Shell:
    """A line as written in a JSON string, decoded for the shell with the same length (see the module's note)."""
    out: list[str] = []
    owed = 0  # written characters not yet made up for
    escaped = False  # the last character was a backslash that escapes the next one
    position = 0
    while position < len(written):
        width, char = _unit(written, position)
        position += width
        if not escaped and char == '"' and quote != "'":
            spelled = not quote and width == 2 and (not out or out[-1] != "$")  # ``$$"`` would read ``$$``
            out.append('$"' if spelled else '"')
            owed += 0 if spelled else width - 1
            quote = "" if quote else '"'
            continue
        out.append(char)
        owed += width - 1
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif char == "'" and quote != '"':
            quote = "" if quote else "'"
        elif char in " \t" and not quote and owed:
            out.append(" " * owed)
            owed = 0
    out.append(" " * owed)
    return Shell("".join(out), quote, escaped)


def _unit(written: str, position: int) -> tuple[int, str]:
    """The character at ``position`` decoded: (how many characters it is written with, the character). Control
    characters are blanks (a vertical tab is the mask's mark of a block's end), a lone surrogate a ``?``."""
    if written[position] != "\\" or position + 1 >= len(written):
        return 1, written[position]
    letter = written[position + 1]
    if letter == "u":
        code = int(written[position + 2 : position + 6], 16)
        char = "?" if 0xD800 <= code <= 0xDFFF else chr(code)
        return 6, char if char == "\t" or code >= 0x20 else " "
    return 2, _JSON_ESCAPES.get(letter, letter)


def _keep_code_cell(mask: Mask, lines: list[tuple[int, str]]) -> None:
    """A code cell's shell in the mask, read on its own: what it leaves open (a quote, a ``$(``) does not run on
    into later cells."""
    first = next((index for index, (_, line) in enumerate(lines) if line.strip()), None)
    if first is None:
        return
    magic = as_shell(lines[first][1]).text.lstrip()
    whole = magic.startswith("%%") and _SHELL_CELL.match(magic) is not None
    if magic.startswith("%%") and not whole and _PYTHON_CELL.match(magic) is None:
        return  # %%writefile, %%html, %%script python...: not the shell
    kept: list[tuple[int, int]] = []
    last = Shell("")  # the last line kept, decoded: what it leaves open goes on into the next
    for offset, written in lines[first + 1 :] if magic.startswith("%%") else lines:
        line = as_shell(written, last.quote if whole or last.continued else "")
        start = offset
        if not whole and not last.continued:
            escape = _SHELL_ESCAPE.match(line.text)
            if escape is None:
                continue
            start = offset + escape.end()
        mask.put(start, line.text[start - offset :])
        if not whole:
            for match in _PLACEHOLDER.finditer(line.text, start - offset):
                mask.put(offset + match.start(), "$")
        last = line
        kept.append((start, offset + len(written)))
    if kept:
        close_constructs(mask, kept[0][0], kept[-1][1])
        mark_end(mask, kept[-1][1])
