"""Dev containers (``devcontainer.json``): the container the dev container CLI or VS Code starts.

``runArgs`` are docker options passed as they are, ``containerEnv`` and string ``mounts`` become ``--env`` and
``--mount`` options, and ``hostRequirements.gpu`` (``true``, ``"optional"`` or an object) makes the CLI add
``--gpus all`` on a host with a GPU. A compose-based dev container (``dockerComposeFile`` and ``service``) runs a
compose service instead, and its ``runArgs`` are ignored: that service is judged with its compose file, with the
GPU reservation ``hostRequirements.gpu`` makes the CLI add (``shmlint.formats.compose.devcontainer``).
"""

from __future__ import annotations

import functools
import os

from shmlint.discover import StrPath, clean_path
from shmlint.extract.commandline import CommandTarget
from shmlint.extract.docker_options import env_flag, options_workload
from shmlint.formats.compose.devcontainer import wants_gpu
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, Notice, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.container_options import Flag
from shmlint.parsers.embedded.json_shell import as_shell
from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.jsonc import JArray, JNode, JObject, JScalar, JString, parse
from shmlint.parsers.shell import Word, commands
from shmlint.parsers.typed import StepShell, Typed, steps_session
from shmlint.signals import Signals
from shmlint.source import SourceText

_VARIABLE = "${"
_BETWEEN = '", "'  # between two options written in one edit: each is its own item  # ${localEnv:X}, ${containerWorkspaceFolder}: substituted by the CLI


def extract_devcontainer(source: SourceText, path: StrPath, signals: Signals) -> tuple[list[Workload], list[Notice]]:
    """The dev container's workload (none for a compose-based one: a notice says where it is judged);
    raises ``JsoncError``."""
    root = parse(source.text)
    if not isinstance(root, JObject):
        return [], []
    compose = root.get("dockerComposeFile")
    if compose is not None:
        return [], [_compose_notice(source, root, compose)]
    run_args = root.get("runArgs")
    items = run_args.items if isinstance(run_args, JArray) else ()
    words = [_word(item) for item in items if isinstance(item, JString)]
    name = root.get("name")
    label = name.value if isinstance(name, JString) else os.path.basename(os.path.dirname(clean_path(path)))
    image = root.get("image")
    judged = functools.partial(  # the container as the tools start it, and with its lifecycle commands run in it
        options_workload,
        source,
        signals,
        id=WorkloadId(WorkloadFormat.DEVCONTAINER, "devcontainer", label, container_kind="container"),
        span=source.span(*_anchor(root)),
        words=words,
        image=_word(image) if isinstance(image, JString) else None,
        extra=(*_env(root.get("containerEnv")), *_mounts(root.get("mounts"))),
        gpu=_host_gpu(source, root),
        target=_target(source, root, run_args),
    )
    workload = judged()
    override = root.get("overrideCommand")
    waits = not (isinstance(override, JScalar) and override.value is False)  # the tools start a wait, not the image's
    if waits:
        workload = workload._replace(command=" ".join(WAITING))
    if workload.launch is not None:
        workload = workload._replace(launch=_launch(workload.launch, root, clean_path(path), waits=waits))
    typed = _lifecycle(source, root)
    if typed is not None and workload.launch is not None and workload.gpu:
        steps = judged(typed=typed)
        if steps.launch is not None:
            launch = _launch(steps.launch, root, clean_path(path), waits=False)
            home = next((point for point, _ in launch.mounts[len(steps.launch.mounts) :]), "")
            steps = steps._replace(launch=launch._replace(working_dir=launch.working_dir or home))
            workload = workload._replace(later_steps=steps)  # what the tools run in it: it may only add
    return [workload], []


#: the commands the dev container tools run inside the container as they create, start and attach to it (an
#: ``initializeCommand`` runs on the host); https://containers.dev/implementors/json_reference/#lifecycle-scripts
_LIFECYCLE = ("onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand", "postAttachCommand")
#: how they are said in messages
LIFECYCLE = "the dev container's lifecycle commands"


