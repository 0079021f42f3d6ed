"""Azure Machine Learning job YAML: command, sweep and pipeline jobs."""

from __future__ import annotations

import re

from shmlint.format_descriptor import Format, YamlClaim, documents_reader, documents_test
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

#: what an Azure ML job says early on; other YAML never imports the extractor
_AZUREML = LazyRegex(r"^\$schema:.*azureml|azureml:", re.MULTILINE)


FORMAT = Format(
    name="azureml",
    label="Azure ML job",
    workload_format=WorkloadFormat.AZUREML,
    remedy="set resources.shm_size on the job (e.g. shm_size: 8g)",
    fix_in_short="set resources.shm_size",
    writer="shmlint.formats.azureml.edit",
    fixtures=("azureml",),
    yaml=YamlClaim(
        rank=50,
        detect=documents_test("shmlint.formats.azureml.extract", "is_azureml_job"),
        read=documents_reader("shmlint.formats.azureml.extract", "extract_azureml"),
        words=("azureml",),
        marker=_AZUREML,
    ),
)
