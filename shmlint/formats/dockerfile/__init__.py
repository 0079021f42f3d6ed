"""Dockerfiles: what the formats that build an image read (compose ``build:``, a build of an image's name), and an
image's own start (its ``CMD``/``ENTRYPOINT``), judged as ``docker run IMAGE`` gives it /dev/shm in a repository that
starts no container itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    if run.starts != ():  # not looked for, or the repository starts its containers itself: judged there
        return [], []
    from shmlint.formats.dockerfile.extract import image_start

    found = image_start(source, path, run.signals)
    return ([found] if found is not None else []), []


FORMAT = Format(
    name="dockerfile",
    label="Dockerfile",
    workload_format=WorkloadFormat.DOCKERFILE,
    remedy="a Dockerfile cannot size /dev/shm: write how the image is run in the repository (a README's `docker run "
    "--shm-size=8g ...`, compose shm_size, a Memory emptyDir at /dev/shm), sized",
    fix_in_short="run it with --shm-size",
    writer="shmlint.formats.dockerfile.edit",
    fixtures=("dockerfile",),
    files=(
        FileNames(
            FileKind.DOCKERFILE,
            rank=90,
            names=("Dockerfile", "Containerfile", "dockerfile", "containerfile"),
            endings=(".dockerfile",),
            beginnings=("dockerfile.",),
        ),
    ),
    read=_read,
)
