"""Which extractor reads a file: by its kind, and for YAML by its content (compose, CI, Kubernetes).

The cheapest parse that can answer is used: a file without any signal (see ``shmlint.prefilter``) can only be
reported for its syntax, so it is parsed for syntax alone, and no extractor is even imported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from shmlint.discover import (
    COMPOSE_DEFAULT_FILES,
    COMPOSE_OVERRIDE_FILES,
    FileKind,
    StrPath,
    chart_root,
    clean_path,
    has_helm_actions,
    has_template_marks,
    is_aws_json,
    is_compose_name,
    may_be_compose,
)
from shmlint.lazy_regex import LazyRegex
from shmlint.model import BlockTarget, Notice, PodTarget, ServiceTarget, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.prefilter import Prefilter
from shmlint.signals import Signals
from shmlint.source import SourceText, alone

if TYPE_CHECKING:
    from shmlint.extract.kserve import RuntimeIndex

ReadSource = Callable[[StrPath], "SourceText | None"]


class Extraction(NamedTuple):
    """What every file of one run is extracted with: built once by the engine, passed down as one value."""

    signals: Signals
    prefilter: Prefilter
    read_source: ReadSource  # another file of the project (compose overrides, ``extends``)
    runtimes: RuntimeIndex | None = None  # the KServe ServingRuntimes of every checked file


#: work budget of one file (with ``yamlnodes.MAX_EVENTS`` for YAML): any file under max-file-size is checked in a
#: few seconds and a few hundred MiB, or reported as too complex. No real file comes near either number.
MAX_WORKLOADS = 2_000
#: container engine words in a file's commands (code only, for Markdown and Makefiles): a bound on its run lines
MAX_ENGINE_WORDS = 5_000
#: YAML code blocks of one documentation file that are read (each is composed on its own)
MAX_YAML_BLOCKS = 200
#: shell words in a file's code: the tokenizer spends tens of microseconds a word (a 5 MB script of ``echo`` lines
#: took 96 s and 500 MiB, one 200,000-flag ``docker run`` 69 s and 1 GiB)
MAX_SHELL_WORDS = 100_000
_SHELL_WORD = LazyRegex(r"\S+")
_ENGINE_WORDS = LazyRegex(r"docker|podman|container_(?:engine|runtime|cli)", re.IGNORECASE)

#: keys that hold shell in GitHub Actions and GitLab CI, and job containers' docker options; a file without any is
#: not CI YAML. Each match holds one of the words (a key, then a blank or its colon): a Kubernetes file's
#: ``containers:`` and ``...-runtime`` image compile nothing
_CI_KEYS = LazyRegex(
    r"^[ \t-]*(run|script|before_script|after_script|container|options)[ \t]*:",
    re.MULTILINE,
    required=("run:", "run ", "run\t", "container:", "container ", "container\t", "script", "options"),
)


#: files that start one container of their own (dev containers, CI runners and agents): ``extract.job_containers``
_JOB_CONTAINER_KINDS = frozenset({FileKind.DEVCONTAINER, FileKind.GITLAB_RUNNER, FileKind.JENKINSFILE})


#: a Ray cluster launcher config names itself at the top level (and its cloud: ``extract.ray`` checks both)
_RAY_CLUSTER_NAME = LazyRegex(r"^cluster_name[ \t]*:", re.MULTILINE, required=("cluster_name",))


class UnparsableInput(Exception):
    """The file is not what its kind says (invalid YAML, a refused alias bomb); where, for an SHM000 finding."""

    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


def extract_file(
    source: SourceText, kind: FileKind, path: StrPath, run: Extraction
) -> tuple[list[Workload], list[Notice]]:
    """The workloads of one file and the notices about it; raises ``UnparsableInput``."""
    workloads, notices = _extract(source, kind, path, run)
    if len(workloads) > MAX_WORKLOADS:
        raise _too_complex(f"{len(workloads):,} workloads, above the limit of {MAX_WORKLOADS:,}")
    return workloads, notices


def _too_complex(why: str) -> UnparsableInput:
    return UnparsableInput(f"too complex to check: {why} (split the file)", 1, 1, 0)


def _extract(source: SourceText, kind: FileKind, path: StrPath, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    if kind is FileKind.YAML:
        return _yaml(source, path, run)
    if kind is FileKind.TERRAFORM:
        return _terraform(source, run)
    if kind is FileKind.PYTHON:
        return _launchers(source, run), []
    if kind is FileKind.JSON:
        return _json(source, run), []
    if kind in _JOB_CONTAINER_KINDS:
        from shmlint.extract.job_containers import InvalidFile, extract_job_containers

        try:
            return extract_job_containers(source, kind, path, run.signals, run.prefilter)
        except InvalidFile as exc:
            raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None
    if kind is FileKind.DOCKERFILE or not run.prefilter.passes(source.text):
        return [], []
    if kind is FileKind.UNIT:
        return _unit(source, path, run), []
    from shmlint.parsers import embedded

    masks: dict[FileKind, Callable[[str], str]] = {
        FileKind.SHELL: lambda text: text,
        FileKind.MAKEFILE: embedded.mask_makefile,
        FileKind.MARKDOWN: embedded.mask_markdown,
        FileKind.RST: embedded.mask_rst,
    }
    workloads = _commands(source, masks[kind](source.text), run.signals)
    if kind in (FileKind.MARKDOWN, FileKind.RST):
        blocks = (embedded.markdown_yaml_blocks if kind is FileKind.MARKDOWN else embedded.rst_yaml_blocks)(source.text)
        more, notices = _yaml_blocks(source, blocks, path, run)
        return workloads + more, notices
    return workloads, []


#: the most tokens (``parsers.work``) of a systemd or Quadlet unit: every key's value is tokenised as shell and
#: read as docker options (about 500 KB of ``PodmanArgs=`` lines, 2-3 s); real units are a few KB
MAX_UNIT_TOKENS = 200_000


def _unit(source: SourceText, path: StrPath, run: Extraction) -> list[Workload]:
    from shmlint.extract.units import extract_unit
    from shmlint.parsers.work import TOO_COMPLEX, beyond

    too_many = beyond(source.text, MAX_UNIT_TOKENS)
    if too_many is not None:  # linear, but 10 MB of keys would take a minute
        line, column = source.position(too_many)
        raise UnparsableInput(f"{TOO_COMPLEX} (more than {MAX_UNIT_TOKENS:,} tokens)", line, column, too_many)
    return extract_unit(source, path, run.signals)


def _yaml_blocks(
    source: SourceText, blocks: list[tuple[int, int]], path: StrPath, run: Extraction
) -> tuple[list[Workload], list[Notice]]:
    """The YAML code blocks of a documentation file, each judged as its own file would be (a GPU Deployment in a
    README is applied as it is): read alone with the file's offsets, its fix targets marked as inside the block.
    A block that does not parse is a snippet with placeholders more often than a manifest: a notice, not SHM000."""
    from shmlint.parsers.yamlnodes import YamlError, compose

    own_file = run._replace(read_source=lambda _: None)  # a block has no override or env file beside it
    workloads: list[Workload] = []
    notices: list[Notice] = []
    if len(blocks) > MAX_YAML_BLOCKS:
        notices.append(
            Notice(source.path, f"only the first {MAX_YAML_BLOCKS} of {len(blocks)} YAML code blocks checked")
        )
    for start, end in blocks[:MAX_YAML_BLOCKS]:
        block = source.text[start:end]
        if not run.prefilter.passes(block) or has_helm_actions(block):
            continue
        text = source.with_text(alone(source.text, start, end))
        try:
            documents = compose(text)
        except YamlError as exc:
            notices.append(Notice(source.path, f"line {exc.line}: YAML code block not checked: {exc.message}"))
            continue
        found, block_notices = _yaml_workloads(text, path, documents, own_file)
        notices += block_notices
        for workload in found:
            inner = workload.target
            if isinstance(inner, PodTarget | ServiceTarget):
                workload = workload._replace(target=BlockTarget(start, end, inner))
            workloads.append(workload)
    return workloads, notices


def _commands(source: SourceText, masked: str, signals: Signals) -> list[Workload]:
    """Container command lines, unless the text has more engine words than any real script (a bound on the
    work: each candidate line is tokenized and judged)."""
    from shmlint.extract.commandline import extract_commands

    if (
        sum(1 for _ in zip(_ENGINE_WORDS.finditer(masked), range(MAX_ENGINE_WORDS + 1), strict=False))
        > MAX_ENGINE_WORDS
    ):
        raise _too_complex(f"more than {MAX_ENGINE_WORDS:,} container engine commands")
    if sum(1 for _ in zip(_SHELL_WORD.finditer(masked), range(MAX_SHELL_WORDS + 1), strict=False)) > MAX_SHELL_WORDS:
        raise _too_complex(f"more than {MAX_SHELL_WORDS:,} shell words")
    return extract_commands(source, masked, signals)


#: a .tf file without these resource types holds no container, and is not parsed at all
_TERRAFORM_RESOURCES = LazyRegex(
    r"\b(?:kubernetes_(?:pod|deployment|job|stateful_set|daemon_set|cron_job|replication_controller)(?:_v1)?"
    r"|docker_container|aws_ecs_task_definition|aws_batch_job_definition)\b"
)
#: a .py file that imports none of these launches no container: an ordinary Python tree costs one search a file
_LAUNCHER_WORDS = ("metaflow", "kfp", "flytekit", "docker")
_PYTHON_LAUNCHERS = LazyRegex(r"^[ \t]*(?:from|import)[ \t]+(?:metaflow|kfp|flytekit|docker)\b", re.MULTILINE)


def _terraform(source: SourceText, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    """Terraform resources; the reader is imported only for a file that needs it."""
    # HCL parses slowly (about 2 ms a small file): a file that names no container resource, or holds none of
    # the signal words (no accelerator, no torch, no /dev/shm setting), cannot hold a finding and is not parsed.
    # Its syntax is Terraform's to judge (``terraform validate``), as for every .tf file shmlint does not read
    if _TERRAFORM_RESOURCES.search(source.text) is None or not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.terraform import extract_terraform
    from shmlint.parsers.hcl import HclError

    try:
        return extract_terraform(source, run.signals)
    except HclError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None


def _launchers(source: SourceText, run: Extraction) -> list[Workload]:
    """Python launcher calls; their reader is imported only for a file that needs it."""
    text = source.text
    if not any(word in text for word in _LAUNCHER_WORDS) or _PYTHON_LAUNCHERS.search(text) is None:
        return []  # substring tests first: a few microseconds on a module that names none of them
    from shmlint.extract.python_launchers import PythonError, extract_python

    try:
        return extract_python(source, run.signals)
    except PythonError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None


def _yaml(source: SourceText, path: StrPath, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    from shmlint.parsers.yamlnodes import TooComplex, YamlError, check_syntax, compose, key_problem

    if has_helm_actions(source.text) and _in_chart_templates(path):
        return [], [_template_notice(source, path)]
    wanted = run.prefilter.passes(source.text) or _has_override(path, run)
    try:
        if not wanted:  # no signal: the syntax is all that can be reported
            check_syntax(source)
            return [], []
        documents = compose(source)
    except TooComplex as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None
    except YamlError as exc:
        if has_template_marks(source.text):
            return [], [_template_notice(source, path)]
        raise UnparsableInput(f"invalid YAML: {exc.message}", exc.line, exc.column, exc.offset) from None
    if has_helm_actions(source.text) and key_problem(documents) is not None:
        # ``name: {{ .Values.x }}`` composes as a mapping used as a key, which no Kubernetes or compose reader
        # accepts: an unrendered template that happens to parse, not a manifest
        return [], [_template_notice(source, path)]
    return _yaml_workloads(source, path, documents, run)


def _yaml_workloads(
    source: SourceText, path: StrPath, documents: list, run: Extraction
) -> tuple[list[Workload], list[Notice]]:
    if may_be_compose(os.path.basename(path), source.text):
        from shmlint.extract import compose as compose_files

        if compose_files.is_compose(source.path, documents):
            from pathlib import Path  # compose files name others relative to their folder

            base_dir = Path(os.path.dirname(path) or ".")
            return compose_files.extract_compose(
                source, documents, run.signals, base_dir=base_dir, read_file=run.read_source
            )
    if _CI_KEYS.search(source.text):
        from shmlint.parsers.embedded import mask_ci_yaml

        ci_mask = mask_ci_yaml(source, documents)
        if ci_mask is not None:
            from shmlint.extract.github_actions import github_job_containers

            return _commands(source, ci_mask, run.signals) + github_job_containers(source, documents, run.signals), []
    if _RAY_CLUSTER_NAME.search(source.text):
        from shmlint.extract import ray

        if ray.is_ray_cluster(documents):
            return ray.extract_ray(source, documents, run.signals), []
    if _CLOUD_YAML.search(source.text):
        from shmlint.extract import aws, azureml

        if aws.is_cloudformation(documents):
            return aws.extract_aws(source, documents, run.signals), []
        if azureml.is_azureml_job(documents):
            return azureml.extract_azureml(source, documents, run.signals), []
    from shmlint.extract.kubernetes import extract_kubernetes, fragment

    objects, notices = [], []
    for document in documents:
        if (why := fragment(document)) is None:
            objects.append(document)
        else:
            line = document.start_mark.line + 1
            notices.append(Notice(source.path, f"line {line}: not judged: {why}; it is judged where it is completed"))
    return extract_kubernetes(source, objects, run.signals, run.runtimes), notices


#: what a CloudFormation template or an Azure ML job says early on; other YAML never imports their extractors
_CLOUD_YAML = LazyRegex(
    r"AWS::(?:ECS|Batch)::|^\$schema:.*azureml|azureml:", re.MULTILINE, required=("aws::", "azureml")
)


def _json(source: SourceText, run: Extraction) -> list[Workload]:
    """ECS/Batch definitions and CloudFormation templates; any other JSON file is not shmlint's to read."""
    if not is_aws_json(source.text):
        return []
    from shmlint.parsers.jsonnodes import check_json, compose_json
    from shmlint.parsers.yamlnodes import YamlError

    try:
        if not run.prefilter.passes(source.text):
            check_json(source)
            return []
        documents = compose_json(source)
    except YamlError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None
    from shmlint.extract.aws import extract_aws

    return extract_aws(source, documents, run.signals)


