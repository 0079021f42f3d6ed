"""The words a regular expression cannot match without, read off the pattern's text by a small scanner.

A pattern such as ``(^|/)sglang$`` matches no text that lacks ``sglang``. Two uses: the prefilter skips files
holding none of the signals' words, and a ``LazyRegex`` given its pattern's words answers most values with a
substring test, compiling only patterns whose words occur. For the shipped patterns both are worked out when the
data is built (``python -m shmlint.build_data``), so a run reads patterns only when configuration adds some.

The scanner is conservative: a word it gives is one every match holds, and whatever it does not understand gives
no word. It reads literal characters (and punctuation escaped with ``\\``), groups, alternation (one of the
branches' words is required, so a branch without one leaves the alternation none), quantifiers (a part that may
occur no times requires nothing), character classes, ``.``, anchors and ``\\b \\d \\s \\w`` (no word of their own)
and lookarounds (no word: read only to find where they end). It gives up on the whole pattern, returning no
requirement, at any other escape (``\\x41``, ``\\1``, ``\\p{L}``), a ``{`` that is not a counted quantifier (the
``regex`` engine's fuzzy ``{e<=1}``), a ``[`` inside a class (``regex``'s POSIX classes), verbose mode, a
conditional and any other ``(?`` construct: a configured pattern is read by ``regex`` (``configured_patterns``),
and both engines agree on everything read here.

Words are lower case and hold no blank (a command line joined from list items may space words otherwise) and no
letter outside ASCII (``re.IGNORECASE`` matches ``s`` with ``ſ`` and ``k`` with the Kelvin sign, which lower case
does not): a caller tests words on an ASCII value, lower-cased, and searches any other value in full.
"""

from __future__ import annotations

#: one of these words occurs in every text the pattern matches
Requirement = frozenset[str]

#: characters that are not a literal where a pattern reads an atom
_SPECIAL = frozenset("\\[]().^$|*+?{")
#: escapes that stand for no word: a class of characters or a place (``\b``), two characters long
_NO_WORD_ESCAPES = frozenset("bBAZdDsSwW")
#: scoped or global flags (``(?i)``, ``(?s-i:...)``); ``x`` (verbose) changes what the text means and is not read
_FLAGS = frozenset("aiLmsu-")


class _Unknown(Exception):
    """Something the scanner does not read: the pattern gets no requirement."""


def requirements(pattern: str) -> list[Requirement]:
    """Every requirement the pattern makes (each part of it that every match holds adds one); none when the
    scanner does not understand the pattern."""
    scanner = _Scanner(pattern)
    try:
        found = scanner.alternation()
        if scanner.position != len(pattern):  # an unbalanced ``)``
            raise _Unknown
    except (_Unknown, RecursionError):
        return []
    return found


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


