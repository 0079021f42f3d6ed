"""The shell of CI YAML: GitHub Actions steps' ``run`` and GitLab CI jobs' scripts."""

from __future__ import annotations

from collections.abc import Iterable

from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.embedded.yaml_scalars import keep_scalar
from shmlint.parsers.programs import SHELLS
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar
from shmlint.source import SourceText

_GITLAB_SCRIPT_KEYS = ("before_script", "script", "after_script")


def is_ci_yaml(documents: list[Node]) -> bool:
    """Whether the documents are a GitHub Actions workflow or composite action, or a GitLab CI pipeline."""
    mappings = Mappings()
    return any(
        found
        for document in documents
        for found, _ in (_github_runs(document, mappings), _gitlab_scripts(document, mappings))
    )


def mask_ci_yaml(source: SourceText, documents: list[Node]) -> str | None:
    """The shell of GitHub Actions steps and GitLab CI scripts; None when the documents are neither."""
    mappings = Mappings()
    scripts: list[ScalarNode] = []
    is_ci = False
    for document in documents:
        for found, nodes in (_github_runs(document, mappings), _gitlab_scripts(document, mappings)):
            is_ci = is_ci or found
            scripts.extend(nodes)
    if not is_ci:
        return None
    mask = Mask(source.text)
    seen: set[int] = set()
    for node in scripts:
        if node.start_mark.index not in seen:  # an alias repeats a node; its text is in the file once
            seen.add(node.start_mark.index)
            keep_scalar(mask, node)
    return mask.result()


def _github_runs(document: Node, mappings: Mappings) -> tuple[bool, list[ScalarNode]]:
    """``jobs.*.steps[].run`` of a workflow and ``runs.steps[].run`` of a composite action."""
    step_lists: list[Node | None] = []
    jobs = mappings.get(document, "jobs")
    workflow = isinstance(jobs, MappingNode) and any(
        isinstance(job, MappingNode) and any(key in mappings.items(job) for key in ("steps", "runs-on", "uses"))
        for _, job in jobs.value
    )
    if workflow:
        step_lists.extend(mappings.get(job, "steps") for _, job in jobs.value)  # type: ignore[union-attr]
    composite = mappings.path(document, "runs", "steps")
    if isinstance(composite, SequenceNode):
        step_lists.append(composite)
    return bool(step_lists), [run for steps in step_lists for run in step_runs(steps, mappings)]


def step_runs(steps: Node | None, mappings: Mappings) -> list[ScalarNode]:
    """The ``run`` scripts of a list of GitHub Actions steps that a POSIX shell runs (not ``pwsh``/``python``)."""
    runs = []
    for step in steps.value if isinstance(steps, SequenceNode) else ():
        shell = (scalar(mappings.get(step, "shell")) or "bash").split()
        run = mappings.get(step, "run")
        if isinstance(run, ScalarNode) and shell and shell[0].rsplit("/", 1)[-1] in SHELLS:
            runs.append(run)
    return runs


def _gitlab_scripts(document: Node, mappings: Mappings) -> tuple[bool, list[ScalarNode]]:
    """``script``, ``before_script`` and ``after_script`` of every top-level job (and ``default``)."""
    found = False
    scripts: list[ScalarNode] = []
    for name, (_, job) in mappings.items(document).items():
        for key in _GITLAB_SCRIPT_KEYS:
            value = mappings.get(job, key)
            if value is not None and name not in ("variables", "workflow", "include"):
                found = True
                scripts.extend(_scalars(value))
    return found, scripts


def _scalars(node: Node) -> Iterable[ScalarNode]:
    """The scalars of a script: one string, or a list of them (nested lists from anchors are flattened)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ScalarNode):
            yield current
        elif isinstance(current, SequenceNode):
            stack.extend(reversed(current.value))
