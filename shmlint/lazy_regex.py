"""Regular expressions compiled on their first use, not when their module is imported.

``re`` compiles in Python: 50 µs to 1 ms a pattern. shmlint holds about a hundred patterns at module level, one set
per file syntax, and a run uses the few its files need (a Kubernetes manifest none of the shell, HCL or Markdown
ones); compiling them all on import was the largest part of a one-file ``check`` beyond starting Python.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import AnyStr, Generic


@contextlib.contextmanager
def without_future_warnings() -> Iterator[None]:
    """Python's FutureWarning for a possible nested set (``[[``) silenced while a pattern compiles: a configured
    pattern or a ``.gitignore`` line is the repository's text, and the warning would reach the user's terminal as
    Python's, not shmlint's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield


def compile_quietly(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile`` without Python's FutureWarning (``without_future_warnings``)."""
    with without_future_warnings():
        return re.compile(pattern, flags)


class LazyRegex(Generic[AnyStr]):
    """A pattern with the methods of ``re.Pattern`` that shmlint uses; it compiles once, on the first call (the
    compiled pattern is a cache: the same for every caller, so sharing one instance between modules is safe).

    ``required``: lower-case words one of which every match contains (``shmlint.required_words``, worked out when
    shipped data is built); ``search`` answers an ASCII value that holds none of them without compiling."""

    __slots__ = ("_compiled", "flags", "pattern", "required")

    def __init__(self, pattern: AnyStr, flags: int = 0, required: tuple[str, ...] | None = None) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self.required = required
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = compile_quietly(self.pattern, self.flags)
        return compiled

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        required = self.required
        if required is not None and isinstance(string, str) and string.isascii():
            lowered = string[pos:endpos].lower()
            for word in required:  # a loop: a generator in ``any`` costs more than the search on short values
                if word in lowered:
                    break
            else:
                return None
        return self.compiled.search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[AnyStr]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, replacement: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        return self.compiled.sub(replacement, string, count)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr]:
        return self.compiled.split(string, maxsplit)
