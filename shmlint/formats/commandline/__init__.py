"""``docker``/``podman`` run lines in shell scripts, Makefile recipes and Markdown/reStructuredText code blocks
(whose YAML blocks are read as the YAML formats' own files); also the judge of docker options that other formats
hold in their own syntax (``extract.command_workload``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, Sniff
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat
from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText

#: what a backslash escapes in a here-document the shell expands (``\\`` is read as a pair, so ``\\$X`` is a
#: backslash and an expansion)
_ESCAPE = LazyRegex(r"\\[\\$`\n]", 0, ("\\",))


class HereManifests(NamedTuple):
    """The here-documents of a text that hold manifests: the text as the shell passes them on, where they are,
    and where an escaping backslash (``\\$``) was read as ``$``."""

    text: str
    blocks: tuple[tuple[int, int], ...]
    escapes: tuple[int, ...]


_SHEBANG = LazyRegex(r"\A#!\s*(/usr/bin/env\s+(-S\s+)?)?(\S*/)?(ba|z|k|da)?sh\b", re.ASCII)


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """The file's code read as shell with every other character masked, so offsets are the file's own."""
    if not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.dispatch import HERE_DOCUMENT, commands, yaml_blocks
    from shmlint.parsers.embedded.makefile import mask_makefile
    from shmlint.parsers.embedded.markdown import markdown_shell_blocks, markdown_yaml_blocks
    from shmlint.parsers.embedded.rst import rst_shell_blocks, rst_yaml_blocks

    if kind is FileKind.SHELL:
        here = here_document_manifests(source.text)
        documents, notices = yaml_blocks(
            source.with_text(here.text), list(here.blocks), path, run, HERE_DOCUMENT, here.escapes
        )
        return commands(source, source.text, run.signals) + documents, notices
    if kind is FileKind.MAKEFILE:
        return commands(source, mask_makefile(source.text), run.signals), []
    markdown = kind is FileKind.MARKDOWN
    masked, shell_blocks = (markdown_shell_blocks if markdown else rst_shell_blocks)(source.text)
    workloads = commands(source, masked, run.signals, shell_blocks)
    blocks = (markdown_yaml_blocks if markdown else rst_yaml_blocks)(source.text)
    more, notices = yaml_blocks(source, blocks, path, run)
    here = here_document_manifests(source.text, masked)
    documents, document_notices = yaml_blocks(
        source.with_text(here.text), list(here.blocks), path, run, HERE_DOCUMENT, here.escapes
    )
    return workloads + more + documents, notices + document_notices


def here_document_manifests(text: str, shell: str | None = None) -> HereManifests:
    """The here-documents of shell code that hold a manifest (``kubectl apply -f - <<EOF``, ``cat > job.yaml
    <<EOF``): where they are, and the text with each as the shell passes it on, so that it reads as YAML where it
    is written. ``shell``: the text's shell code when not all of it is (a document's shell blocks, masked).

    One whose lines lose their leading tabs (``<<-``) and has any is not what the file shows, so it is left alone.
    In one the shell expands, ``\\$`` is an escaped ``$``: it becomes ``$$``, the same length, which Kubernetes
    (in ``command``/``args``) and compose read back as the one ``$`` the shell writes."""
    shell = text if shell is None else shell
    if "<<" not in shell:
        return HereManifests(text, (), ())
    from shmlint.extract.dispatch import looks_like_manifest
    from shmlint.parsers.shell import here_documents

    found = [
        body
        for body in here_documents(shell)
        if looks_like_manifest(body_text := shell[body.start : body.end])
        and not (body.strips_tabs and "\n\t" in "\n" + body_text)
    ]
    escapes = tuple(
        at.start()
        for body in found
        if body.expands
        for at in _ESCAPE.finditer(text, body.start, body.end)
        if at.group() == "\\$"
    )
    if escapes:
        chars = list(text)
        for offset in escapes:
            chars[offset] = "$"
        text = "".join(chars)
    return HereManifests(text, tuple((body.start, body.end) for body in found), escapes)


FORMAT = Format(
    name="commandline",
    label="command line",
    workload_format=WorkloadFormat.COMMAND,
    remedy="add --shm-size (e.g. --shm-size=8g)",
    fix_in_short="add --shm-size",
    writer="shmlint.formats.commandline.edit",
    fixtures=("shell", "markdown", "make", "docs/commands", "units/systemd"),
    files=(
        FileNames(FileKind.SHELL, rank=40, endings=(".sh", ".bash", ".zsh")),
        FileNames(FileKind.MAKEFILE, rank=50, names=("Makefile", "makefile", "GNUmakefile"), endings=(".mk",)),
        FileNames(FileKind.MARKDOWN, rank=60, endings=(".md", ".markdown", ".mdx", ".qmd")),
        FileNames(FileKind.RST, rank=70, endings=(".rst",)),
    ),
    sniffs=(Sniff(FileKind.SHELL, rank=10, pattern=_SHEBANG),),
    read=_read,
)
