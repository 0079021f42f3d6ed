"""Where the rule catalog's files are, and what their names alone say: each rule's code, slug and implementation.

A catalog file is named ``code_slug.yaml`` in lower case with ``_`` for ``-`` (``shm005_shm_too_small.yaml``; a
catalog test holds every file to that). What a name answers is answered here without parsing any YAML: the rule
registry lists the implementations, and a finding gets its slug, without loading ``shmlint.catalog``'s entries.
"""

from __future__ import annotations

import functools
import os

#: where the catalog is, first found wins: inside the package in an installed wheel (pyproject.toml force-includes
#: ``rules/`` there), else the checkout's top-level ``rules/`` (a source tree or an editable install)
_FOLDERS = ("data/rules", "../rules")
#: what makes a folder the catalog rather than some other ``rules`` folder beside the package
_MARKER = "schema.json"


class CatalogError(ValueError):
    """A catalog file is missing a field or has one of the wrong type; the message names the file."""


@functools.cache
def catalog_dir() -> str:
    """Where the rule files are, in a checkout and in an installed wheel alike.

    Plain paths rather than ``importlib.resources``: pip always unpacks wheels, and the resources machinery costs
    a tenth of the start-up budget of a pre-commit run.
    """
    package = os.path.dirname(os.path.realpath(__file__))
    for relative in _FOLDERS:
        folder = os.path.join(package, relative)
        if os.path.isfile(os.path.join(folder, _MARKER)):
            return os.path.realpath(folder)
    raise CatalogError(f"rule catalog not found: none of {', '.join(_FOLDERS)} beside {package} holds {_MARKER}")


def rule_stems() -> tuple[str, ...]:
    """Every rule's file stem in code order (``shm005_shm_too_small``), from file names alone: nothing is parsed,
    so the rule registry can list the implementations without paying for the YAML."""
    return tuple(name.removesuffix(".yaml") for name in rule_files())


def slug_of(code: str) -> str | None:
    """A rule's slug from its catalog file's name alone (``shm005_shm_too_small.yaml``: code, then slug), without
    parsing the file: a finding needs its slug, and its default severity only when that decides (``RuleContext``)."""
    name = file_of(code)
    return None if name is None else name.removesuffix(".yaml").partition("_")[2].replace("_", "-")


def file_of(code_or_slug: str) -> str | None:
    """The catalog file of a rule, found by its name alone (``shm005_shm_too_small.yaml``: code, then slug)."""
    key = code_or_slug.strip().lower()
    for name in rule_files():
        code, _, slug = name.removesuffix(".yaml").partition("_")
        if code == key or slug.replace("_", "-") == key:
            return name
    return None


@functools.cache
def rule_files() -> tuple[str, ...]:
    """The rule files' names, sorted."""
    return tuple(
        sorted(name for name in os.listdir(catalog_dir()) if name.startswith("shm") and name.endswith(".yaml"))
    )
