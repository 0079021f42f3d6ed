"""Azure Machine Learning job YAML: command, sweep and pipeline jobs."""

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

#: what an Azure ML job says early on; other YAML never imports the extractor
_AZUREML = LazyRegex(r"^\$schema:.*azureml|azureml:", re.MULTILINE)


def _detect(source: SourceText, documents: list[Node]) -> bool:
    from shmlint.formats.azureml.extract import is_azureml_job

    return is_azureml_job(documents)


def _read(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    from shmlint.formats.azureml.extract import extract_azureml

    return extract_azureml(source, documents, run.signals), []


FORMAT = Format(
    name="azureml",
    label="Azure ML job",
    workload_format=WorkloadFormat.AZUREML,
    remedy="set resources.shm_size on the job (e.g. shm_size: 8g)",
    fix_in_short="set resources.shm_size",
    writer="shmlint.formats.azureml.edit",
    fixtures=("azureml",),
    yaml=YamlClaim(rank=50, detect=_detect, read=_read, words=("azureml",), marker=_AZUREML),
)
