"""Which format reads a file: the one whose descriptor names its kind (``shmlint.formats``), and for YAML the first
whose claim takes its content (compose, CI, Ray, AWS, Azure ML, else Kubernetes).

The cheapest parse that can answer is used: a file without any signal (see ``shmlint.prefilter``) can only be
reported for its syntax, so it is parsed for syntax alone, and no extractor is even imported.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from shmlint.discover import (
    FileKind,
    StrPath,
    clean_path,
    has_helm_actions,
    has_substituted_lines,
    has_template_marks,
)
from shmlint.file_formats import describe, read_without_signal, reader, yaml_claim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import BlockTarget, Notice, Workload, WorkloadFormat
from shmlint.named_tuple import NamedTuple
from shmlint.prefilter import Prefilter
from shmlint.results import FileResult
from shmlint.signals import Signals
from shmlint.source import SourceText, alone

if TYPE_CHECKING:
    from shmlint.extract.commandline import ShellText
    from shmlint.project.index import ProjectFiles
    from shmlint.project.runtimes import RuntimeIndex


class Extraction(NamedTuple):
    """What every file of one run is extracted with: built once by the engine, passed down as one value."""

    signals: Signals
    prefilter: Prefilter
    files: ProjectFiles  # the files beside this one (compose overrides, ``extends``), from the run's ProjectIndex
    runtimes: RuntimeIndex | None = None  # the KServe ServingRuntimes of every checked file
    placeholders: bool = False  # the text is a template whose ``${VAR}`` are filled before it runs (envsubst, a
    # here-document the shell expands)
    embedded: bool = False  # the text is a block of another file (a document's code block, a here-document)
    starts: tuple[str, ...] | None = None  # where the repository starts a container (``ProjectIndex.starts``)


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
    if kind is FileKind.YAML_TEMPLATE:
        return _yaml_template(source, path, run)
    owner = reader(kind)
    if owner is None or owner.read is None:
        return [], []
    return owner.read(source, kind, path, run)


#: the most tokens (``parsers.work``) of a file parsed whole before it is read (a systemd or Quadlet unit, whose
#: every key is tokenised as shell; a runner's config.toml; a Jenkinsfile): about 1 MB, a second or two; 10 MB
#: took tomllib 16 s and 336 MB, the Groovy reader 26 s and 628 MB. Real ones are a few KB.
MAX_PARSE_TOKENS = 200_000


def within_budget(source: SourceText) -> None:
    """Raise ``UnparsableInput`` for a file with more tokens than ``MAX_PARSE_TOKENS``."""
    from shmlint.parsers.work import TOO_COMPLEX, beyond

    too_many = beyond(source.text, MAX_PARSE_TOKENS)
    if too_many is not None:
        line, column = source.position(too_many)
        raise UnparsableInput(f"{TOO_COMPLEX} (more than {MAX_PARSE_TOKENS:,} tokens)", line, column, too_many)


#: what ``yaml_blocks`` calls the pieces it reads, in its notices
CODE_BLOCK, HERE_DOCUMENT = "YAML code block", "here-document"


def yaml_blocks(
    source: SourceText,
    blocks: list[tuple[int, int]],
    path: StrPath,
    run: Extraction,
    what: str = CODE_BLOCK,
    escapes: tuple[int, ...] = (),
    templates: frozenset[int] = frozenset(),
) -> tuple[list[Workload], list[Notice]]:
    """The YAML code blocks of a documentation file, or the manifests a script's here-documents hold (``what``),
    each judged as its own file would be (a GPU Deployment in a README is applied as it is): read alone with the
    file's offsets, its fix targets marked as inside the block. A block that does not parse is a snippet with
    placeholders more often than a manifest: a notice, not SHM000. ``escapes``: where a here-document's ``\\$``
    was read as ``$$`` (``BlockTarget``); ``templates``: the starts of blocks whose ``${VAR}`` are values to come
    (a here-document the shell expands)."""
    from shmlint.parsers.yamlnodes import YamlError, compose
    from shmlint.project.index import ProjectFiles

    own_file = run._replace(files=ProjectFiles((), 0), embedded=True)  # a block has no override or env file beside it
    workloads: list[Workload] = []
    notices: list[Notice] = []
    if len(blocks) > MAX_YAML_BLOCKS:
        notices.append(Notice(source.path, f"only the first {MAX_YAML_BLOCKS} of {len(blocks)} {what}s checked"))
    for start, end in blocks[:MAX_YAML_BLOCKS]:
        block = source.text[start:end]
        if not run.prefilter.passes(block) or has_helm_actions(block):
            continue
        text = source.with_text(alone(source.text, start, end))
        try:
            documents = compose(text)
        except YamlError as exc:
            notices.append(Notice(source.path, f"line {exc.line}: {what} not checked: {exc.message}"))
            continue
        read = own_file._replace(placeholders=True) if start in templates else own_file
        found, block_notices = _yaml_workloads(text, path, documents, read)
        notices += block_notices
        for workload in found:
            inner = workload.target
            if inner is not None and describe(workload.format).fixes_in_blocks:
                inside = tuple(offset for offset in escapes if start <= offset < end)
                workload = workload._replace(target=BlockTarget(start, end, inner, inside))
            workloads.append(workload)
    return workloads, notices


def commands(source: SourceText, shell: ShellText, signals: Signals) -> list[Workload]:
    """Container command lines (``shmlint.extract.commandline``), unless the text has more engine words than any
    real script (a bound on the work: each candidate line is tokenized and judged)."""
    from shmlint.extract.commandline import extract_commands

    masked = shell.masked
    if (
        sum(1 for _ in zip(_ENGINE_WORDS.finditer(masked), range(MAX_ENGINE_WORDS + 1), strict=False))
        > MAX_ENGINE_WORDS
    ):
        raise _too_complex(f"more than {MAX_ENGINE_WORDS:,} container engine commands")
    if sum(1 for _ in zip(_SHELL_WORD.finditer(masked), range(MAX_SHELL_WORDS + 1), strict=False)) > MAX_SHELL_WORDS:
        raise _too_complex(f"more than {MAX_SHELL_WORDS:,} shell words")
    return extract_commands(source, shell, signals)


def _yaml(source: SourceText, path: StrPath, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    from shmlint.parsers.yamlnodes import Refused, TooComplex, YamlError, compose, key_problem

    if has_helm_actions(source.text) and _in_chart_templates(path, run):
        return [], [_template_notice(source, path, run)]
    try:
        if not _wanted(source, path, run):  # no signal: the syntax is all that can be said
            return [], _syntax_notices(source)
        documents = compose(source)
    except TooComplex as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None
    except YamlError as exc:
        refused = isinstance(exc, Refused)  # an alias bomb is refused for its shape, whatever the file is for
        if not refused and _template_not_yet_yaml(source.text):
            return _template(source, path, run)
        if not refused and (_is_conda_environment(source.text) or _is_mime(source.text)):
            where = f"line {exc.line}, column {exc.column}"
            kind = _CONDA if _is_conda_environment(source.text) else _MIME
            return [], [Notice(source.path, f"not valid YAML at {where} ({exc.message}); {kind}: not checked")]
        if not refused and not _may_hold_container(source.text):
            where = f"line {exc.line}, column {exc.column}"
            return [], [Notice(source.path, f"not valid YAML at {where} ({exc.message}); {_NO_CONTAINER}: not checked")]
        raise UnparsableInput(f"invalid YAML: {exc.message}", exc.line, exc.column, exc.offset) from None
    if has_template_marks(source.text) and key_problem(documents) is not None:
        # ``name: {{ .Values.x }}`` or Jinja's ``name: {{ name }}`` composes as a mapping used as a key, which no
        # Kubernetes or compose reader accepts: an unrendered template that happens to parse, not a manifest
        # (audit67b: a SeldonDeployment template a script renders with Jinja gave 26 SHM011 errors)
        return _template(source, path, run)
    return _yaml_workloads(source, path, documents, run)


def _template(source: SourceText, path: StrPath, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    """A Jinja template of Kubernetes manifests outside a Helm chart (``deployment.yaml.j2``, an Ansible role's): read
    as far as it is YAML with its statement lines blanked and its whole-value expressions quoted
    (``shmlint.parsers.template_mask``), and said so; a note that it was not checked where even that does not
    parse, for a Go template (Helm's actions), and for another format's template (compose reads a value to come as
    a literal size)."""
    from shmlint.parsers.template_mask import masked_template
    from shmlint.parsers.yamlnodes import YamlError, compose, key_problem

    masked = masked_template(source.text) if run.files.chart_of(path) is None else None
    if masked is None:
        return [], [_template_notice(source, path, run)]
    try:
        documents = compose(source._replace(text=masked))
    except YamlError:
        return [], [_template_notice(source, path, run)]
    if key_problem(documents) is not None:
        return [], [_template_notice(source, path, run)]
    workloads, notices = _yaml_workloads(source, path, documents, run)
    if any(workload.format is not WorkloadFormat.KUBERNETES for workload in workloads):
        # compose and the others read a value to come as a literal size (the review: SHM011 on ``shm_size: {{ x }}``)
        return [], [_template_notice(source, path, run)]
    said = (
        "Jinja template read as the YAML it renders to: its statement lines left out (every branch "
        "and one pass of each loop kept), the values its expressions fill unknown, no fix offered (where an edit "
        "lands among its branches is not known); lint its rendered output for an exact check"
    )
    return [workload._replace(target=None) for workload in workloads], [Notice(source.path, said), *notices]


def _wanted(source: SourceText, path: StrPath, run: Extraction) -> bool:
    """Whether the text may hold a workload finding: it has a signal, or its format reads it without one."""
    return run.prefilter.passes(source.text) or read_without_signal(path, run)


def _syntax_notices(source: SourceText) -> list[Notice]:
    """A file with no signal cannot hold a /dev/shm finding, so a syntax error in it hides none. One that does not
    even look like a manifest or a compose file (a KEP's metadata, an app's settings) is said in a note (never
    silent), not reported as SHM000, which would fail a /dev/shm gate for another linter's business. One that does
    (a Pod cut short) is SHM000 as any other, and so is a text refused for its shape (an alias bomb, deep nesting,
    too many nodes: ``Refused``, ``TooComplex``): what loads it next (kubectl, docker compose) fails or blows up."""
    from shmlint.parsers.yamlnodes import Refused, TooComplex, YamlError, check_syntax

    try:
        check_syntax(source)
    except (TooComplex, Refused):
        raise
    except YamlError as exc:
        if _may_run_containers(source.text):
            raise
        where = f"line {exc.line}, column {exc.column}"
        return [Notice(source.path, f"not valid YAML at {where} ({exc.message}); {_NO_SIGNAL}: not checked")]
    return []


#: compose's top-level keys that hold containers
_COMPOSE_KEY = LazyRegex(r"^(?:services|x-[\w.-]{1,64})[ \t]*:", re.MULTILINE)


#: a key that only a Kubernetes manifest or a container's spec has: ``apiVersion``/``kind`` at the top of a
#: document (an API schema's ``kind:`` property is nested: audit66a's OpenAPI file), ``containers``/``image`` at any
#: depth (a pod spec cut out of its manifest)
_RUNS_CONTAINERS_KEY = LazyRegex(
    r"^(?:-[ \t]+)?[\"']?(?:apiVersion|kind)[\"']?[ \t]*:|^[ \t-]{0,64}[\"']?(?:containers|image)[\"']?[ \t]*:",
    re.MULTILINE,
)


def _may_run_containers(text: str) -> bool:
    """Whether a YAML text looks like a manifest or a compose file: when it does not parse, its check is SHM000
    even with no signal word (what it meant to run is unknown); else a note (``_syntax_notices``)."""
    return _RUNS_CONTAINERS_KEY.search(text) is not None or _COMPOSE_KEY.search(text) is not None


#: a container engine named in a text (a CI job's or a playbook's ``docker run``), a /dev/shm setting (an AzureML
#: job's ``shm_size``) or a container's resource limits or requests (a pod spec's fragment): a text about containers
_CONTAINER_WORD = LazyRegex(
    r"\b(?:docker|podman|nerdctl|shm)|\b(?:limits|requests)[ \t]*:",
    re.IGNORECASE,
    ("docker", "podman", "nerdctl", "shm", "limits", "requests"),
)
_NO_CONTAINER = (
    "no container, image, resource limit, manifest or compose key, container engine or /dev/shm setting in it (it "
    "may name GPUs, but it starts no container), so it holds no workload finding"
)


def _may_hold_container(text: str) -> bool:
    """Whether a YAML text with a signal word could hold a container: a manifest's or compose file's keys, a
    container engine named (a CI job, a playbook), a /dev/shm setting or resource limits. A Hydra or launcher
    config that names GPUs (``gpus_per_node``) and does not parse starts nothing: a note, not SHM000 (audit55b:
    nine NeMo launcher configs failed a gate)."""
    return _may_run_containers(text) or _CONTAINER_WORD.search(text) is not None


def _template_not_yet_yaml(text: str) -> bool:
    """Whether a text that does not parse is a template (Helm, Jinja or Terraform markers, or envsubst's lines of
    YAML to come) rather than broken YAML."""
    return has_template_marks(text) or has_substituted_lines(text)


def broken_is_shm000(source: SourceText, path: StrPath, run: Extraction) -> bool:
    """Whether a YAML file that does not parse is SHM000 (what ``_yaml`` reports for it), not a note: it may hold a
    workload finding, or looks like a manifest or a compose file, and is neither a template nor a conda
    environment file (those are notes there). A failed render blames such a file only."""
    if _template_not_yet_yaml(source.text) or _is_conda_environment(source.text) or _is_mime(source.text):
        return False
    if not _may_hold_container(source.text):
        return False
    return _wanted(source, path, run) or _may_run_containers(source.text)


#: the top-level keys of a conda environment file (conda's ``environment.yml``: what to install, no container)
_CONDA_KEYS = frozenset({"name", "channels", "dependencies", "prefix", "variables", "platforms"})
_TOP_KEY = LazyRegex(r"^([A-Za-z_][\w.-]{0,63})[ \t]*:", re.MULTILINE)
_CONDA = "a conda environment file (packages to install; it starts no container), so it holds no workload finding"


def _is_conda_environment(text: str) -> bool:
    """Whether a YAML text is a conda environment file: its top-level keys are conda's, ``dependencies`` among them.
    A package it lists (torch, cudatoolkit) is a signal word, but what it lists is installed, not run: its syntax
    error is a note, not SHM000 (found on an untuned repository, audit51a: a conda file failed the gate)."""
    keys = {found.group(1) for found in _TOP_KEY.finditer(text[:_CONDA_READ])}
    return "dependencies" in keys and keys <= _CONDA_KEYS


#: characters of a text read for its top-level keys: a conda file is short
_CONDA_READ = 64 * 1024
#: a MIME message's first header (a node's cloud-init user data, named ``.yaml`` for the template that fills it)
_MIME_START = LazyRegex(r"\A\s{0,64}(?:MIME-Version:|Content-Type:[ \t]*multipart/)", re.IGNORECASE)
_MIME = (
    "a MIME document (a machine's cloud-init user data; it starts no container itself), so it holds no workload finding"
)


def _is_mime(text: str) -> bool:
    """Whether a text that does not parse as YAML is a MIME message (audit90c: a GPU node group's
    ``userdata-nodeadm.yaml``, which Terraform's ``templatefile`` fills, failed the gate as SHM000)."""
    return _MIME_START.match(text) is not None


#: why a file with no signal that does not parse is no SHM000
_NO_SIGNAL = "no GPU, torch or /dev/shm word in it, so it holds no workload finding"


def _yaml_template(source: SourceText, path: StrPath, run: Extraction) -> tuple[list[Workload], list[Notice]]:
    """A manifest named as a template: plain YAML with placeholders (``${VAR}``, which envsubst fills) is read as
    the YAML it is, its placeholders as values to come (``PodReader``); one with template actions (``{{ }}``,
    ``{% %}``) is read as far as it is YAML without them (``_template``), and the report says so when it looks like
    a manifest (its rendered output is what runs); any other template (an Ansible role's prometheus.yml.j2) is
    passed over as YAML without a workload is."""
    manifest = looks_like_manifest(source.text)
    if has_template_marks(source.text):
        return _template(source, path, run) if manifest else ([], [])
    if not manifest and not _wanted(source, path, run):
        return [], []  # nothing to render a workload from, valid or not
    try:
        return _yaml(source, path, run)
    except UnparsableInput as exc:
        return [], list(_not_checked(source.path, source.text, f"{exc.message}, line {exc.line}"))


#: a key that only a Kubernetes manifest or a container's spec has, at the start of a line
_MANIFEST_KEY = LazyRegex(r"^[ \t-]{0,64}[\"']?(?:apiVersion|kind|containers|image)[\"']?[ \t]*:", re.MULTILINE)


def looks_like_manifest(text: str) -> bool:
    """Whether a template could render a workload: it has ``apiVersion:``, ``kind:``, ``containers:`` or
    ``image:`` keys."""
    return _MANIFEST_KEY.search(text) is not None


def not_text(kind: FileKind, path: str, data: bytes | str | None, why: str) -> FileResult | None:
    """The result of a file named as a template that is not text (binary, not its encoding): rendering makes it what
    runs, so it is not checked, as one that does not parse; None for any other kind, or a file that could not be
    read (``data`` None): SHM000 for the caller."""
    if kind is not FileKind.YAML_TEMPLATE or data is None:
        return None
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    return FileResult(path, notices=_not_checked(path, text, why))


def _not_checked(path: str, text: str, why: str) -> tuple[Notice, ...]:
    if not looks_like_manifest(text):
        return ()
    return (Notice(path, f"a template that is not plain YAML ({why}), not checked; lint its rendered output instead"),)


def _yaml_workloads(
    source: SourceText, path: StrPath, documents: list, run: Extraction
) -> tuple[list[Workload], list[Notice]]:
    """The workloads of the first format whose claim takes the documents (Kubernetes takes any YAML)."""
    for claim in yaml_claim(os.path.basename(path), source.text):
        if claim.detect(source, documents):
            return claim.read(source, documents, path, run)
    return [], []


def _in_chart_templates(path: StrPath, run: Extraction) -> bool:
    """A file under a Helm chart's ``templates/`` folder: not YAML until Helm renders it, whatever it parses as.
    Anywhere else, ``{{ }}`` inside valid YAML is content (KServe runtimes, compiled Argo workflows)."""
    chart = run.files.chart_of(path)
    return chart is not None and clean_path(path).startswith(clean_path(os.path.join(chart, "templates")) + os.sep)


def _template_notice(source: SourceText, path: StrPath, run: Extraction) -> Notice:
    chart = run.files.chart_of(path)
    if chart is not None:
        return Notice(
            str(chart),
            "Helm chart: its templates are not plain YAML, so they are not checked; lint the rendered output "
            f"with `helm template {chart} | shmlint check - --stdin-filename rendered.yaml`",
        )
    return Notice(
        source.path,
        "template (Helm, Jinja, Terraform or envsubst markers): not plain YAML, not checked; lint its rendered "
        "output instead",
    )