def _lifecycle(source: SourceText, root: JObject) -> Typed | None:
    """The lifecycle commands the tools run in the container, in the order they run them (audit88c: a
    ``postCreateCommand`` that fine-tunes on eight GPUs): each a string the shell runs, an array run as it is
    (its words written where the file has them), or an object of such commands run side by side; read as a job's
    steps are, each command where the file writes it (a JSON string decoded in place)."""
    mask = Mask(source.text)
    ranges: list[tuple[int, int]] = []
    for key in _LIFECYCLE:
        node = root.get(key)
        for value in [v for _, v in node.members] if isinstance(node, JObject) else [node]:
            strings = [value] if isinstance(value, JString) else value.items if isinstance(value, JArray) else ()
            written = [item for item in strings if isinstance(item, JString)]
            for item in written:
                mask.put(item.start + 1, as_shell(source.text[item.start + 1 : item.end - 1]).text)
            if written:  # the last closing quote ends the command: the next one written on its line is another
                ranges.append((written[0].start, written[-1].end))
                mask.put(written[-1].end - 1, ";")
    if not ranges:
        return None
    masked = mask.result()
    typed = steps_session(StepShell(commands(masked)), ranges, masked)
    return typed._replace(how=LIFECYCLE) if typed is not None else None


#: the command the dev container tools start in place of the image's (``overrideCommand``, true unless a compose
#: file runs it; the JSON reference's words): the container waits while people work in it
WAITING = ("/bin/sh", "-c", "while sleep 1000; do :; done")


def _launch(launch: Launch, root: JObject, path: str, *, waits: bool) -> Launch:
    """What the tools start, for the walk into the repository: the image ``build`` makes (``dockerfile`` and
    ``context``, relative to the file; the older top-level ``dockerFile``), the waiting command where the tools
    start it (``waits``: ``overrideCommand`` is not false), and the workspace mounted where ``workspaceFolder`` (or the default
    ``/workspaces/<folder>``) says, unless ``workspaceMount`` mounts something else."""
    build = root.get("build")
    dockerfile = build.get("dockerfile") if isinstance(build, JObject) else None
    dockerfile = dockerfile or root.get("dockerFile") or root.get("dockerfile")
    context = build.get("context") if isinstance(build, JObject) else None
    if isinstance(dockerfile, JString) and _VARIABLE not in dockerfile.value:
        folder = context.value if isinstance(context, JString) and _VARIABLE not in context.value else "."
        within = os.path.relpath(os.path.join(launch.base_dir, dockerfile.value), os.path.join(launch.base_dir, folder))
        launch = launch._replace(build_context=folder, dockerfile=within)
    if waits:
        launch = launch._replace(entrypoint=WAITING[:2], arguments=WAITING[2:])
    workspace = _workspace(path)
    mounted = _workspace_mount(root.get("workspaceMount"))
    if workspace is None or mounted is None:
        return launch
    below, point = mounted
    target = root.get("workspaceFolder")
    if not point:
        point = target.value if isinstance(target, JString) and target.value.startswith("/") else ""
    if not point or _VARIABLE in point:
        point = f"/workspaces/{os.path.basename(workspace)}"
    source = os.path.relpath(os.path.join(workspace, below), os.path.abspath(launch.base_dir))
    return launch._replace(mounts=(*launch.mounts, (point, source)))


def _workspace(path: str) -> str | None:
    """The folder the tools open (absolute), whose ``.devcontainer`` (or ``.devcontainer.json``) this file is: None
    for a file elsewhere."""
    absolute = os.path.abspath(path)
    folder = os.path.dirname(absolute)
    if os.path.basename(absolute) == ".devcontainer.json":
        return folder
    parts = folder.split(os.sep)
    for above in (1, 2):  # .devcontainer/devcontainer.json, .devcontainer/<name>/devcontainer.json
        if len(parts) > above and parts[-above] == ".devcontainer":
            return os.sep.join(parts[:-above]) or os.sep
    return None


#: the workspace folder in a ``workspaceMount`` source, and a folder below it
_LOCAL_WORKSPACE = LazyRegex(r"\$\{localWorkspaceFolder\}((?:/[\w.-]{1,255}){0,8})/?")


