"""Fixes for ECS/Batch container definitions: ``linuxParameters.sharedMemorySize`` added or resized (whole MiB).

JSON (and flow-style YAML) gets a JSON member, a CloudFormation block mapping a YAML key spelled as CloudFormation
spells it (``LinuxParameters: SharedMemorySize``).
"""

from __future__ import annotations

from shmlint.edits import jsonedit, yamledit
from shmlint.edits.yamledit import Block
from shmlint.formats.aws.extract import PascalKeys, is_function
from shmlint.formats.aws.target import AwsContainerTarget
from shmlint.model import Edit, Fix, FixAction, ShmMechanism, Workload
from shmlint.parsers.yamlnodes import MappingNode, Mappings, mappings_at
from shmlint.sizes import MIB
from shmlint.source import SourceText

_SIZED = (ShmMechanism.NAMESPACE_SIZE, ShmMechanism.TMPFS_OPTION)


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """A container that is not on Fargate, a size of whole MiB, and for a new size a number written in the file."""
    if not isinstance(workload.target, AwsContainerTarget) or not fix.size_bytes or fix.size_bytes < MIB:
        return False
    if fix.action is FixAction.ADD_SHM:
        return True
    declared = fix.source
    if fix.action is not FixAction.SET_SIZE or declared is None or declared.mechanism not in _SIZED:
        return False
    return declared.size is not None and declared.size.text.strip("\"'").isdigit()


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, AwsContainerTarget) or not fix.size_bytes:
        return []
    mib = str(fix.size_bytes // MIB)
    if fix.action is FixAction.SET_SIZE and fix.source is not None and fix.source.size is not None:
        span = fix.source.size.span
        return [Edit(span.start, span.end, mib)]
    if fix.action is not FixAction.ADD_SHM:
        return []
    container = mappings_at(source, (target.container_start,)).get(target.container_start)
    if container is None:
        return []
    m = PascalKeys() if target.pascal_case else Mappings()
    outer, inner = (
        ("LinuxParameters", "SharedMemorySize") if target.pascal_case else ("linuxParameters", "sharedMemorySize")
    )
    linux = m.get(container, "linuxParameters")
    if isinstance(linux, MappingNode) and not is_function(linux):
        return [_add(source, linux, inner, mib, None)]
    if linux is not None:  # null, a function or a list: nothing certain to write into
        return []
    return [_add(source, container, outer, f'{{"{inner}": {mib}}}', Block(((inner, mib),)))]


def _add(source: SourceText, mapping: MappingNode, key: str, flow: str, block: Block | None) -> Edit:
    if yamledit.is_flow(mapping) or not mapping.value:
        return jsonedit.add_member(source, mapping, key, flow)
    value: object = block if block is not None else flow
    return yamledit.add_key(source, mapping, key, value, yamledit.indent_step(mapping), 0)
