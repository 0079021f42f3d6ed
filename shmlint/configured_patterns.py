"""Regular expressions from a repository's configuration, which a pull request can change: matched one value at a
time (an image name, a command line, never a whole file) by the ``regex`` engine under a time budget.

A pattern such as ``(a|aa)+$`` backtracks for minutes on a line of 40 ``a``; a CI gate must not hang on it. Why
``regex`` with a timeout rather than RE2 (``google-re2``): it reads the same syntax as ``re`` (lookarounds and
backreferences included), so existing configurations keep their meaning; it has wheels for every platform and
Python shmlint supports; and it is imported only when configuration adds patterns (the built-in ones, reviewed
and linear, stay on ``re``), so the one-file ``check`` path pays nothing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

#: seconds one configured pattern may spend on one value before the file is reported instead of checked
PATTERN_BUDGET_SECONDS = 0.05
#: seconds all configured patterns together may spend on one file: thousands of values each just under the
#: per-value budget took 3 minutes on a 174 KB pod (issue 27); the file is then reported instead of checked
FILE_BUDGET_SECONDS = 0.5

#: a search stopped by the wall-clock timeout that used less than half its time on the CPU was stopped by a busy
#: machine, not by the pattern: it is run again, this many times at most, so a loaded CI runner gives the same
#: answer as an idle laptop (the budgets are CPU time, measured with ``time.thread_time``)
BUSY_RETRIES = 4

#: when the file being checked runs out of pattern time (``time.thread_time``); set by ``file_budget`` around each
#: file, so no other file and no other thread shares it
_DEADLINE: ContextVar[float | None] = ContextVar("shmlint_pattern_deadline", default=None)


class PatternTimeout(Exception):
    """A configured pattern that ran past its budget on a value (catastrophic backtracking), or all of them past
    the file's; the message says which pattern, for an SHM000 finding on the file."""


@contextlib.contextmanager
def file_budget() -> Iterator[None]:
    """Every configured-pattern search inside counts against one budget of ``FILE_BUDGET_SECONDS`` for the file."""
    token = _DEADLINE.set(time.thread_time() + FILE_BUDGET_SECONDS)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class ConfiguredPattern:
    """Configured patterns joined into one, searched under ``PATTERN_BUDGET_SECONDS`` per value and what is left
    of ``FILE_BUDGET_SECONDS`` for the file (inside ``file_budget``)."""

    __slots__ = ("key", "pattern")

    def __init__(self, key: str, patterns: tuple[str, ...]) -> None:
        import regex

        self.key = key
        self.pattern = regex.compile("|".join(f"(?:{p})" for p in patterns), regex.IGNORECASE | regex.VERSION0)

    def search(self, value: str) -> str | None:
        """The matched text, or None; ``PatternTimeout`` when a budget runs out."""
        deadline = _DEADLINE.get()
        retries = BUSY_RETRIES
        while True:
            file_left = PATTERN_BUDGET_SECONDS if deadline is None else deadline - time.thread_time()
            timeout = min(PATTERN_BUDGET_SECONDS, file_left)
            started = time.thread_time()
            try:
                if timeout <= 0:
                    raise TimeoutError
                match = self.pattern.search(value, timeout=timeout)
            except TimeoutError:
                if retries and timeout > 0 and time.thread_time() - started < timeout / 2:
                    retries -= 1  # preempted, not backtracking: the search gets its CPU time again
                    continue
                raise self._timeout(value, file_left) from None
            return match.group(0) if match is not None else None

    def _timeout(self, value: str, file_left: float) -> PatternTimeout:
        if file_left < PATTERN_BUDGET_SECONDS:
            return PatternTimeout(
                f"configured {self.key} patterns ran longer than {FILE_BUDGET_SECONDS} s on this file's values "
                "(catastrophic backtracking?): rewrite the pattern; the file was not checked"
            )
        return PatternTimeout(
            f"a configured {self.key} pattern ran longer than {PATTERN_BUDGET_SECONDS} s on the value "
            f"'{value[:80]}' (catastrophic backtracking?): rewrite the pattern; the file was not checked"
        )
