"""The mask every embedded reader writes into: a blank copy of a file's text (same length, same line breaks) into
which the ranges that are shell are copied back, so the tokenizer's offsets are the file's own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from shmlint.lazy_regex import LazyRegex


def offset_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its line break) for every line."""
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


class Mask:
    """A blank copy of a text into which chosen ranges are copied back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.chars = ["\n" if c == "\n" else " " for c in text]

    def keep(self, start: int, end: int) -> None:
        self.chars[start:end] = self.text[start:end]

    def put(self, start: int, replacement: str) -> None:
        self.chars[start : start + len(replacement)] = replacement

    def kept(self, start: int, end: int) -> str:
        """The range as masked so far."""
        return "".join(self.chars[start:end])

    def result(self) -> str:
        return "".join(self.chars)


#: a variable's name as a template writes it (``my-image`` is the shell's ``my_image``)
_NAME = LazyRegex(r"[ \t]*([A-Za-z_][\w-]{0,63})[ \t]*")
#: what an expression whose value the template computes stands for: a name nothing assigns
UNKNOWN = "_template"


def shell_reference(expression: str, length: int) -> str:
    """A template's expression (a justfile's ``{{ image }}``, CircleCI's ``<< parameters.image >>``) as the shell's
    ``${name}`` for a variable's name (``${_template}`` for a value the template computes), made
    ``length`` characters long with what the shell adds nothing for: ``${name-}`` and empty ``""`` strings."""
    named = _NAME.fullmatch(expression)
    name = named.group(1).replace("-", "_") if named else UNKNOWN
    pad = length - len(name) - 3
    if pad < 0:
        return "${" + name[: length - 3] + "}"
    reference = "${" + name + ("-}" if pad % 2 else "}")
    return reference + '""' * (pad // 2)


def indentation(line: str) -> int:
    """The column a line's text starts at, a tab going on to the next multiple of 4."""
    column = 0
    for c in line:
        if c == " ":
            column += 1
        elif c == "\t":
            column += 4 - column % 4
        else:
            break
    return column


def mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Only these spans of the text: docker options held in another language's strings (a Jenkinsfile's
    ``args``) read as shell words with the file's offsets."""
    mask = Mask(text)
    for start, end in spans:
        mask.keep(start, end)
    return mask.result()
