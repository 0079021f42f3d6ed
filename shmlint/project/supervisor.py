"""What supervisord starts: the ``command`` of each ``[program:x]`` of its configuration, each a program of the same
container (audit79a: an image whose CMD is ``supervisord -c /etc/supervisor/supervisord.conf`` runs a training UI,
ComfyUI and a notebook side by side; the container was "need unknown" because the programs were not read).

Read as supervisord reads it (http://supervisord.org/configuration.html): an INI file whose values may go on over
indented lines, comments after ``;`` or ``#`` at a line's start or after a blank inside one, ``%(ENV_X)s``,
``%(here)s`` and ``%(program_name)s`` expanded, the command split as ``shlex`` splits it (supervisord runs it
without a shell). A program with ``autostart=false`` does not start with the container. Bounded: the first
``MAX_PROGRAMS`` programs, commands of at most ``MAX_COMMAND`` characters.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping

from shmlint.named_tuple import NamedTuple
from shmlint.project.launchers import UNKNOWN

MAX_PROGRAMS = 32
MAX_COMMAND = 8192
#: where supervisord looks for its configuration when ``-c`` names none, in its order (container paths; the first
#: two are relative to its working folder)
DEFAULT_CONFIGS = (
    "supervisord.conf",
    "etc/supervisord.conf",
    "/etc/supervisord.conf",
    "/etc/supervisor/supervisord.conf",
)
#: the folder Debian's and Ubuntu's package includes (``files = /etc/supervisor/conf.d/*.conf``), where images
#: copy their programs when they keep the package's own configuration
PACKAGE_INCLUDES = "/etc/supervisor/conf.d/*.conf"
_SECTION = re.compile(r"^\[(?P<name>[^\]\n]{1,200})\][ \t]*$")
_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]{0,63})[ \t]*[=:][ \t]*(?P<value>.*)$")
_EXPANSION = re.compile(r"%\((?P<name>[A-Za-z_][\w.-]{0,63})\)[sd]")
_FALSE = frozenset({"false", "no", "off", "0"})
#: an inline comment: ``;`` or ``#`` after a blank (supervisor's parser: ``inline_comment_prefixes=(";", "#")``)
_INLINE_COMMENT = re.compile(r"[ \t][;#]")


class Program(NamedTuple):
    """One program supervisord starts: its section's first line and its command's words."""

    line: int
    argv: tuple[str, ...]


def sections(text: str) -> list[tuple[str, int, dict[str, str]]]:
    """Each section of the INI text: its name, its 1-based line and its keys (values joined over their
    continuation lines, comments dropped)."""
    found: list[tuple[str, int, dict[str, str]]] = []
    key = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = _INLINE_COMMENT.split(raw, 1)[0].rstrip()
        stripped = line.strip()
        if not stripped or stripped[0] in ";#":
            continue
        section = _SECTION.match(stripped) if not raw[:1].isspace() else None
        if section is not None:
            found.append((section["name"].strip(), number, {}))
            key = ""
            continue
        if not found:
            continue
        keys = found[-1][2]
        if raw[:1].isspace() and key:  # a value that goes on
            keys[key] = f"{keys[key]} {stripped}"[: MAX_COMMAND + 1]
            continue
        pair = _KEY.match(stripped)
        if pair is not None:
            key = pair["key"].lower()
            keys[key] = pair["value"].strip()[: MAX_COMMAND + 1]
    return found


def programs(text: str, here: str, env: Mapping[str, str]) -> tuple[list[Program], bool]:
    """The programs the configuration starts with the container, and whether any could not be read (a command
    too long or that ``shlex`` refuses)."""
    started: list[Program] = []
    unread = False
    for name, line, keys in sections(text):
        if not name.startswith("program:") or "command" not in keys or len(started) >= MAX_PROGRAMS:
            continue
        if keys.get("autostart", "true").lower() in _FALSE:
            continue
        command = keys["command"]
        values = {"here": here, "program_name": name.partition(":")[2].strip()}
        values |= {f"ENV_{key}": value for key, value in env.items()}
        expanded = _expanded(command, values)
        try:
            argv = shlex.split(expanded) if len(expanded) <= MAX_COMMAND else None
        except ValueError:
            argv = None
        if not argv:
            unread = True
            continue
        started.append(Program(line, tuple(argv)))
    return started, unread


def includes(text: str, here: str) -> list[str]:
    """The patterns of the ``[include]`` section's ``files``, as container paths."""
    patterns: list[str] = []
    for name, _, keys in sections(text):
        if name == "include" and "files" in keys:
            patterns += [posixpath.join(here, pattern) for pattern in keys["files"].split()]
    return patterns


def _expanded(command: str, values: Mapping[str, str]) -> str:
    """``%(name)s`` replaced by its value, or marked unknown."""
    return _EXPANSION.sub(lambda found: values.get(found["name"], f"{UNKNOWN}{found['name']}"), command)
