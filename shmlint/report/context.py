"""Source context under a finding (``--show-source``): the lines it points at with a ``^^^`` marker under its span,
and the fix's diff beneath, as ruff's full output shows them.

What a terminal shows is not what the text holds: a tab moves to the next tab stop, East Asian wide characters
take two columns, combining marks none, and a control character is shown as its escape (``shmlint.visible``).
The marker is laid out in the same display columns, so it stays under the span whatever the line contains.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from shmlint.visible import visible

if TYPE_CHECKING:
    from shmlint.source import SourceText, Span

TAB_STOP = 4
#: a span over more lines than this shows its first lines and says how many more
MAX_LINES = 6


def _cell(char: str, column: int) -> str:
    """How one character is shown at a display column."""
    if char == "\t":
        return " " * (TAB_STOP - column % TAB_STOP)
    return visible(char)


def _width(shown: str) -> int:
    if len(shown) != 1:  # an escape or spaces of a tab
        return len(shown)
    if unicodedata.combining(shown) or unicodedata.category(shown) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(shown) in ("W", "F") else 1


def layout(line: str) -> tuple[str, list[int]]:
    """The line as shown, and the display column where each character (and the end of the line) starts."""
    shown, columns, column = [], [], 0
    for char in line:
        columns.append(column)
        cell = _cell(char, column)
        shown.append(cell)
        column += _width(cell)
    columns.append(column)
    return "".join(shown), columns


def _marked_lines(source: SourceText, span: Span) -> list[tuple[int, int, int]]:
    """(line, first character, end character) to underline on each line of the span. A span that ends at the start
    of a line (a whole YAML mapping) ends on the line before; an empty span marks one character."""
    start_line, end_line = span.line, span.end_line
    end_column = span.end_column
    if end_line > start_line and end_column == 1:
        end_line -= 1
        end_column = len(source.line_text(end_line)) + 1
    marks = []
    for number in range(start_line, min(end_line, len(source.line_starts)) + 1):
        text = source.line_text(number)
        first = span.column - 1 if number == start_line else len(text) - len(text.lstrip(" \t"))
        last = end_column - 1 if number == end_line else len(text)
        marks.append((number, min(first, len(text)), min(max(last, first + 1), len(text) + 1)))
    return marks


def snippet(source: SourceText, span: Span, colour: Callable[[str], str] | None = None) -> list[str]:
    """The span's lines with line numbers and ``^`` markers (``colour`` styles the markers)."""
    marks = _marked_lines(source, span)
    shown_marks = marks[:MAX_LINES]
    gutter = len(str(shown_marks[-1][0])) if shown_marks else 1
    bar = _dim(" " * gutter + " |", colour)
    lines = [bar]
    for number, first, last in shown_marks:
        shown, columns = layout(source.line_text(number))
        lines.append(_dim(f"{number:>{gutter}} |", colour) + (f" {shown}" if shown else ""))
        start = columns[first]
        width = max(columns[min(last, len(columns) - 1)] - start, 1)
        marker = "^" * width
        lines.append(f"{bar} {' ' * start}{colour(marker) if colour else marker}")
    if len(marks) > MAX_LINES:
        lines.append(f"{bar} ... {len(marks) - MAX_LINES} more line(s)")
    return lines


def diff_lines(diff: str, colour: bool) -> list[str]:
    """A unified diff's hunks (its ``---``/``+++`` header left out: the finding names the file) for the terminal."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            continue
        text = line[:1] + layout(line[1:])[0]  # the +/-/space prefix, then the line as the snippet shows it
        if colour:
            text = click.style(text, fg="green" if line.startswith("+") else "red" if line.startswith("-") else None)
        lines.append(f"    {text}")
    return lines


def _dim(text: str, colour: Callable[[str], str] | None) -> str:
    return click.style(text, fg="blue", bold=True) if colour else text
