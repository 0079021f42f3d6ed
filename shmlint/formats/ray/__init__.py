"""Ray cluster launcher YAML: the docker section of the cluster and of each node type."""

from __future__ import annotations

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

#: a Ray cluster launcher config names itself at the top level (and its cloud: ``detect`` checks both)
_RAY_CLUSTER_NAME = LazyRegex(r"^cluster_name[ \t]*:", re.MULTILINE)


def _detect(source: SourceText, documents: list[Node]) -> bool:
    from shmlint.formats.ray.extract import is_ray_cluster

    return is_ray_cluster(documents)


def _read(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    from shmlint.formats.ray.extract import extract_ray

    return extract_ray(source, documents, run.signals), []


FORMAT = Format(
    name="ray",
    label="Ray cluster",
    workload_format=WorkloadFormat.RAY,
    remedy="add --shm-size (e.g. --shm-size=8g) to docker.run_options",
    fix_in_short="add --shm-size to docker.run_options",
    writer="shmlint.formats.ray.edit",
    fixtures=("ray",),
    yaml=YamlClaim(rank=30, detect=_detect, read=_read, words=("cluster_name",), marker=_RAY_CLUSTER_NAME),
)
