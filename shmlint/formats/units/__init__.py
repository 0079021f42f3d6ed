"""systemd units that start containers (``ExecStart=docker run`` in a ``.service``: command lines) and Podman
Quadlet ``.container`` units (read as the ``podman run`` line Quadlet generates)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    if not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.dispatch import within_budget
    from shmlint.formats.units.extract import extract_unit

    within_budget(source)  # linear, but every key's value is tokenised as shell: 10 MB would take a minute
    return extract_unit(source, path, run.signals), []


FORMAT = Format(
    name="units",
    label="Quadlet",
    workload_format=WorkloadFormat.QUADLET,
    remedy="set ShmSize= in the [Container] section (e.g. ShmSize=8g)",
    fix_in_short="set ShmSize=",
    writer="shmlint.formats.units.edit",
    fixtures=("units/quadlet",),
    files=(FileNames(FileKind.UNIT, rank=80, endings=(".service", ".container")),),
    read=_read,
)
