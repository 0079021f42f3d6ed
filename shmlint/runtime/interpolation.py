"""``$VAR`` / ``${VAR...}`` interpolation as compose and Dockerfile ``ARG`` substitution read it.

Operators (the POSIX ones compose and BuildKit accept): ``${X:-d}`` is ``d`` when X is unset or empty, ``${X-d}``
only when unset; ``${X:+a}`` is ``a`` when X is set and not empty (else empty), ``${X+a}`` when X is set;
``${X:?e}`` / ``${X?e}`` is X or an error. ``$$`` is a literal ``$``. Defaults and alternatives may nest.

A name missing from ``known`` is unset: a Dockerfile ARG without a value. Compose runs without the user's
environment here, so there the result is *uncertain* whenever it depended on a variable that is not known
(``$TAG``, ``${TAG:+x}``); a default alone (``${SHM:-8g}``) is taken as what compose would see.
"""

from __future__ import annotations

from collections.abc import Mapping

from shmlint.lazy_regex import LazyRegex

_NAME = LazyRegex(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (":-", "-", ":+", "+", ":?", "?")
_NOTHING: Mapping[str, str] = {}
#: defaults and alternatives nested deeper than this are not read (the result is uncertain), and no result grows
#: beyond ``MAX_RESULT`` characters (the rest is cut, uncertain): hostile text cannot recurse without end or make a
#: few references to a long value fill the memory
MAX_NESTING = 32
MAX_RESULT = 1 << 20
#: a ``.env`` value longer than this is not set: each reference to it copies it
MAX_VALUE = 4096


def interpolate(text: str, known: Mapping[str, str] = _NOTHING, depth: int = 0) -> tuple[str, bool]:
    """``text`` with its variables substituted, and whether no unknown variable decided the result."""
    if depth > MAX_NESTING:
        return "", False
    out: list[str] = []
    certain = True
    index = length = 0
    while index < len(text):
        if length > MAX_RESULT:
            return "".join(out)[:MAX_RESULT], False
        dollar = text.find("$", index)
        if dollar == -1:
            out.append(text[index:])
            break
        value, after, sure = _expansion(text, dollar, known, depth)
        out += (text[index:dollar], value)
        certain = certain and sure
        length += dollar - index + len(value)
        index = after
    result = "".join(out)
    return result[:MAX_RESULT], certain and len(result) <= MAX_RESULT


def _expansion(text: str, dollar: int, known: Mapping[str, str], depth: int) -> tuple[str, int, bool]:
    """The value of the ``$`` construct at ``dollar``, where the text goes on after it, and whether it is certain."""
    following = text[dollar + 1 : dollar + 2]
    if following == "$":
        return "$", dollar + 2, True
    if following == "{":
        close = _closing_brace(text, dollar + 2)
        if close == -1:
            return text[dollar:], len(text), True
        value, sure = _braced(text[dollar + 2 : close], known, depth)
        return value, close + 1, sure
    name = _NAME.match(text, dollar + 1)
    if name is None:
        return "$", dollar + 1, True
    return known.get(name.group(), ""), name.end(), name.group() in known


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _braced(body: str, known: Mapping[str, str], depth: int) -> tuple[str, bool]:
    """The value of ``${body}``."""
    name_match = _NAME.match(body)
    if name_match is None:
        return "", False  # ``${}``, ``${1}``: nothing compose or BuildKit would substitute
    name, rest = name_match.group(), body[name_match.end() :]
    value = known.get(name)
    operator = next((op for op in _OPERATORS if rest.startswith(op)), None)
    if operator is None:
        return (value, True) if value is not None and not rest else ("", False)
    word = rest[len(operator) :]
    if value is None and operator in ("+", ":+"):
        return "", False  # the alternative applies only if the unknown variable is set
    is_set = value is not None
    if operator in (":-", "-"):
        use_default = not is_set or (operator == ":-" and value == "")
        return interpolate(word, known, depth + 1) if use_default else (value or "", True)
    if operator in (":+", "+"):
        use_alternative = is_set and (operator == "+" or value != "")
        return interpolate(word, known, depth + 1) if use_alternative else ("", True)
    return (value or "", True) if is_set and (operator == "?" or value) else ("", False)


#: a ``.env`` file is read for at most this many variables (the rest are left unset)
MAX_DOTENV_VARIABLES = 1024
_DOTENV_LINE = LazyRegex(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*(.*)")


def dotenv_values(text: str) -> dict[str, str]:
    """The variables a compose project's ``.env`` sets, as compose reads them before interpolating its files: ``NAME=
    value`` lines (``export`` allowed), ``#`` comments; a single-quoted value is literal, a double-quoted or bare one
    is itself interpolated with the names set above it, a bare one ends at `` #``. A line of any other shape (a
    value quoted over several lines) sets nothing, and so does one that depends on a variable it does not set (the
    shell's, unknown here) or grows past ``MAX_VALUE``: those stay unresolved."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _DOTENV_LINE.fullmatch(line)
        if match is None:
            continue
        name, value = match.group(1), match.group(2).rstrip()
        if name not in found and len(found) >= MAX_DOTENV_VARIABLES:
            continue  # a name set above is still set again: the last line wins, as in compose
        quote = value[:1]
        if quote == "'":
            end = value.find(quote, 1)
            resolved, certain = (value[1:end], True) if end != -1 else ("", False)
        elif quote == '"':
            end = value.find(quote, 1)
            resolved, certain = interpolate(value[1:end], found) if end != -1 else ("", False)
        else:
            resolved, certain = interpolate(value.split(" #", 1)[0].rstrip(), found)
        if certain and len(resolved) <= MAX_VALUE:
            found[name] = resolved
        else:
            found.pop(name, None)
    return found