def _workspace_mount(node: JNode | None) -> tuple[str, str] | None:
    """What of the workspace is mounted, and where: no ``workspaceMount`` mounts all of it (the container path is
    then ``workspaceFolder``'s, ""), one whose ``source`` is the workspace or a folder below it that folder at its
    ``target``; None for anything else (another folder, a volume, a value not read)."""
    if node is None:
        return "", ""
    if not isinstance(node, JString):
        return None
    fields = dict(part.partition("=")[::2] for part in node.value.split(",") if "=" in part)
    source = fields.get("source", fields.get("src", "")).strip()
    target = fields.get("target", fields.get("dst", fields.get("destination", ""))).strip()
    found = _LOCAL_WORKSPACE.fullmatch(source)
    if found is None or ".." in found.group(1).split("/"):
        return None
    return found.group(1).strip("/"), target if target.startswith("/") else ""


def _word(node: JString) -> Word:
    """A JSON string as one argument: the CLI passes each item to docker as it is, no shell splitting."""
    return Word(node.value, node.start + 1, node.end - 1, dynamic=_VARIABLE in node.value)


def _anchor(root: JObject) -> tuple[int, int]:
    """Where findings about the container point: ``runArgs``, else ``hostRequirements``, else the ``{``."""
    for key in ("runArgs", "hostRequirements", "image"):
        node = root.key(key)
        if node is not None:
            return node.start, node.end
    return root.start, root.start + 1


def _env(node: JNode | None) -> list[Flag]:
    if not isinstance(node, JObject):
        return []
    return [env_flag(_word(key), _word(value)) for key, value in node.members if isinstance(value, JString)]


def _mounts(node: JNode | None) -> list[Flag]:
    """String mounts are ``--mount`` values (``source=/dev/shm,target=/dev/shm,type=bind``)."""
    if not isinstance(node, JArray):
        return []
    mounts = []
    for item in node.items:
        if isinstance(item, JString):
            word = _word(item)
            mounts.append(Flag("--mount", word, word, word.text, word.start, word.end))
    return mounts


def _host_gpu(source: SourceText, root: JObject) -> list[Evidence]:
    requirements = root.get("hostRequirements")
    gpu = requirements.get("gpu") if isinstance(requirements, JObject) else None
    if gpu is None or not wants_gpu(gpu):
        return []
    shown = source.text[gpu.start : gpu.end] if not isinstance(gpu, JObject) else "{...}"
    return [Evidence(f"hostRequirements.gpu: {shown}", source.span(gpu.start, gpu.end))]


def _target(source: SourceText, root: JObject, run_args: JNode | None) -> CommandTarget | None:
    """A new option goes last in ``runArgs``; without ``runArgs``, a new one goes after the last member."""
    if isinstance(run_args, JArray):
        if run_args.items:
            last = run_args.items[-1]
            line_start = source.text.rfind("\n", 0, last.start) + 1
            indent = source.text[line_start : last.start]
            # one item a line: the new one gets a line of its own, indented like the last
            before = f',{source.newline}{indent}"' if line_start > run_args.start and not indent.strip() else ', "'
            return CommandTarget(last.end, before=before, after='"', separator=_BETWEEN)
        return CommandTarget(run_args.start + 1, before='"', after='"', separator=_BETWEEN)
    if run_args is not None or not root.members:
        return None
    key, value = root.members[-1]
    line_start = source.text.rfind("\n", 0, key.start) + 1
    indent = source.text[line_start : key.start]
    if indent.strip():  # the last key shares its line with something else: write on the same line
        return CommandTarget(value.end, before=', "runArgs": ["', after='"]', separator=_BETWEEN)
    return CommandTarget(value.end, before=f',{source.newline}{indent}"runArgs": ["', after='"]', separator=_BETWEEN)


def _compose_notice(source: SourceText, root: JObject, compose: JNode) -> Notice:
    files = [compose] if isinstance(compose, JString) else compose.items if isinstance(compose, JArray) else []
    named = ", ".join(node.value for node in files if isinstance(node, JString)) or "its compose file"
    service = root.get("service")
    which = f'service "{service.value}"' if isinstance(service, JString) else "its service"
    return Notice(
        source.path,
        f"compose-based dev container: it runs {which} of {named}, which is judged with that compose file "
        "(check it with shmlint), with the GPU reservation hostRequirements.gpu adds; runArgs do not apply to it",
    )
