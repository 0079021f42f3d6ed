"""A configuration file's problems as an exception, apart from the code that finds and places them
(``shmlint.config_problems``, with ruamel.yaml and jsonschema behind it): a run with no configuration file, or a
valid one, needs only the exception to catch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.visible import QUOTED_HEAD, QUOTED_TAIL, excerpt, visible

if TYPE_CHECKING:
    from pathlib import Path

KeyPath = tuple[str | int, ...]
RULE_WORDS = "is not a rule code or slug (see `shmlint rules`)"
_PLAIN_KEY = LazyRegex(r"[A-Za-z0-9_-]+")
#: the longest problem line: the known keys listed for an unknown one fit
MAX_PROBLEM_CHARS = 600


class Problem(NamedTuple):
    """One thing wrong in a configuration file; ``on_key`` places it at the key rather than its value."""

    key: KeyPath
    message: str
    line: int | None = None
    column: int | None = None
    on_key: bool = False
    value: str | None = None  # the offending text, to place a list item in pyproject.toml

    def describe(self, path: Path) -> str:
        where = f"{path}:{self.line}:{self.column}" if self.line is not None else str(path)
        line = f"{where}: {key_text(self.key)}: {self.message}" if self.key else f"{where}: {self.message}"
        return visible(excerpt(line, MAX_PROBLEM_CHARS - 100, 97))


class ConfigError(Exception):
    """Every problem of one configuration file, reported together, ordered by where they are."""

    def __init__(self, path: Path, problems: list[Problem]) -> None:
        self.path = path
        self.problems = sorted(problems, key=lambda p: (p.line is None, p.line or 0, p.column or 0))
        lines = [problem.describe(path) for problem in self.problems]
        if len(lines) > 1:
            lines.insert(0, f"{visible(str(path))}: {len(lines)} problems in the configuration:")
        super().__init__("\n".join(lines))


def key_text(key: KeyPath) -> str:
    """``select[0]``, ``severity.SHM003``, ``per-file-ignores["docs/*.md"][1]``; a long key as an excerpt."""
    text = ""
    for part in key:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        part = excerpt(part, QUOTED_HEAD, QUOTED_TAIL)
        if _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{dumps(part)}]"
    return text


def dumps(value: Any) -> str:
    import json  # a problem is being reported: the clean run does not pay for it

    return json.dumps(value, default=str)  # a YAML date or binary value: shown as Python writes it
