"""Container CLI options written outside a command line (Ray's ``run_options``, Quadlet's ``PodmanArgs=`` and
keys), read with the ``run`` command's own grammar at their offsets in the file.

Each piece is tokenized on its own and its words moved to their offsets in the file, so every flag keeps the
offsets a finding or a fix needs; the engine and ``run`` words are added without text of their own.
"""

from __future__ import annotations

from collections.abc import Iterable

from shmlint.parsers.container_command import ContainerCommand, parse_container_command
from shmlint.parsers.shell import Word, commands, top_level


def option_words(text: str, pieces: Iterable[tuple[int, int]]) -> list[Word]:
    """The shell words of the text's ``(start, end)`` pieces, in the order given (each piece on its own).

    Each piece is tokenised alone and its words moved to the text's offsets: linear in the text, where blanking
    everything before each piece (``source.alone``) made a unit of many keys quadratic (issue 27)."""
    found: list[Word] = []
    for start, end in pieces:
        found.extend(
            Word(word.text, word.start + start, word.end + start, word.dynamic, word.splat)
            for command in top_level(commands(text[start:end]))
            for word in command.words
        )
    return found


def options_command(engine: str, at: int, words: list[Word], text: str) -> ContainerCommand | None:
    """``<engine> run`` followed by ``words``: the engine and ``run`` are empty words at ``at``."""
    return parse_container_command([Word(engine, at, at), Word("run", at, at), *words], text)
