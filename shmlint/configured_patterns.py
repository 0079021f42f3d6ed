"""Regular expressions from a repository's configuration, which a pull request can change: matched one value at a
time (an image name, a command line, never a whole file) by the ``regex`` engine under a time budget.

A pattern such as ``(a|aa)+$`` backtracks for minutes on a line of 40 ``a``; a CI gate must not hang on it. Why
``regex`` with a timeout rather than RE2 (``google-re2``): it reads the same syntax as ``re`` (lookarounds and
backreferences included), so existing configurations keep their meaning; it has wheels for every platform and
Python shmlint supports; and it is imported only when configuration adds patterns (the built-in ones, reviewed
and linear, stay on ``re``), so the one-file ``check`` path pays nothing.
"""

from __future__ import annotations

#: seconds one configured pattern may spend on one value before the file is reported instead of checked
PATTERN_BUDGET_SECONDS = 0.05


class PatternTimeout(Exception):
    """A configured pattern that ran past its budget on a value (catastrophic backtracking); the message says
    which pattern, for an SHM000 finding on the file."""


class ConfiguredPattern:
    """Configured patterns joined into one, searched under ``PATTERN_BUDGET_SECONDS`` per value."""

    __slots__ = ("key", "pattern")

    def __init__(self, key: str, patterns: tuple[str, ...]) -> None:
        import regex

        self.key = key
        self.pattern = regex.compile("|".join(f"(?:{p})" for p in patterns), regex.IGNORECASE | regex.VERSION0)

    def search(self, value: str) -> str | None:
        """The matched text, or None; ``PatternTimeout`` when the budget runs out."""
        try:
            match = self.pattern.search(value, timeout=PATTERN_BUDGET_SECONDS)
        except TimeoutError:
            raise PatternTimeout(
                f"a configured {self.key} pattern ran longer than {PATTERN_BUDGET_SECONDS} s on the value "
                f"'{value[:80]}' (catastrophic backtracking?): rewrite the pattern; the file was not checked"
            ) from None
        return match.group(0) if match is not None else None
