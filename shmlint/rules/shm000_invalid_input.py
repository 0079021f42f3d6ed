"""SHM000 invalid-input: a file that should be checked cannot be read or parsed, or a DataLoader hint is unreadable.

The engine reports it, because reading and parsing are its job; there is no check on workloads.
"""

from __future__ import annotations

from shmlint.rules.rule import Rule

RULE = Rule("SHM000", None)
