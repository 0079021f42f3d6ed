"""The words a regular expression cannot match without: worked out once, when shipped data is compiled.

A pattern such as ``(^|/)sglang$`` matches no text that lacks ``sglang``. Knowing that, a run answers most values
with a substring test and compiles only the patterns whose words occur (``LazyRegex(..., required=...)``): the
tier data holds about forty patterns and one workload's image and command contain the words of two or three.

Read off ``re``'s own parse tree (``re._parser``, the parser ``re.compile`` uses), so the answer is about the
pattern ``re`` runs, and only at build time (``python -m shmlint.need``): a run never imports this module.
"""

from __future__ import annotations

from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

#: one of these strings occurs (lower case) in every text the pattern matches; None: no such set is known
Words = frozenset[str] | None


def required_words(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    """Lower-case strings, one of which every match contains, sorted; None when the pattern needs none (``.*``).

    Letters outside ASCII are left out of the words (``re.IGNORECASE`` matches ``s`` with ``ſ``, which lower
    case does not): a caller tests the words only on ASCII values and searches other values in full."""
    words = _sequence(sre_parse.parse(pattern, flags))
    if not words:
        return None
    # a text holding ``num_workers`` holds ``workers``: the shorter word alone says the same
    return tuple(sorted(w for w in words if not any(other != w and other in w for other in words)))


def _sequence(items: Any) -> Words:
    """The best requirement of a concatenation: any one of its parts' requirements holds; take the most selective."""
    best: Words = None
    run: list[str] = []
    for op, argument in items:
        if op is sre.LITERAL and argument < 128:
            run.append(chr(argument).lower())
            continue
        best = _better(best, _run(run))
        run = []
        best = _better(best, _item(op, argument))
    return _better(best, _run(run))


def _item(op: Any, argument: Any) -> Words:
    if op is sre.SUBPATTERN:
        return _sequence(argument[-1])
    if op is sre.ATOMIC_GROUP:
        return _sequence(argument)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        minimum, _, body = argument
        return _sequence(body) if minimum >= 1 else None
    if op is sre.BRANCH:
        branches = [_sequence(branch) for branch in argument[1]]
        if any(words is None for words in branches):
            return None
        return frozenset().union(*(words for words in branches if words is not None))
    return None  # classes, anchors, lookarounds, backreferences: no word of their own


def _run(run: list[str]) -> Words:
    return frozenset({"".join(run)}) if run else None


def _better(a: Words, b: Words) -> Words:
    """The requirement whose shortest word is longer (fewer texts contain it); on a tie, the one with fewer words."""
    if a is None or b is None:
        return a if b is None else b
    key_a = (min(map(len, a)), -len(a))
    key_b = (min(map(len, b)), -len(b))
    return a if key_a >= key_b else b
