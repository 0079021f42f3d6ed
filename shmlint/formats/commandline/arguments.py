"""A script's run of an image with only the script's own arguments (``docker run img "$@"``): run as it is written,
without arguments, nothing replaces the image's CMD, so the CMD is what starts (``Launch.forwarded``).

Only where the text says nothing else of its arguments: a script that defines functions (their own ``"$@"``),
sets or shifts its arguments (``set --``, ``shift``), counts or reads them (``$#``, ``$1``, ``getopts``) may never be
run without any, and a Makefile's ``$@`` is the target's name (not read here: only shell scripts are)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.model import Workload

#: the calling script's own arguments as one word, as the command reader hands a run's command on (``$`` escaped)
FORWARDED = frozenset({"\\$@", "\\${@}", "\\$*", "\\${*}"})
#: what a script that does more with its arguments than pass them on writes, or a function definition
_OWN_USE = LazyRegex(
    r"\$\{?#|\$\{?[1-9]|\bshift\b|\bgetopts?\b|\bset\s+--|^\s*(?:function\s+[\w.:-]+|[\w.:-]+\s*\(\s*\))",
    re.MULTILINE,
)


def with_forwarded(workloads: Sequence[Workload], script: str) -> list[Workload]:
    """The script's workloads, those whose command is only its own arguments marked ``forwarded`` when the script
    does nothing else with them."""
    marked = []
    plain: bool | None = None  # asked of the text once, and only when a run forwards
    for workload in workloads:
        launch = workload.launch
        forwards = launch is not None and not launch.entrypoint and bool(launch.arguments)
        if forwards and launch is not None and all(word in FORWARDED for word in launch.arguments):
            plain = _OWN_USE.search(script) is None if plain is None else plain
            if plain:
                workload = workload._replace(launch=launch._replace(forwarded=True))
        marked.append(workload)
    return marked
