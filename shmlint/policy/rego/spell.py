"""How Python values are spelled in Rego source: patterns as raw strings, data as JSON."""

from __future__ import annotations

import json


def raw(pattern: str) -> str:
    """A Rego raw string (no escapes to get wrong), or a JSON string for a pattern that holds a backtick."""
    return as_json(pattern) if "`" in pattern else f"`{pattern}`"


def as_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
