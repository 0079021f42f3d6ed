"""PowerShell (``.ps1``) and cmd (``.bat``, ``.cmd``) scripts written as the POSIX shell the command reader knows,
character for character, so offsets (findings, fixes) are the file's own.

Windows users start the same ``docker run --gpus all ...`` lines from these scripts; only the syntax around the
words differs, and each difference maps to one POSIX character:

- the escape character (PowerShell's backtick, cmd's caret) is a backslash: at a line's end it continues the
  command, elsewhere it escapes the next character (PowerShell's `` `" `` is ``\\"``);
- a backslash, which both shells keep as it is (``C:\\data``), is a slash, so it escapes nothing;
- cmd's ``%NAME%`` is ``$NAME_`` and ``%1`` is ``$1``: a value known only when the script runs;
- what is not a command is masked: PowerShell's ``<# ... #>`` comments and here-strings (``@" ... "@``, data),
  the call operator ``&`` before a program, cmd's ``REM`` and ``::`` lines and the ``@`` that hides an echo.

What stays approximate (a command's words still read right): PowerShell's ``$env:NAME`` and cmd's ``set
NAME=value`` are not read as assignments, so an option a variable holds stays unknown.
"""

from __future__ import annotations

from shmlint.lazy_regex import LazyRegex

#: cmd's variables: ``%NAME%`` (a name of letters, digits, ``_``, ``-``, ``.``) and the script's arguments ``%1``
_CMD_VARIABLE = LazyRegex(r"%([A-Za-z_][\w.-]{0,127})%|%(?=[0-9*])")
#: lines of cmd that are comments (lower-cased): ``rem ...``, ``:: ...``
_CMD_COMMENT = LazyRegex(r"[ \t@]*(?:rem(?:[ \t].*)?|::.*)")
#: PowerShell's call operator before a program: ``& docker run``, ``& "C:\...\docker.exe" run``
_PS_CALL = LazyRegex(r"(?m)^([ \t]*)&(?=[ \t])")
#: what opens a span of PowerShell that holds no command, and what closes it: a block comment, a here-string
_PS_SPANS = (("<#", "#>"), ('@"\n', '\n"@'), ("@'\n", "\n'@"), ('@"\r\n', '\n"@'), ("@'\r\n", "\n'@"))


def powershell_as_shell(text: str) -> str:
    """The text with PowerShell's escapes, comments, here-strings and call operators written as POSIX shell."""
    chars = list(text.replace("\\", "/").replace("`", "\\"))
    for start, end in _spans(text):
        _blank(chars, start, end)
    for match in _PS_CALL.finditer(text):
        chars[match.end(1)] = " "
    return "".join(chars)


def _spans(text: str) -> list[tuple[int, int]]:
    """Block comments and here-strings, in one pass (``str.find``: linear, whatever the text): the first opening
    from ``at`` wins, and an opening never closed runs to the end of the text."""
    spans: list[tuple[int, int]] = []
    at = 0
    following = [text.find(opening) for opening, _ in _PS_SPANS]  # each opening's next place: found again only
    while True:  # when passed, so the text is searched a bounded number of times for each
        following = [
            text.find(opening, at) if 0 <= place < at else place
            for place, (opening, _) in zip(following, _PS_SPANS, strict=True)
        ]
        found = [(place, _PS_SPANS[index][1]) for index, place in enumerate(following) if place != -1]
        if not found:
            return spans
        start, close = min(found)
        end = text.find(close, start + 2)
        end = len(text) if end == -1 else end + len(close)
        spans.append((start, end))
        at = end


def batch_as_shell(text: str) -> str:
    """The text with cmd's escapes, variables, comments and ``@`` written as POSIX shell."""
    chars = list(text.replace("\\", "/").replace("^", "\\"))
    for match in _CMD_VARIABLE.finditer(text):
        chars[match.start()] = "$"
        if match.group(1) is not None:
            chars[match.end() - 1] = "_"
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if _CMD_COMMENT.fullmatch(body.lower()):
            _blank(chars, offset, offset + len(body))
        else:
            stripped = len(body) - len(body.lstrip(" \t"))
            if body[stripped : stripped + 1] == "@":
                chars[offset + stripped] = " "
        offset += len(line)
    return "".join(chars)


def _blank(chars: list[str], start: int, end: int) -> None:
    """Spaces where the text is not shell, its line breaks kept (so lines are where the file has them)."""
    for at in range(start, end):
        if chars[at] not in "\r\n":
            chars[at] = " "
