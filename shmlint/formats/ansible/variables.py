"""The plain variables a task sees, so that ``image: "{{ trainer_image }}"`` is read as the image it names: a
role's ``defaults/main.yml`` and ``vars/main.yml`` (beside a task file under ``roles/<role>/tasks/``, read through
the run's ``ProjectFiles``, never outside the checked tree), then the play's, the blocks' and the task's own
``vars``, later ones winning as in Ansible's precedence. Only values that are plain text count (one that is itself
Jinja stays unknown), and only an argument that is one whole ``{{ name }}`` is replaced."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.yamlnodes import Mappings, Node, YamlError, compose, scalar

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

_WHOLE = LazyRegex(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,100})\s*\}\}")
_ROLE_FILES = ("defaults/main.yml", "defaults/main.yaml", "vars/main.yml", "vars/main.yaml")


def plain(node: Node | None) -> dict[str, str]:
    """The variables of a ``vars`` mapping whose values are plain text."""
    found: dict[str, str] = {}
    for name, (_, value) in Mappings().items(node).items():
        text = scalar(value)
        if text is not None and "{{" not in text and "{%" not in text:
            found[name] = text
    return found


def role_variables(path: str, files: ProjectFiles) -> dict[str, str]:
    """A role's defaults, then its vars, for a file under ``roles/<role>/tasks/`` or ``handlers/``."""
    folder = os.path.dirname(path)
    if os.path.basename(folder) not in ("tasks", "handlers"):
        return {}
    role = os.path.dirname(folder)
    found: dict[str, str] = {}
    for name in _ROLE_FILES:
        source = files.source(os.path.join(role, name))
        if source is None:
            continue
        try:
            documents = compose(source)
        except YamlError:
            continue  # checked on its own, where its error is said
        if len(documents) == 1:
            found.update(plain(documents[0]))
    return found


def resolve(text: str | None, variables: dict[str, str]) -> str | None:
    """The value of an argument written as one whole ``{{ name }}`` of a known variable, else the text."""
    if text is None:
        return None
    match = _WHOLE.fullmatch(text.strip())
    return variables.get(match.group(1), text) if match else text
