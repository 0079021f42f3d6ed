"""PowerShell (``.ps1``, ``.psm1``) and cmd (``.bat``, ``.cmd``) scripts written as the POSIX shell the command reader knows,
character for character, so offsets (findings, fixes) are the file's own.

Windows users start the same ``docker run --gpus all ...`` lines from these scripts; only the syntax around the
words differs, and each difference maps to one POSIX character (or to blanks, where the text is not a command):

- the escape character (PowerShell's backtick, cmd's caret outside quotes) is a backslash: at a line's end it
  continues the command, elsewhere it escapes the next character;
- a backslash, which both shells keep as it is (``C:\\data``), is a slash, so it escapes nothing;
- a variable is a shell variable, its value known only when the script runs: cmd's ``%NAME%``, ``%NAME:~0,3%``,
  ``!NAME!``, ``%1``, ``%~dp0``, ``%%s``; PowerShell's ``$env:NAME`` and a splatted ``@args``;
- what only starts the command is blanked: PowerShell's call operator ``&`` and an assignment of the command's
  output (``$id = docker run ...``), cmd's ``@``, one-line ``if``/``for ... do``, ``call``, ``start`` and a
  block's own parentheses (``for /f ... in ('docker run ...') do``: the quoted command is read, as cmd runs it);
- what holds no command is blanked: PowerShell's ``<# ... #>`` comments and here-strings (data), cmd's ``REM`` and
  ``::`` lines;
- what POSIX would read as quoting or substitution and the Windows shell does not is made plain: in cmd an
  apostrophe, a backtick, a ``$`` and a double quote left open at a line's end (cmd closes it there); in
  PowerShell a line comment is blanked (a ``<#`` or an apostrophe in it opens nothing), a script block's braces end
  the commands in it (``;``), and ``*>`` redirects rather than globs.

A block comment or here-string never closed hides the rest of the file from PowerShell too: it is blanked, and said
(``Mapped.unclosed``). What stays approximate: a variable the script sets (``$opts = ...``, ``set OPTS=...``) is not
followed, so an option it holds stays unknown.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple


class Mapped(NamedTuple):
    """A script written as POSIX shell, and where a span that is not shell opens and is never closed (the rest of
    the file is blanked from there): (offset, what opened it)."""

    text: str
    unclosed: tuple[tuple[int, str], ...] = ()


def script_as_shell(kind: str, text: str) -> Mapped:
    """A PowerShell (``kind`` "powershell", ``FileKind.POWERSHELL``) or cmd ("batch") script written as POSIX shell."""
    return (powershell_as_shell if kind == "powershell" else batch_as_shell)(text)


# -- cmd ---------------------------------------------------------------------------------------------------------

#: cmd's variables: ``%NAME%`` with an optional ``:~0,3`` or ``:a=b``, ``!NAME!`` (delayed expansion), a ``for``
#: variable ``%%s``, the script's arguments ``%1``, ``%*``, ``%~dp0``
_CMD_VARIABLE = LazyRegex(
    r"%(?:[A-Za-z_][\w.-]{0,127}(?::[^%\r\n]{1,128})?%|%[A-Za-z]|~[a-zA-Z$:]{0,16}[0-9]|[0-9*])|![A-Za-z_][\w.-]{0,127}!"
)
#: a comment line (lower-cased): ``rem ...``, ``:: ...``
_CMD_COMMENT = LazyRegex(r"[ \t@]*(?:rem(?:[ \t].*)?|::.*)")
#: what only starts the command of a line: ``@``, ``if [/i] [not] <condition>``, ``for ... in (...) do``, ``call``,
#: ``start ["title"] [/options]``, a block's opening parenthesis; taken again while one is there
_OPERAND = r'(?:"[^"\r\n]{0,256}"|[^\s"]{1,256})'
_CMD_PREFIX = LazyRegex(
    r"[ \t]*(?:@|\(|\)[ \t]*else[ \t]*\(?|else[ \t]*\(?"
    r"|if[ \t]+(?:/i[ \t]+)?(?:not[ \t]+)?(?:(?:exist|defined|errorlevel|cmdextversion)[ \t]+"
    + _OPERAND
    + r"|"
    + _OPERAND
    + r"[ \t]*(?:==|[ \t]equ[ \t]|[ \t]neq[ \t]|[ \t]lss[ \t]|[ \t]leq[ \t]|[ \t]gtr[ \t]|[ \t]geq[ \t])"
    r"[ \t]*" + _OPERAND + r")[ \t]+\(?"
    r"|for[ \t]+(?:/[a-z][ \t]+(?:" + _OPERAND + r"[ \t]+)?)?%%?[a-z][ \t]+in[ \t]+\([^)\r\n]{0,256}\)[ \t]+do[ \t]+\(?"
    r"|call[ \t]+|start(?:[ \t]+(?:/(?:d|node|affinity)[ \t]*"
    + _OPERAND
    + r"|/[a-z]+|\"[^\"\r\n]{0,256}\")){0,16}[ \t]+)",
    re.IGNORECASE,
)
#: ``for /f ... in ('command') do``: cmd runs the command in the quotes (``CID=$(docker run ...)`` in a shell)
_CMD_FOR_COMMAND = LazyRegex(
    r"[ \t]*for[ \t]+/f[ \t]+(?:" + _OPERAND + r"[ \t]+)?%%?[a-z][ \t]+in[ \t]+\('", re.IGNORECASE
)
_CMD_FOR_DO = LazyRegex(r"'\)[ \t]+do[ \t]+\(?", re.IGNORECASE)
#: a line that only closes a block: ``)``
_CMD_CLOSE = LazyRegex(r"[ \t]*\)[ \t]*")


def batch_as_shell(text: str) -> Mapped:
    """A cmd script written as POSIX shell (the module's docstring)."""
    chars = list(text)
    offset = 0
    for line in text.split("\n"):  # cmd breaks lines only there (a form feed or U+2028 is text)
        body = line[:-1] if line.endswith("\r") else line
        if _CMD_COMMENT.fullmatch(body.lower()) or _CMD_CLOSE.fullmatch(body):
            _blank(chars, offset, offset + len(body))
        else:
            _batch_line(chars, body, offset)
        offset += len(line) + 1
    return Mapped("".join(chars))


def _batch_line(chars: list[str], body: str, offset: int) -> None:
    start = 0
    if (loop := _CMD_FOR_COMMAND.match(body)) is not None and (do := _CMD_FOR_DO.search(body, loop.end())):
        _blank(chars, offset, offset + loop.end())  # the command in the quotes is read, then what ``do`` runs
        _blank(chars, offset + do.start(), offset + do.end())
        chars[offset + do.start()] = ";"
        _batch_text(chars, body[: do.start()], offset, loop.end())
        start = do.end()
    while (prefix := _CMD_PREFIX.match(body, start)) is not None and prefix.end() > start:
        _blank(chars, offset + start, offset + prefix.end())
        start = prefix.end()
    _batch_text(chars, body, offset, start)


def _batch_text(chars: list[str], body: str, offset: int, start: int) -> None:
    """A line's command text from ``start``: its variables, quotes, escapes and plain characters."""
    variables = {match.start(): match.end() for match in _CMD_VARIABLE.finditer(body, start)}
    quote = -1  # where the open double quote is, -1 outside quotes
    at = start
    while at < len(body):
        char = body[at]
        if at in variables:
            _variable(chars, body, offset, at, variables[at])
            at = variables[at]
            continue
        if char == '"':
            quote = at if quote == -1 else -1
        elif char == "^" and quote == -1:
            chars[offset + at] = "\\"
            at += 2  # the escaped character is taken as it is
            continue
        elif char == "\\":
            chars[offset + at] = "/"
        elif char in "`$" or (char == "'" and quote == -1):  # plain characters in cmd
            chars[offset + at] = "_"
        at += 1
    if quote != -1:  # cmd ends a quote at the line's end; the shell would go on reading the next lines into it
        chars[offset + quote] = " "


def _variable(chars: list[str], body: str, offset: int, start: int, end: int) -> None:
    """``$`` then the name, every other character of the reference ``_``: one shell variable, as long (``%1`` and
    ``%*``, the script's arguments, are the shell's ``$1`` and ``$*``)."""
    chars[offset + start] = "$"
    inner = body[start + 1 : end]
    if inner == "*" or inner.isdigit():
        return
    for at, char in enumerate(inner, offset + start + 1):
        if not (char.isascii() and (char.isalnum() or char == "_")):
            chars[at] = "_"


# -- PowerShell --------------------------------------------------------------------------------------------------

#: what only starts a command (at a line's start or after ``;``): the call operator ``&``, an assignment of the
#: command's output (``$id =``, ``[string]$id =``, ``${id} =``, ``$ids[0] =``)
_PS_PREFIX = LazyRegex(
    r"(?:^|(?<=;))[ \t]*(?:&[ \t]+|(?:\[[\w.]{1,64}\][ \t]*)?(?:\$\{[^}\r\n]{1,128}\}|\$[\w:]{1,128})"
    r"(?:\[[^\]\r\n]{0,64}\])?[ \t]*=[ \t]*(?:&[ \t]+)?)"
)
#: a scope before a variable's name: ``$env:IMAGE`` is read as ``$____IMAGE`` (the name keeps its own words)
_PS_SCOPE = LazyRegex(r"\$\{?((?:env|global|script|local|using|private):)", re.IGNORECASE)
#: a splatted variable (``@args``) at the start of a word
_PS_SPLAT = LazyRegex(r"(?:(?<=\s)|^)@(?=[A-Za-z_])", re.MULTILINE)
#: PowerShell's redirection of every stream (``*> log``): its ``*`` is no word
_PS_ALL_STREAMS = LazyRegex(r"(?:(?<=\s)|^)\*(?=>)", re.MULTILINE)


def powershell_as_shell(text: str) -> Mapped:
    """A PowerShell script written as POSIX shell (the module's docstring)."""
    chars = list(text)
    unclosed = _powershell_spans(text, chars)
    mapped = "".join(chars)
    for match in _PS_SCOPE.finditer(mapped):
        chars[match.start(1) : match.end(1)] = "_" * len(match.group(1))
    for match in _PS_SPLAT.finditer(mapped):
        chars[match.start()] = "$"
    for match in _PS_ALL_STREAMS.finditer(mapped):
        chars[match.start()] = " "
    offset = 0
    for line in mapped.split("\n"):
        last = len(line.rstrip())  # a command follows a prefix when something but blanks does
        for match in _PS_PREFIX.finditer(line):
            if match.end() < last:
                _blank(chars, offset + match.start(), offset + match.end())
        offset += len(line) + 1
    return Mapped("".join(chars), unclosed)


def _powershell_spans(text: str, chars: list[str]) -> tuple[tuple[int, str], ...]:
    """One pass over the text: comments and strings are skipped as PowerShell reads them (a ``<#`` in a string or a
    line comment opens nothing), block comments and here-strings blanked, the escape character and backslashes
    mapped. Returns the spans opened and never closed."""
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        if char == "#" and (at == 0 or text[at - 1] in " \t\r\n;(){}"):  # a line comment: no shell in it
            end = _line_end(text, at)
            _blank(chars, at, end)
            at = end
        elif text.startswith("${", at):  # a variable's braces (``${env:HOME}``) are the variable's, kept
            end = text.find("}", at + 2)
            at = size if end == -1 else end + 1
        elif char in "{}":  # a script block's braces (``if ($x) { docker run ... }``) end the commands in it
            chars[at] = ";"
            at += 1
        elif text.startswith("<#", at):
            end = text.find("#>", at + 2)
            _blank(chars, at, size if end == -1 else end + 2)
            if end == -1:
                return ((at, "a block comment (<#)"),)
            at = end + 2
        elif char == "@" and text[at + 1 : at + 2] in ('"', "'") and _opens_here_string(text, at + 2):
            quote = text[at + 1]
            end = _here_string_end(text, at, quote)
            _blank(chars, at, size if end == -1 else end)
            if end == -1:
                return ((at, f"a here-string (@{quote})"),)
            at = end
        elif char == "'":  # everything in it is as written; its backslashes are mapped
            end = text.find("'", at + 1)
            stop = size if end == -1 else end + 1
            for inside in range(at + 1, stop):
                if text[inside] == "\\":
                    chars[inside] = "/"
            at = stop
        elif char == '"':
            at = _double_quoted(text, chars, at)
        else:
            _map_char(text, chars, at)
            at += 1
    return ()


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end == -1 else end


#: what may follow a here-string's opening quote on its line: blanks only
_HERE_STRING_OPENS = LazyRegex(r"[ \t\r]*(?:\n|\Z)")


def _opens_here_string(text: str, at: int) -> bool:
    """A here-string's opening quote is the last thing on its line (asked at each ``@"``: only the blanks after it
    are read, so a line of many costs no more than its length)."""
    return _HERE_STRING_OPENS.match(text, at) is not None


def _here_string_end(text: str, start: int, quote: str) -> int:
    """The end of a here-string that opens at ``start``: after its closing quote and ``@`` at a line's start."""
    at = _line_end(text, start)
    while at < len(text):
        line_start = at + 1
        if text.startswith(quote + "@", line_start):
            return line_start + 2
        at = _line_end(text, line_start)
    return -1


def _double_quoted(text: str, chars: list[str], start: int) -> int:
    """Past a double-quoted string (the backtick escapes, ``""`` is a quote), its escapes and backslashes mapped."""
    at = start + 1
    while at < len(text):
        char = text[at]
        if char == "`":
            chars[at] = "\\"
            at += 2
            continue
        if char == "\\":
            chars[at] = "/"
        elif char == '"':
            if text[at + 1 : at + 2] == '"':
                at += 2
                continue
            return at + 1
        at += 1
    return len(text)


def _map_char(text: str, chars: list[str], at: int) -> None:
    if text[at] == "`":
        chars[at] = "\\"
    elif text[at] == "\\":
        chars[at] = "/"


def _blank(chars: list[str], start: int, end: int) -> None:
    """Spaces where the text is not shell, its line breaks kept (so lines are where the file has them)."""
    for at in range(start, end):
        if chars[at] not in "\r\n":
            chars[at] = " "
