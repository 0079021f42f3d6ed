"""Ray cluster launcher YAML: the docker section of the cluster and of each node type."""

from __future__ import annotations

import re

from shmlint.format_descriptor import Format, YamlClaim, documents_reader, documents_test
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

#: a Ray cluster launcher config names itself at the top level (and its cloud: ``detect`` checks both)
_RAY_CLUSTER_NAME = LazyRegex(r"^cluster_name[ \t]*:", re.MULTILINE)


FORMAT = Format(
    name="ray",
    label="Ray cluster",
    workload_format=WorkloadFormat.RAY,
    remedy="add --shm-size (e.g. --shm-size=8g) to docker.run_options",
    fix_in_short="add --shm-size to docker.run_options",
    writer="shmlint.formats.ray.edit",
    fixtures=("ray",),
    yaml=YamlClaim(
        rank=30,
        detect=documents_test("shmlint.formats.ray.extract", "is_ray_cluster"),
        read=documents_reader("shmlint.formats.ray.extract", "extract_ray"),
        words=("cluster_name",),
        marker=_RAY_CLUSTER_NAME,
    ),
)
