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

from shmlint.lazy_regex import LazyRegex

#: characters that make a pattern more than a plain name
_SPECIAL = frozenset("*?[]!\\/ #")
#: ``*`` runs per path segment and per pattern beyond which the regular expression pathspec builds can backtrack
#: for minutes on one long file name (``*a*a*a*b``: 14 s for a name of 250 ``a``; ``*a*/*a*/x``: 70 ms a path)
MAX_STARS_PER_SEGMENT, MAX_STARS = 2, 3
_STARS = LazyRegex(r"\*+")


class PathPatterns:
    """Compiled patterns; ask them about paths written relative to the folder the patterns belong to."""

    __slots__ = ("_names", "_spec")

    def __init__(self, patterns: Sequence[str]) -> None:
        """Blank lines, comments, patterns ``too_costly`` refuses and patterns git cannot read (``x\\``, ``[z-a]``)
        are left out, as git leaves out what it cannot read: from a .gitignore, which shmlint does not own, that
        means more is checked, never less."""
        lines = [p for p in patterns if p.strip() and not p.startswith("#") and too_costly(p) is None]
        if all(_SPECIAL.isdisjoint(p) for p in lines):
            self._names: frozenset[str] | None = frozenset(lines)
            self._spec = None
        else:
            from pathspec import GitIgnoreSpec

            self._names = None
            self._spec = GitIgnoreSpec.from_lines([p for p in lines if _readable(p)])

    def decide(self, relative: str, is_dir: bool = False) -> bool | None:
        """True when the path (``a/b.yaml``, forward slashes) is matched, False when a ``!`` pattern takes it back,
        None when no pattern speaks of it."""
        if self._names is not None:
            return True if not self._names.isdisjoint(relative.split("/")) else None
        assert self._spec is not None
        include: bool | None = self._spec.check_file(relative + "/" if is_dir else relative).include
        return include

    def matches(self, relative: str, is_dir: bool = False) -> bool:
        return self.decide(relative, is_dir) is True


def _readable(pattern: str) -> bool:
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([pattern])
    except (ValueError, re.error):  # pathspec's pattern errors are ValueErrors; a bad [range] is a re.error
        return False
    return True


def too_costly(pattern: str) -> str | None:
    """Why matching ``pattern`` could take exponential time, or None: bounded work on hostile input."""
    runs = [len(_STARS.findall(segment)) for segment in pattern.split("/") if segment != "**"]
    if max(runs, default=0) > MAX_STARS_PER_SEGMENT or sum(runs) > MAX_STARS:
        return (
            f"'{pattern}' has too many wildcards to match in bounded time (at most {MAX_STARS_PER_SEGMENT} '*' "
            f"in one path segment and {MAX_STARS} in a pattern)"
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
