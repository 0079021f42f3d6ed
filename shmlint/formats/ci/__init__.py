"""A CI job's own containers: GitHub Actions ``container``/``services`` (and the shell of every ``run:`` and GitLab
CI ``script:``, read as command lines) and Jenkins pipelines' docker agents."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, YamlClaim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.parsers.yamlnodes import Node
    from shmlint.source import SourceText

#: keys that hold shell in GitHub Actions and GitLab CI, and job containers' docker options; a file without any is
#: not CI YAML
_CI_KEYS = LazyRegex(r"^[ \t-]*(run|script|before_script|after_script|container|options)[ \t]*:", re.MULTILINE)
#: what every match of ``_CI_KEYS`` holds (a key, then a blank or its colon): a Kubernetes file's ``containers:``
#: and ``...-runtime`` image compile no pattern
_CI_WORDS = ("run:", "run ", "run\t", "container:", "container ", "container\t", "script", "options")


def _detect(source: SourceText, documents: list[Node]) -> bool:
    from shmlint.parsers.embedded.ci_yaml import is_ci_yaml

    return is_ci_yaml(documents)


def _read_yaml(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    from shmlint.extract.commandline import ShellText
    from shmlint.extract.dispatch import commands
    from shmlint.formats.ci.github_actions import github_job_containers
    from shmlint.formats.ci.vendored import nested_workflow
    from shmlint.model import Notice
    from shmlint.parsers.embedded.ci_yaml import mask_ci_yaml

    if (why := nested_workflow(source.path, run.files)) is not None:
        return [], [Notice(source.path, why)]
    masked = mask_ci_yaml(source, documents) or ""
    containers, notices = github_job_containers(source, documents, run.signals, masked)
    return commands(source, ShellText(masked, in_blocks=True), run.signals) + containers, notices  # block scalars


def _read_jenkinsfile(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    if not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.dispatch import within_budget
    from shmlint.formats.ci.jenkins import extract_jenkinsfile

    within_budget(source)
    return extract_jenkinsfile(source, run.signals), []


FORMAT = Format(
    name="ci",
    label="CI job container",
    workload_format=WorkloadFormat.CI_JOB,
    remedy="add --shm-size (e.g. --shm-size=8g) to the container's options (Jenkins: args)",
    fix_in_short="add --shm-size to its options",
    writer="shmlint.formats.commandline.edit",  # options and args are docker options, written in place
    fixtures=("ci-job",),
    files=(FileNames(FileKind.JENKINSFILE, rank=130, beginnings=("jenkinsfile",), endings=(".jenkinsfile",)),),
    read=_read_jenkinsfile,
    yaml=YamlClaim(rank=20, detect=_detect, read=_read_yaml, words=_CI_WORDS, marker=_CI_KEYS),
)
