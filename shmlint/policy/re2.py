"""Python ``re`` patterns (the tier data's and the signals') written for RE2, the engine of Kubernetes CEL's
``matches()`` and of Rego's ``regex.match`` (Go's ``regexp``).

The shipped patterns use a small common subset; what differs is translated so that a search finds the same
strings: Python's ``$`` also matches before a final line break, its ``\\s``, ``\\d`` and ``\\w`` are Unicode
classes (RE2's are ASCII), and ``re.IGNORECASE`` becomes ``(?i)``. Constructs RE2 lacks (look-around, back
references, atomic groups, possessive quantifiers, comments) are refused rather than approximated. ``\\b`` stays:
RE2's is ASCII, Python's Unicode, which differs only next to non-ASCII letters (said in the README).

One look-around is exported, not refused: a negative lookahead that ends the pattern (``head(?!tail)``, as the tier
data writes "a training command, unless it turns the loader workers off"). It becomes a pair (``Re2Pattern``): the
policy matches ``head`` and not ``head(?:tail)``. That is the pattern's verdict whenever the command runs the head
once; a command that runs it several times, only some of them with ``tail``, is matched by Python and not by the
pair (so the pair never claims more than the linter does).
"""

from __future__ import annotations

import re

from shmlint.named_tuple import NamedTuple

#: Python's ``\s`` for str patterns: the characters ``str.isspace`` accepts (and ``str.strip`` removes)
SPACE = r"\t-\r\x{1c}-\x{1f} \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_DIGIT = r"\p{Nd}"
_WORD = r"\p{L}\p{N}_"
_CLASSES = {"s": SPACE, "d": _DIGIT, "w": _WORD}
_REFUSED = ("(?=", "(?!", "(?<=", "(?<!", "(?P=", "(?>", "(?#")


#: the largest count of a repetition RE2 compiles (Go's ``regexp/syntax``, which CEL and Rego use: larger is an error)
MAX_REPEAT = 1000


class UnsupportedPattern(ValueError):
    """A pattern RE2 cannot express as Python reads it."""


class Re2Pattern(NamedTuple):
    """A Python pattern as RE2: it matches where ``head`` matches and ``unless`` (when given) does not."""

    head: str
    unless: str | None = None


def split_lookahead(pattern: str) -> tuple[str, str | None]:
    """(head, tail) of a pattern ``head(?!tail)`` whose negative lookahead ends it at the top level, with no
    top-level alternation in the head (there the lookahead would bind to the last branch only); else (pattern,
    None)."""
    opened = [i for i, char, depth in _scan(pattern) if char == "(" and depth == 0 and pattern[i : i + 3] == "(?!"]
    start = opened[-1] if opened else -1
    if start < 0 or _closing(pattern, start) != len(pattern) - 1:
        return pattern, None
    head, tail = pattern[:start], pattern[start + 3 : -1]
    if _top_level_bar(head):
        return pattern, None
    return head, tail


def _ends_class(pattern: str, index: int) -> bool:
    """Whether the character at ``index``, inside a class, closes it (a ``]`` first in the class is a member)."""
    return pattern[index] == "]" and pattern[index - 1] != "[" and pattern[index - 2 : index] != "[^"


def _scan(pattern: str) -> list[tuple[int, str, int]]:
    """(index, character, group depth before it) of every character outside classes and escapes."""
    found, depth, index, in_class = [], 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = not _ends_class(pattern, index)
        elif char == "[":
            in_class = True
        else:
            found.append((index, char, depth))
            depth += (char == "(") - (char == ")")
        index += 1
    return found


def _closing(pattern: str, start: int) -> int:
    """The index of the parenthesis that closes the group opened at ``start`` (-1: none)."""
    depth = next((d for i, c, d in _scan(pattern) if i == start), None)
    if depth is None:
        return -1
    return next((i for i, c, d in _scan(pattern) if i > start and c == ")" and d == depth + 1), -1)


def _top_level_bar(pattern: str) -> bool:
    return any(char == "|" and depth == 0 for _, char, depth in _scan(pattern))


