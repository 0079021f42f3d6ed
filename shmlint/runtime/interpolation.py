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


def interpolate(text: str, known: Mapping[str, str] = _NOTHING) -> tuple[str, bool]:
    """``text`` with its variables substituted, and whether no unknown variable decided the result."""
    out: list[str] = []
    certain = True
    index = 0
    while index < len(text):
        dollar = text.find("$", index)
        if dollar == -1:
            out.append(text[index:])
            break
        out.append(text[index:dollar])
        following = text[dollar + 1 : dollar + 2]
        if following == "$":
            out.append("$")
            index = dollar + 2
        elif following == "{":
            close = _closing_brace(text, dollar + 2)
            if close == -1:
                out.append(text[dollar:])
                break
            value, sure = _braced(text[dollar + 2 : close], known)
            out.append(value)
            certain = certain and sure
            index = close + 1
        else:
            name = _NAME.match(text, dollar + 1)
            if name:
                out.append(known.get(name.group(), ""))
                certain = certain and name.group() in known
                index = name.end()
            else:
                out.append("$")
                index = dollar + 1
    return "".join(out), certain


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


def _braced(body: str, known: Mapping[str, str]) -> tuple[str, bool]:
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
        return interpolate(word, known) if use_default else (value or "", True)
    if operator in (":+", "+"):
        use_alternative = is_set and (operator == "+" or value != "")
        return interpolate(word, known) if use_alternative else ("", True)
    return (value or "", True) if is_set and (operator == "?" or value) else ("", False)


#: a ``.env`` file is read for at most this many variables (the rest are left unset)
MAX_DOTENV_VARIABLES = 1024
_DOTENV_LINE = LazyRegex(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*(.*)")


def dotenv_values(text: str) -> dict[str, str]:
    """The variables a compose project's ``.env`` sets, as compose reads them before interpolating its files: ``NAME=
    value`` lines (``export`` allowed), ``#`` comments; a single-quoted value is literal, a double-quoted or bare one
    is itself interpolated with the names set above it, a bare one ends at `` #``. A line of any other shape (a
    value quoted over several lines) sets nothing."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _DOTENV_LINE.fullmatch(line)
        if match is None or len(found) >= MAX_DOTENV_VARIABLES:
            continue
        name, value = match.group(1), match.group(2).rstrip()
        quote = value[:1]
        if quote in ("'", '"'):
            end = value.find(quote, 1)
            if end == -1:
                continue
            inner = value[1:end]
            found[name] = inner if quote == "'" else interpolate(inner, found)[0]
        else:
            found[name] = interpolate(value.split(" #", 1)[0].rstrip(), found)[0]
    return found