def _in_chart_templates(path: StrPath) -> bool:
    """A file under a Helm chart's ``templates/`` folder: not YAML until Helm renders it, whatever it parses as.
    Anywhere else, ``{{ }}`` inside valid YAML is content (KServe runtimes, compiled Argo workflows)."""
    chart = chart_root(path)
    return chart is not None and clean_path(path).startswith(clean_path(os.path.join(chart, "templates")) + os.sep)


def _has_override(path: StrPath, run: Extraction) -> bool:
    """A compose file merged with others (a default file with an override beside it, or a set the repository
    names): another file of the set may hold the signals, so the prefilter cannot skip it."""
    folder, name = os.path.split(path)
    if name in COMPOSE_DEFAULT_FILES and any(os.path.isfile(os.path.join(folder, n)) for n in COMPOSE_OVERRIDE_FILES):
        return True
    if not is_compose_name(name):
        return False
    from shmlint.extract.compose.file_sets import named_sets

    here = os.path.abspath(path)
    sets = named_sets(folder, run.read_source)
    return any(len(s.files) > 1 and here in map(os.path.abspath, s.files) for s in sets)


def _template_notice(source: SourceText, path: StrPath) -> Notice:
    chart = chart_root(path)
    if chart is not None:
        return Notice(
            str(chart),
            "Helm chart: its templates are not plain YAML, so they are not checked; lint the rendered output "
            f"with `helm template {chart} | shmlint check - --stdin-filename rendered.yaml`",
        )
    return Notice(
        source.path,
        "template (Helm/Jinja markers): not plain YAML, not checked; lint its rendered output instead",
    )
