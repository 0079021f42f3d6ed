"""Reading a command line's options as a program's own parser would, for the few options a reader needs."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def option_values(words: Sequence[str], names: Collection[str]) -> list[str]:
    """The values given to any of ``names`` in order, written ``--name=value`` or ``--name value`` ("" for an
    option that ends the line without its value)."""
    found = []
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name in names:
            found.append(value if equals else (words[index + 1] if index + 1 < len(words) else ""))
    return found
