"""A line of a JSON string decoded for the shell where it is written, as long as it is written: a JSON escape is
shorter decoded than written, and what it leaves over is made up with blanks after the next unquoted blank, so
every word starts where the file has it; an escaped quote that opens a string is written ``$"`` (bash's translated
string, read as ``"``), so what the string holds stays in place too. Where characters are not where the file has
them (``shifted``), an edit would land beside them."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple
from shmlint.parsers.shell import BLOCK_END

#: what a JSON escape stands for (``\\uXXXX`` aside); control characters are blanks
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": " ", "f": " ", "n": " ", "r": " ", "t": "\t"}


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
