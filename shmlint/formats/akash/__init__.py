"""Akash Network SDL: the services a deployment places on a provider, with the compute profile each one gets."""

from __future__ import annotations

import re

from shmlint.format_descriptor import Format, YamlClaim, documents_reader, documents_test
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

#: an SDL places its services at the top level, beside its profiles (``detect`` checks all of its sections)
_DEPLOYMENT = LazyRegex(r"^deployment[ \t]*:", re.MULTILINE)


FORMAT = Format(
    name="akash",
    label="Akash SDL",
    workload_format=WorkloadFormat.AKASH,
    remedy="mount a ram-class storage volume at /dev/shm (params.storage.<name>.mount, with a profile storage entry "
    "of class ram)",
    fix_in_short="mount a ram volume at /dev/shm",
    writer="shmlint.formats.akash.edit",
    fixtures=("akash",),
    yaml=YamlClaim(
        rank=5,  # before compose: an SDL's ``services`` are not compose services
        detect=documents_test("shmlint.formats.akash.extract", "is_akash_sdl"),
        read=documents_reader("shmlint.formats.akash.extract", "extract_akash"),
        words=("deployment",),
        marker=_DEPLOYMENT,
    ),
)
