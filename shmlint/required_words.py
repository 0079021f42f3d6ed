"""The words a regular expression cannot match without, read off ``re``'s own parse tree.

A pattern such as ``(^|/)sglang$`` matches no text that lacks ``sglang``. Two uses: the prefilter skips files
holding none of the signals' words, and a ``LazyRegex`` given its pattern's words answers most values with a
substring test, compiling only patterns whose words occur. For the shipped patterns both are worked out when the
data is built (``python -m shmlint.build_data``), so a run parses patterns only when configuration adds some.

Words are lower case and hold no blank (a command line joined from list items may space words otherwise) and no
letter outside ASCII (``re.IGNORECASE`` matches ``s`` with ``ſ``, which lower case does not): a caller tests words
on an ASCII value, lower-cased, and searches any other value in full.
"""

from __future__ import annotations

from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

#: one of these words occurs in every text the pattern matches
Requirement = frozenset[str]


def requirements(pattern: str) -> list[Requirement]:
    """Every requirement the pattern makes (each part of it that every match holds adds one)."""
    return _sequence(sre_parse.parse(pattern))


def required_words(pattern: str) -> tuple[str, ...] | None:
    """The most selective requirement, sorted, with no word that holds another (a text holding ``num_workers``
    holds ``workers``); None when the pattern requires no word (``[a-z]+``)."""
    words = best(requirements(pattern))
    if words is None:
        return None
    return tuple(sorted(w for w in words if not any(other != w and other in w for other in words)))


def best(found: list[Requirement]) -> Requirement | None:
    """The requirement fewest texts meet: the longest shortest word, then the fewest words."""
    return max(found, key=lambda words: (min(map(len, words)), -len(words)), default=None)


def _sequence(items: Any) -> list[Requirement]:
    found: list[Requirement] = []
    run: list[str] = []
    for op, argument in items:
        if op is sre.LITERAL and argument < 128 and not chr(argument).isspace():
            run.append(chr(argument).lower())
            continue
        if run:
            found.append(frozenset({"".join(run)}))
            run = []
        found.extend(_item(op, argument))
    if run:
        found.append(frozenset({"".join(run)}))
    return found


def _item(op: Any, argument: Any) -> list[Requirement]:
    if op is sre.SUBPATTERN:
        return _sequence(argument[-1])
    if op is sre.ATOMIC_GROUP:
        return _sequence(argument)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        minimum, _, body = argument
        return _sequence(body) if minimum >= 1 else []
    if op is sre.BRANCH:  # each alternative meets its own best requirement: one of their words is required
        choices = [best(_sequence(branch)) for branch in argument[1]]
        if any(words is None for words in choices):
            return []
        return [frozenset().union(*(words for words in choices if words is not None))]
    return []  # classes, anchors, lookarounds, backreferences: no word of their own
