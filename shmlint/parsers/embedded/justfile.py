"""The shell of a justfile (https://just.systems/man/en/): its recipes' lines, with ``{{ name }}`` read as the
shell's ``${name}``, and the values its own assignments give its variables.

A recipe is a header at the start of a line (``train epochs="10": build``), its body the indented lines below it;
``@`` (quiet) and ``-`` (errors ignored) in front of a body line are just's, not the shell's. A body that starts
with a shebang other than a POSIX shell's is another language's script and is not read. Every other line (settings,
assignments, aliases, attributes, comments) is just's own.
"""

from __future__ import annotations

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, offset_lines, shell_reference

#: a recipe's header: an optional ``@``, its name, parameters, then ``:`` not followed by ``=`` (an assignment)
_HEADER = LazyRegex(r"@?[A-Za-z_][\w-]{0,127}(?:[ \t][^:\n]{0,1024})?:(?!=)")
#: a body line's prefixes that just reads: ``@`` echoes nothing, ``-`` goes on after a failure
_BODY_PREFIX = LazyRegex(r"[ \t]+[@-]{0,2}")
#: a shebang recipe run by a POSIX shell (its lines are still shell)
_SHELL_SHEBANG = LazyRegex(r"#![ \t]*(?:\S{0,256}/env[ \t]+(?:-S[ \t]+)?|\S{0,256}/)(?:ba|z|da|k)?sh(?:[ \t]|$)")
#: an interpolation; its expression is a variable's name, or something just computes (read as unknown)
_INTERPOLATION = LazyRegex(r"\{\{(?!\{)(.{0,512}?)\}\}", 0, ("{{",))
#: a top-level assignment of a string literal: ``[export] name := "value"`` (a backtick's output is not known here)
_ASSIGNMENT = LazyRegex(
    r"(?:export[ \t]+)?([A-Za-z_][\w-]{0,63})[ \t]*:=[ \t]*(\"[^\"\n]{0,1024}\"|'[^'\n]{0,1024}')[ \t]*"
)
#: assignments read
MAX_ASSIGNMENTS = 1024


def mask_justfile(text: str) -> str:
    """Recipe bodies as shell, with the file's offsets: each ``{{ expr }}`` written as ``${name}`` in the same
    characters (``mask.shell_reference``)."""
    mask = Mask(text)
    in_recipe = script = continued = False
    first = True
    for offset, line in offset_lines(text):
        if line[:1] in (" ", "\t"):
            if not in_recipe or not line.strip():
                continue
            if first and line.lstrip().startswith("#!"):
                script = _SHELL_SHEBANG.match(line.strip()) is None  # another language's script: not shell
            first = False
            if script:
                continue
            prefix = None if continued else _BODY_PREFIX.match(line)  # a continued line's ``-`` is an option's
            start = offset + (prefix.end() if prefix else 0)
            mask.keep(start, offset + len(line))
            continued = line.rstrip("\r").endswith("\\")
            for found in _INTERPOLATION.finditer(line, start - offset):
                mask.put(offset + found.start(), shell_reference(found.group(1), found.end() - found.start()))
        elif line.strip() and not line.startswith(("#", "[")):
            in_recipe = _HEADER.match(line) is not None
            first, script, continued = True, False, False
    return mask.result()


def just_assignments(text: str) -> dict[str, tuple[str, ...]]:
    """The string values the file's top-level assignments give its variables (the last one wins, as just allows
    one only with ``set allow-duplicate-variables``); any other value (a backtick, a function, a concatenation) is
    left out: what it holds is not known here."""
    values: dict[str, tuple[str, ...]] = {}
    for count, (_, line) in enumerate(offset_lines(text)):
        if count >= MAX_ASSIGNMENTS * 8:
            break
        found = _ASSIGNMENT.fullmatch(line.rstrip("\r"))
        if found is not None and line[:1] not in (" ", "\t"):
            values[found.group(1).replace("-", "_")] = (found.group(2)[1:-1],)
            if len(values) >= MAX_ASSIGNMENTS:
                break
    return values
