"""The shell of a Makefile: its recipes."""

from __future__ import annotations

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, offset_lines

_RULE = LazyRegex(r"^[^\s#:=][^:=]*?::?(?!=)")
_CONDITIONAL = LazyRegex(r"^[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DEFINE = LazyRegex(r"^[ \t]*(?:override[ \t]+|export[ \t]+)?define\b")
_ENDEF = LazyRegex(r"^[ \t]*endef\b")
_RECIPE_PREFIX = LazyRegex(r"[@+\-\s]*")


def mask_makefile(text: str) -> str:
    """Recipe lines (tab-indented after a rule) and their continuations, without the ``@ - +`` prefixes."""
    mask = Mask(text)
    in_rule = continuing = in_define = False
    for offset, line in offset_lines(text):
        if continuing:
            mask.keep(offset, offset + len(line))
        elif in_define:
            in_define = not _ENDEF.match(line)
            continue
        elif line.startswith("\t") and in_rule:
            prefix = _RECIPE_PREFIX.match(line, 1)
            mask.keep(offset + (prefix.end() if prefix else 1), offset + len(line))
        elif _DEFINE.match(line):
            in_define, in_rule = True, False
            continue
        elif not line.strip() or line.lstrip().startswith("#") or _CONDITIONAL.match(line):
            continue
        elif _RULE.match(line) and not line.startswith("\t"):
            in_rule = True
            inline = _inline_recipe(line)
            if inline is None:
                continue
            mask.keep(offset + inline, offset + len(line))
        else:
            in_rule = False
            continue
        body = line.rstrip()
        continuing = body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 == 1
    return mask.result()


def _inline_recipe(line: str) -> int | None:
    """Where the recipe of ``target: deps ; recipe`` starts, if the rule line has one."""
    rule = _RULE.match(line)
    semicolon = line.find(";", rule.end()) if rule else -1
    return None if semicolon == -1 else semicolon + 1
