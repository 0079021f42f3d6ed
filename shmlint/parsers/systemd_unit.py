"""systemd unit files (``.service``, and Podman Quadlet's ``.container``) as sections of keys with positions.

The syntax of systemd.syntax(7): ``[Section]`` headers, ``Key=Value`` lines, comments starting with ``#`` or
``;``, and a backslash at the end of a line continuing the value on the next. Keys repeat (each ``Environment=``
adds), so the reader keeps every entry in order instead of a dictionary, and each value keeps its offsets. Like
systemd (and Quadlet's generator), a line that is none of these is skipped rather than refused: systemd logs it
and starts the unit all the same.
"""

from __future__ import annotations

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

_SECTION = LazyRegex(r"[ \t]*\[([^\]\n]+)\][ \t]*$")
_KEY = LazyRegex(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*")


class UnitEntry(NamedTuple):
    """One ``Key=Value`` line (with its continuations): the value's text runs from ``start`` to ``end`` of the
    file, continuation backslashes and line breaks included, so the shell tokenizer can read it in place."""

    section: str
    key: str
    key_start: int
    start: int
    end: int
    line_end: int  # the end of the entry's last line, before its line break


def read_unit(text: str) -> list[UnitEntry]:
    """Every entry of a unit file in order (lines systemd ignores, such as a key before any section, left out)."""
    entries: list[UnitEntry] = []
    section = ""
    offset = 0
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        start = offset
        offset += len(lines[index]) + 1
        index += 1
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            continue
        key = _KEY.match(line)
        end = start + len(line)
        while line.endswith("\\") and index < len(lines):  # the value goes on on the next line
            line = lines[index].rstrip("\r")
            end = offset + len(line)
            offset += len(lines[index]) + 1
            index += 1
        if key is None or not section:
            continue  # "Missing '='" or "Assignment outside of section": systemd ignores the line
        entries.append(UnitEntry(section, key.group(1), start + key.start(1), start + key.end(), end, end))
    return entries


def value(text: str, entry: UnitEntry) -> str:
    """The entry's value as systemd reads it: continuations joined with a space, comment lines among them left
    out, surrounding blanks stripped."""
    parts: list[str] = []
    for line in text[entry.start : entry.end].split("\n"):
        line = line.rstrip("\r")
        if line.lstrip().startswith(("#", ";")) and parts:
            continue
        parts.append(line[:-1] if line.endswith("\\") else line)
    return " ".join(part.strip() for part in parts).strip()


def section_end(entries: list[UnitEntry], section: str) -> int | None:
    """Where a new key of ``section`` goes: the end of the section's last entry, or None without one."""
    last = [entry for entry in entries if entry.section == section]
    return last[-1].line_end if last else None
