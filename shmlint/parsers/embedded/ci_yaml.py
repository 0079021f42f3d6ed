"""The shell of CI YAML: GitHub Actions steps' ``run``, CircleCI steps' ``run`` and GitLab CI jobs' scripts."""

from __future__ import annotations

from collections.abc import Iterable

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, shell_reference
from shmlint.parsers.embedded.yaml_scalars import keep_scalar
from shmlint.parsers.programs import SHELLS
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar
from shmlint.source import SourceText

_GITLAB_SCRIPT_KEYS = ("before_script", "script", "after_script")
#: a CircleCI parameter, pipeline value or included file in a step's script (``<< parameters.image >>``,
#: ``<< include(run.sh) >>``), filled in before the shell reads it: to the shell ``<<`` would open a here-document
#: that hides every later line (audit71a)
_CIRCLECI_PARAMETER = LazyRegex(
    r"<<[ \t]{0,8}(?:(?:pipeline|parameters)\.[\w.-]{1,128}|include\([^()\n]{1,256}\))[ \t]{0,8}>>", 0, ("<<",)
)


def is_ci_yaml(documents: list[Node]) -> bool:
    """Whether the documents are a GitHub Actions workflow or composite action, a CircleCI config or a GitLab CI
    pipeline."""
    mappings = Mappings()
    return any(found for document in documents for found, _ in _readers(document, mappings))


def mask_ci_yaml(source: SourceText, documents: list[Node]) -> str | None:
    """The shell of GitHub Actions and CircleCI steps and GitLab CI scripts; None when the documents are none."""
    mappings = Mappings()
    scripts: list[ScalarNode] = []
    is_ci = False
    for document in documents:
        for found, nodes in _readers(document, mappings):
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
    masked = mask.result()
    for parameter in _CIRCLECI_PARAMETER.finditer(masked):  # not a here-document's ``<<``: a value CircleCI fills in
        mask.put(parameter.start(), shell_reference(parameter.group(0), parameter.end() - parameter.start()))
    return mask.result()


def _readers(document: Node, mappings: Mappings) -> tuple[tuple[bool, list[ScalarNode]], ...]:
    return _github_runs(document, mappings), _circleci_commands(document, mappings), _gitlab_scripts(document, mappings)


def _circleci_commands(document: Node, mappings: Mappings) -> tuple[bool, list[ScalarNode]]:
    """A CircleCI config's reusable ``commands.*.steps`` (its ``jobs.*.steps`` are read as a workflow's are):
    only in a document with CircleCI's ``version`` beside them."""
    commands = mappings.get(document, "commands")
    if mappings.get(document, "version") is None or not isinstance(commands, MappingNode):
        return False, []
    step_lists = [steps for _, command in commands.value if (steps := mappings.get(command, "steps")) is not None]
    return bool(step_lists), [run for steps in step_lists for run in step_runs(steps, mappings)]


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
    """The ``run`` scripts of a list of GitHub Actions or CircleCI steps that a POSIX shell runs (not
    ``pwsh``/``python``): GitHub's ``run: script`` beside ``shell``, CircleCI's ``run: script`` or ``run: {command:
    script, shell: ...}``, and those of CircleCI's conditional steps (``when``/``unless``: one level down)."""
    runs = []
    for step in steps.value if isinstance(steps, SequenceNode) else ():
        for key in ("when", "unless"):
            inner = mappings.get(mappings.get(step, key), "steps")
            runs += [
                run
                for nested in (inner.value if isinstance(inner, SequenceNode) else ())
                if (run := _run(nested, mappings))
            ]
        if (run := _run(step, mappings)) is not None:
            runs.append(run)
    return runs


def _run(step: Node, mappings: Mappings) -> ScalarNode | None:
    """One step's script, when a POSIX shell runs it."""
    run = mappings.get(step, "run")
    options = run if isinstance(run, MappingNode) else step  # CircleCI's long form holds its own shell
    if isinstance(run, MappingNode):
        run = mappings.get(run, "command")
    shell = (scalar(mappings.get(options, "shell")) or "bash").split()
    return run if isinstance(run, ScalarNode) and shell and shell[0].rsplit("/", 1)[-1] in SHELLS else None


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
