"""Ansible playbooks and task files: the ``docker run``/``podman run`` lines of ``shell``/``command`` tasks and
the containers of ``docker_container``/``podman_container`` tasks."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import Format, YamlClaim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.parsers.yamlnodes import Node
    from shmlint.source import SourceText

#: a task calling a module shmlint reads: a container module, or a shell module given a string (on its line, a
#: block scalar, or ``cmd:``/``argv:``). A Kubernetes ``command:`` is a list (``[...]`` or items on the next lines), so a
#: manifest never imports this format
_MODULE_KEYS = LazyRegex(
    r"^[ \t-]*(?:[a-z_]+\.[a-z_]+\.)?(?:(?:docker|podman)_container[ \t]*:"
    r"|(?:shell|command|raw)[ \t]*:[ \t]*(?:[^\s\[#]|\n[ \t]+(?:cmd|argv)[ \t]*:))",
    re.MULTILINE,
)


def _detect(source: SourceText, documents: list[Node]) -> bool:
    from shmlint.parsers.yamlnodes import SequenceNode

    if len(documents) != 1 or not isinstance(documents[0], SequenceNode):
        return False  # a playbook and a task file are one list: anything else is answered without the reader
    from shmlint.formats.ansible.tasks import is_ansible

    return is_ansible(source.path, documents)


def _read(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    from shmlint.formats.ansible.extract import extract_ansible
    from shmlint.formats.ansible.variables import role_variables

    return extract_ansible(source, documents, run.signals, lambda: role_variables(os.fspath(path), run.files))


FORMAT = Format(
    name="ansible",
    label="Ansible",
    workload_format=WorkloadFormat.ANSIBLE,
    remedy="set shm_size in the task's docker_container/podman_container arguments (e.g. shm_size: 8g)",
    fix_in_short="set shm_size on the task",
    writer="shmlint.formats.ansible.edit",
    fixtures=("ansible",),
    fixes_in_blocks=True,
    yaml=YamlClaim(
        rank=60,
        detect=_detect,
        read=_read,
        words=("shell", "command", "raw", "_container"),
        marker=_MODULE_KEYS,
    ),
)
