"""Unified diffs with git's ``a/`` and ``b/`` headers; a file name's control characters are made visible there (a
line break would forge diff lines, an escape sequence would drive the terminal)."""

from __future__ import annotations

import difflib

from shmlint.visible import visible


def unified(path: str, before: str, after: str, context: int = 3, note: str = "") -> str:
    """``note`` goes after the first hunk header's ``@@`` (where git writes the function name): patch and git apply
    skip it, people read why the fix is what it is."""
    name = visible(path.lstrip("/"))
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}", n=context
    )
    out = []
    for line in lines:
        if note and line.startswith("@@ "):
            line, note = f"{line.rstrip()} {' '.join(note.split())}\n", ""
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
