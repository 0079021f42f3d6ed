"""How Python code names what it calls, as ``ast`` reads it (the code is never imported or run)."""

from __future__ import annotations

import ast


def called(func: ast.expr) -> str:
    """``DataLoader`` for ``DataLoader(...)`` and ``torch.utils.data.DataLoader(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))