def to_re2_pattern(pattern: str, *, ignore_case: bool = True) -> Re2Pattern:
    """``to_re2`` for a pattern that may end in a negative lookahead: the head, and the head followed by the
    lookahead's body as the pattern that vetoes it."""
    re.compile(pattern)
    head, tail = split_lookahead(pattern)
    if tail is None:
        return Re2Pattern(to_re2(pattern, ignore_case=ignore_case))
    return Re2Pattern(to_re2(head, ignore_case=ignore_case), to_re2(f"{head}(?:{tail})", ignore_case=ignore_case))


def to_re2(pattern: str, *, ignore_case: bool = True) -> str:
    """The RE2 pattern that searches like ``re.search(pattern, text, re.IGNORECASE)`` (without the flag when
    ``ignore_case`` is false); UnsupportedPattern for constructs RE2 lacks."""
    re.compile(pattern)  # a broken pattern is the data's error, reported as Python reports it
    for construct in _REFUSED:
        if construct in pattern:
            raise UnsupportedPattern(f"{pattern!r}: {construct} has no RE2 equivalent")
    if re.search(r"\{,[0-9]", pattern):
        raise UnsupportedPattern(f"{pattern!r}: RE2 reads {{,n}} as text, Python as a repetition")
    counts = [int(n) for n in re.findall(r"(?<!\\)\{([0-9]{1,9})(?:,([0-9]{0,9}))?\}", pattern) for n in n if n]
    if any(count > MAX_REPEAT for count in counts):  # Go's regexp/syntax: ErrInvalidRepeatSize
        raise UnsupportedPattern(f"{pattern!r}: RE2 refuses a repetition count over {MAX_REPEAT}")
    out: list[str] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escaped = pattern[index + 1]
            if escaped in "uU":  # Python's \uXXXX and \UXXXXXXXX are RE2's \x{...}
                width = 4 if escaped == "u" else 8
                out.append("\\x{" + pattern[index + 2 : index + 2 + width] + "}")
                index += 2 + width
                continue
            out.append(_escape(pattern, escaped, in_class))
            index += 2
            continue
        if in_class:
            in_class = not _ends_class(pattern, index)
            out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
        elif char == "$":
            out.append(r"(?:\n?\z)")
        elif char in "*+?}" and pattern[index + 1 : index + 2] == "+":
            raise UnsupportedPattern(f"{pattern!r}: possessive quantifiers have no RE2 equivalent")
        else:
            out.append(char)
        index += 1
    return ("(?i)" if ignore_case else "") + "".join(out)


def _escape(pattern: str, escaped: str, in_class: bool) -> str:
    if escaped.isdigit():
        raise UnsupportedPattern(f"{pattern!r}: back references have no RE2 equivalent")
    if escaped == "N":
        raise UnsupportedPattern(f"{pattern!r}: named characters (\\N{{...}}) have no RE2 equivalent")
    if escaped == "Z":
        return r"\z"
    if escaped in _CLASSES:
        return _CLASSES[escaped] if in_class else f"[{_CLASSES[escaped]}]"
    if escaped.lower() in _CLASSES:
        if in_class:
            raise UnsupportedPattern(f"{pattern!r}: \\{escaped} inside a class has no RE2 equivalent")
        return f"[^{_CLASSES[escaped.lower()]}]"
    return "\\" + escaped


def glob_to_re2(glob: str) -> str:
    """A resource-name glob as ``fnmatch.fnmatchcase`` reads it (``*`` and ``?``; classes refused), anchored."""
    if "[" in glob:
        raise UnsupportedPattern(f"{glob!r}: glob classes are not exported")
    body = "".join("(?s:.*)" if c == "*" else "(?s:.)" if c == "?" else literal(c) for c in glob)
    return f"^{body}\\z"


def literal_alternatives(words: tuple[str, ...] | list[str]) -> str:
    """An alternation of literal words, for patterns built from names."""
    return "|".join(literal(word) for word in words)


#: what RE2 and Python both read as an operator outside a class: escaped, and nothing else (RE2 refuses an escaped
#: letter, digit or space, which ``re.escape`` writes for some)
_SPECIAL = frozenset("\\.^$|?*+()[]{}")


def literal(text: str) -> str:
    """``text`` matched literally, in syntax both engines read."""
    return "".join("\\" + c if c in _SPECIAL else c for c in text)
