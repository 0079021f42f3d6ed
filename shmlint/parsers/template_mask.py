"""A Jinja template of YAML read as the YAML it will render to, as far as that can be seen without rendering it:
its statement lines (``{% if gpu %}``, ``{% for m in models %}``, ``{# note #}``) are blanked, so every branch and
one pass of every loop is kept, and an expression that is a whole value (``image: {{ image }}``) becomes that
expression quoted (``image: "{{image}}"``), which the readers take for a value to come. Same length, same line
breaks: every position is the template's own (audit77c: a vLLM Deployment written as ``deployment.yaml.j2`` was not
read at all). None where that cannot be done in place (a statement inside a line, an expression that starts a
longer value, a value too short to quote), and for a Go template (Helm's ``{{ .Values.x }}``, ``{{- if }}``,
``{{ include }}``), whose actions put whole blocks in place: those are rendered (``helm template``), never guessed.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex

#: a line that is one statement or comment of the template and nothing else
_STATEMENT_LINE = LazyRegex(
    r"^[ \t]*(?:\{%[^\n]{0,2000}?%\}|\{#[^\n]{0,2000}?#\})[ \t]*\r?$",
    re.MULTILINE,
)
#: a Go template's action (Helm, Kubernetes operators' ``.tmpl``): a field (``.Values``), a variable, trimmed
#: whitespace or a control word (Jinja writes ``{% if %}`` and ``{{ name }}``)
_GO_ACTION = LazyRegex(r"\{\{-?[ \t]*(?:\.|\$|-|(?:if|else|end|range|with|include|template|define|toYaml|tpl)\b)")
#: an expression that is a whole plain value: after a key, a list's dash or the line's indent, before the line's end
#: or a comment
_WHOLE_VALUE = LazyRegex(
    r"(?P<before>^[ \t]*(?:-[ \t]+)?(?:[\w./\"'-]{1,253}:[ \t]+)?)(?P<expression>\{\{(?P<inner>[^{}\n]{1,500})\}\})"
    r"(?=[ \t]*(?:#[^\n]*)?\r?$)",
    re.MULTILINE,
)
#: what is left of a template after the above: any such mark means the text cannot be read in place
_LEFT = LazyRegex(r"\{%|\{#|%\}|#\}")


def masked_template(text: str) -> str | None:
    """The template with its statement lines blanked and its whole-value expressions quoted; None where a mark is
    left that could not be so read, or the text is a Go template (the caller keeps calling the file an unrendered
    template)."""
    if _GO_ACTION.search(text) is not None:
        return None
    blanked = _STATEMENT_LINE.sub(lambda line: re.sub(r"[^\r\n]", " ", line.group()), text)
    refused: list[str] = []
    quoted = _WHOLE_VALUE.sub(lambda found: _quoted(found, refused), blanked)
    if refused or _LEFT.search(quoted) is not None:
        return None
    return quoted


def _quoted(found: re.Match[str], refused: list[str]) -> str:
    """``{{ image }}`` as ``"{{image}}"``: the spaces inside pay for the quotes. An expression that holds quotes of
    both kinds, or has no spaces to spare, cannot be so written: it goes into ``refused``."""
    expression = found["expression"]
    inner = found["inner"].strip(" \t-")
    quote = '"' if '"' not in inner and "\\" not in inner else "'" if "'" not in inner else ""
    value = f"{quote}{{{{{inner}}}}}{quote}"
    if not quote or len(value) > len(expression):
        refused.append(expression)
        return found.group()
    return found["before"] + value.ljust(len(expression))