class _Scanner:
    """One pass over a pattern's text, by recursive descent: ``alternation`` -> ``sequence`` -> atoms."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.position = 0

    def _peek(self, length: int = 1) -> str:
        return self.pattern[self.position : self.position + length]

    def alternation(self) -> list[Requirement]:
        """Branches up to the end or a ``)``: one branch's requirements, or the union of each branch's best."""
        branches = [self.sequence()]
        while self._peek() == "|":
            self.position += 1
            branches.append(self.sequence())
        if len(branches) == 1:
            return branches[0]
        choices = [best(branch) for branch in branches]
        if any(words is None for words in choices):
            return []
        return [frozenset().union(*(words for words in choices if words is not None))]

    def sequence(self) -> list[Requirement]:
        """Atoms up to ``|``, ``)`` or the end. Runs of literal characters are words; a character that may be
        absent ends the run before it, one that may repeat ends the run after it and starts the next."""
        found: list[Requirement] = []
        run: list[str] = []

        def flush() -> None:
            if run:
                found.append(frozenset({"".join(run)}))
                run.clear()

        while self.position < len(self.pattern) and self._peek() not in ("|", ")"):
            literal, inner = self._atom()
            minimum = self._quantifier()
            if literal is None:
                flush()
                if minimum is None or minimum >= 1:
                    found.extend(inner)
            elif not _word_character(literal):
                flush()
            elif minimum is None:
                run.append(literal.lower())
            elif minimum == 0:
                flush()
            else:
                run.append(literal.lower())
                flush()
                run.append(literal.lower())
        flush()
        return found

    def _atom(self) -> tuple[str | None, list[Requirement]]:
        """(the literal character, []) or (None, what a group requires: nothing for any other atom)."""
        pattern, position = self.pattern, self.position
        char = pattern[position]
        if char == "(":
            return None, self._group()
        if char == "[":
            self._class()
            return None, []
        if char == "\\":
            escaped = pattern[position + 1 : position + 2]
            self.position += 2
            if escaped in _NO_WORD_ESCAPES:
                return None, []
            if escaped and not escaped.isalnum() and escaped.isascii():
                return escaped, []
            raise _Unknown  # \x41, \1, \n, \p{L}... or a trailing backslash
        if char in ".^$":
            self.position += 1
            return None, []
        if char in _SPECIAL:  # a quantifier with nothing to repeat, a lone ``]`` or ``{``
            raise _Unknown
        self.position += 1
        return char, []

    def _group(self) -> list[Requirement]:
        """A group from its ``(`` to its ``)``: what its content requires; nothing for lookarounds, whose
        content is read only to find their end."""
        self.position += 1
        required = True
        if self._peek() == "?":
            self.position += 1
            required = self._group_kind()
        found = self.alternation()
        if self._peek() != ")":
            raise _Unknown
        self.position += 1
        return found if required else []

    def _group_kind(self) -> bool:
        """Past ``(?``: read what kind of group this is; whether its content is required of a match."""
        head = self._peek(2)
        if head[:1] in (":", ">"):
            self.position += 1
            return True
        if head in ("<=", "<!"):
            self.position += 2
            return False
        if head[:1] in ("=", "!"):
            self.position += 1
            return False
        if head == "P<":
            end = self.pattern.find(">", self.position)
            name = self.pattern[self.position + 2 : end] if end != -1 else ""
            if not name.isidentifier():
                raise _Unknown
            self.position = end + 1
            return True
        flags = ""
        while self._peek() in _FLAGS:
            flags += self._peek()
            self.position += 1
        if not flags:
            raise _Unknown  # (?P=name), (?#...), (?(1)...), regex's own (?|...), (?<name>...)...
        if self._peek() == ":":
            self.position += 1
            return True
        if self._peek() == ")" and "-" not in flags:
            return True  # global flags: an empty group
        raise _Unknown

    def _class(self) -> None:
        """Past a character class, ``[`` to its ``]`` (a ``]`` first is a member); no word of its own."""
        pattern = self.pattern
        position = self.position + 1
        if pattern[position : position + 1] == "^":
            position += 1
        if pattern[position : position + 1] == "]":
            position += 1
        while position < len(pattern) and pattern[position] != "]":
            if pattern[position] == "[":
                raise _Unknown  # a POSIX class or a nested set to ``regex``, a member to ``re``
            position += 2 if pattern[position] == "\\" else 1
        if position >= len(pattern):
            raise _Unknown
        self.position = position + 1

    def _quantifier(self) -> int | None:
        """The least count of the quantifier after an atom (None for none), past its lazy ``?`` or possessive
        ``+``."""
        char = self._peek()
        if char in ("*", "+", "?"):
            self.position += 1
            minimum = 1 if char == "+" else 0
        elif char == "{":
            minimum = self._counted()
        else:
            return None
        if self._peek() in ("?", "+"):
            self.position += 1
        if self._peek() in ("*", "+", "?", "{"):
            raise _Unknown  # a repeated repeat is an error
        return minimum

    def _counted(self) -> int:
        """``{m}``, ``{m,}``, ``{,n}``, ``{m,n}``: m (0 when left out)."""
        end = self.pattern.find("}", self.position)
        body = self.pattern[self.position + 1 : end] if end != -1 else ""
        low, comma, high = body.partition(",")
        digits = all(part.isascii() and (part.isdigit() or not part) for part in (low, high))
        if not (digits and (low or comma)):
            raise _Unknown
        self.position = end + 1
        return int(low or 0)


def _word_character(char: str) -> bool:
    """Whether a literal may be part of a word: ASCII and not a blank."""
    return char.isascii() and not char.isspace()
