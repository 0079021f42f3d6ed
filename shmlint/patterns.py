"""Gitignore-style path patterns, for ``exclude``, ``extend-exclude``, ``per-file-ignores`` and ``.gitignore`` files.

git's rules, through pathspec: a pattern without a slash matches a name at any depth, one with a slash is anchored
at the folder the patterns belong to; ``*`` stays inside one folder and ``**`` crosses folders; ``!`` takes a path
back out; a trailing ``/`` matches folders only; the last matching pattern decides.

pathspec costs tens of milliseconds to import, so it is loaded only for patterns that need it: plain names (the
default exclusions, most ``.gitignore`` lines of a Python project are not) are compared as strings.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex, without_future_warnings
from shmlint.visible import quoted

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

#: characters that make a pattern more than a plain name
_SPECIAL = frozenset("*?[]!\\/ #")
#: ``*`` runs per path segment and per pattern (each ``**`` segment counts as one) beyond which the regular
#: expression pathspec builds can backtrack for minutes on one long file name (``*a*a*a*b``: 14 s for a name of
#: 250 ``a``; ``*a*/*a*/x``: 70 ms a path)
MAX_STARS_PER_SEGMENT, MAX_STARS = 2, 3
#: ``**`` segments before the last one (a pattern without an inner ``/`` starts with an implicit ``**/``): each
#: is a ``.+`` that crosses folders, and two of them make the work grow with the square of the path's depth
#: (``**/x/**/y``: 0.36 s for one path 2,000 folders deep), three with its cube (``**/x/**/x/**/y``: 3.6 s at 500)
MAX_INNER_GLOBSTARS = 1
_STARS = LazyRegex(r"\*+")
#: two or more unescaped asterisks in a row
_RUN_OF_STARS = LazyRegex(r"(?<!\\)\*{2,}")


class PathPatterns:
    """Compiled patterns; ask them about paths written relative to the folder the patterns belong to."""

    __slots__ = ("_names", "_spec", "refused")

    def __init__(self, patterns: Sequence[str]) -> None:
        """Blank lines, comments, patterns ``too_costly`` refuses and patterns git cannot read (``x\\``, ``[z-a]``)
        are left out, as git leaves out what it cannot read: from a .gitignore, which shmlint does not own, that
        means more is checked, never less."""
        written = [_one_star_per_run(p) for p in patterns if p.strip() and not p.startswith("#")]
        self.refused = tuple(problem for p in written if (problem := too_costly(p)) is not None)  # said by the walk
        lines = [p for p in written if too_costly(p) is None]
        if all(_SPECIAL.isdisjoint(p) for p in lines):
            self._names: frozenset[str] | None = frozenset(lines)
            self._spec = None
        else:
            self._names = None
            self._spec = _spec([p for p in lines if _readable(p)])

    def decide(self, relative: str, is_dir: bool = False) -> bool | None:
        """True when the path (``a/b.yaml``, forward slashes) is matched, False when a ``!`` pattern takes it back,
        None when no pattern speaks of it."""
        if self._names is not None:
            return True if not self._names.isdisjoint(relative.split("/")) else None
        assert self._spec is not None
        if is_dir:  # a folder: the last pattern that matches it decides (``*`` then ``!*/`` keeps every folder, as
            # git does; pathspec's git-style ranking puts a match by the folder-only pattern below a plain one)
            decided: bool | None = None
            for pattern in self._spec.patterns:
                if pattern.include is not None and pattern.match_file(relative + "/") is not None:
                    decided = pattern.include
            return decided
        include: bool | None = self._spec.check_file(relative).include
        return include

    def matches(self, relative: str, is_dir: bool = False) -> bool:
        return self.decide(relative, is_dir) is True


def _one_star_per_run(pattern: str) -> str:
    """``a***b`` as ``a*b``: git reads consecutive asterisks that are not a whole ``**`` segment as regular ones,
    and pathspec's expression for a run of them backtracks exponentially (``*********/``: 6 s on one name)."""
    negated = pattern.startswith("!")
    segments = pattern.removeprefix("!").split("/")
    plain = [segment if segment == "**" else _RUN_OF_STARS.sub("*", segment) for segment in segments]
    return ("!" if negated else "") + "/".join(plain)


def _spec(lines: list[str]) -> GitIgnoreSpec:
    """pathspec's matcher for ``lines``, built without Python's FutureWarning for a ``[[`` in a pattern (the
    repository's text, not shmlint's: the user would see a Python warning on stderr for their .gitignore)."""
    from pathspec import GitIgnoreSpec

    with without_future_warnings():
        return GitIgnoreSpec.from_lines(lines)


def _readable(pattern: str) -> bool:
    try:
        _spec([pattern])
    except (ValueError, re.error):  # pathspec's pattern errors are ValueErrors; a bad [range] is a re.error
        return False
    return True


def too_costly(pattern: str) -> str | None:
    """Why matching ``pattern`` could take more than linear time in the path, or None: bounded work on hostile
    input. The cost model counts what the matcher's regular expression really costs: ``*`` runs within a segment,
    all wildcards of the pattern, and ``**`` segments that more path follows."""
    segments = pattern.removeprefix("!").rstrip("/").split("/")
    globstars = [index for index, segment in enumerate(segments) if segment == "**"]
    runs = [len(_STARS.findall(segment)) for segment in segments if segment != "**"]
    inner = len([index for index in globstars if index < len(segments) - 1])  # an implicit one is alone: 1 at most
    if max(runs, default=0) > MAX_STARS_PER_SEGMENT or sum(runs) + len(globstars) > MAX_STARS:
        return (
            f"{quoted(pattern)} has too many wildcards to match in bounded time (at most {MAX_STARS_PER_SEGMENT} '*' "
            f"in one path segment and {MAX_STARS} in a pattern, '**' included)"
        )
    if inner > MAX_INNER_GLOBSTARS:
        return (
            f"{quoted(pattern)} has too many '**' to match in bounded time (at most {MAX_INNER_GLOBSTARS} with more of "
            "the path after it)"
        )
    return None


@functools.lru_cache(maxsize=64)
def compiled(patterns: tuple[str, ...]) -> PathPatterns:
    """The same tuple of patterns is compiled once per process, however many files ask."""
    return PathPatterns(patterns)


def relative_posix(path: str, base: str | None) -> str | None:
    """``path`` relative to the folder ``base`` (None: the current folder) with ``/``, as patterns are written;
    None when it lies outside, also on another Windows drive (where ``os.path.relpath`` raises)."""
    try:
        relative = os.path.relpath(os.path.abspath(path), base or os.getcwd())
    except ValueError:
        return None
    relative = relative.replace(os.sep, "/")
    if relative == ".." or relative.startswith("../"):
        return None
    return "" if relative == "." else relative
