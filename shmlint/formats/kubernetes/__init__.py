"""Kubernetes manifests (Deployments, Jobs, GPU CRDs, KServe, Kubeflow...): the YAML every other YAML format is
told apart from, and so the format that reads YAML files nothing else claims."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, Sniff, YamlClaim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Notice, WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.parsers.yamlnodes import Node
    from shmlint.source import SourceText


#: names of manifests kept as templates (envsubst, Jinja, Go templates), rendered before they are applied
TEMPLATE_ENDINGS = tuple(
    f".{yaml}{tail}"
    for yaml in ("yaml", "yml")
    for tail in (".template", "-template", ".tmpl", ".tpl", ".j2", ".jinja", ".jinja2")
)


def _syntax_error(source: SourceText, strict: bool) -> str | None:
    from shmlint.parsers.yamlnodes import compose, syntax_error

    return syntax_error(compose, source, strict)


def _any(source: SourceText, documents: list[Node]) -> bool:
    return True


def _read(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    """Each object that runs; a fragment (a container list without its pod) is a notice."""
    from shmlint.formats.kubernetes.extract import extract_kubernetes, fragment

    objects, notices = [], []
    for document in documents:
        if (why := fragment(document)) is None:
            objects.append(document)
        else:
            line = document.start_mark.line + 1
            notices.append(Notice(source.path, f"line {line}: not judged: {why}; it is judged where it is completed"))
    # envsubst fills a template's ${VAR}s, and the shell a here-document's (`oc process` an OpenShift Template's
    # objects: the extractor reads those as a template's)
    template = run.placeholders or os.path.basename(path).lower().endswith(TEMPLATE_ENDINGS)
    workloads, read = extract_kubernetes(
        source, objects, run.signals, run.runtimes, placeholders=template, embedded=run.embedded
    )
    return workloads, notices + read


FORMAT = Format(
    name="kubernetes",
    label="Kubernetes",
    workload_format=WorkloadFormat.KUBERNETES,
    remedy="mount an emptyDir with medium: Memory and a sizeLimit at /dev/shm",
    fix_in_short="mount a sized Memory emptyDir",
    writer="shmlint.formats.kubernetes.edit",
    fixtures=("k8s", "docs/k8s", "aws-eks"),
    files=(
        FileNames(FileKind.YAML, rank=10, endings=(".yaml", ".yml"), syntax_error=_syntax_error),
        FileNames(FileKind.YAML_TEMPLATE, rank=11, endings=TEMPLATE_ENDINGS, syntax_error=_syntax_error),
    ),
    sniffs=(Sniff(FileKind.YAML, rank=20, pattern=LazyRegex(r"^(apiVersion|kind):", re.MULTILINE)),),
    yaml=YamlClaim(rank=100, detect=_any, read=_read),
    declare_loader="the annotation shmlint.io/dataloader",
    fixes_in_blocks=True,
)
