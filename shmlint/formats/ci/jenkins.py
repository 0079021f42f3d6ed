"""Jenkins pipelines: the containers their docker agents start.

Declarative ``agent { docker { image '...'; args '...' } }`` and ``agent { dockerfile { args '...' } }`` (also the
short ``docker 'image'``), and scripted ``docker.image('...').inside('...')`` / ``.withRun('...')``. The ``args``
string is docker options, split and judged as on a ``docker run`` line; an interpolated string (``"${X}"``) is
read with its expressions opaque. A fix appends ``--shm-size`` to ``args``, or adds an ``args`` line to a
declarative agent that has none.

The ``sh`` steps a docker agent runs are its container's command, as a GitHub Actions job container's ``run:``
steps are (``shmlint.parsers.typed.steps_session``): a declarative agent's are those of the block that declares it
(its stage, or the pipeline) outside nested blocks that declare an agent of their own or are an ``.inside``
closure; ``.inside(...)``'s are those of its closure outside such nested blocks. ``withRun`` starts the container beside its closure, which runs on the agent: no steps.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.commandline import CommandTarget
from shmlint.extract.docker_options import WordIndex, options_workload
from shmlint.model import Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.mask import Mask
from shmlint.parsers.groovy import Token, tokens
from shmlint.parsers.shell import Word, commands
from shmlint.parsers.typed import StepShell, Typed, steps_session
from shmlint.signals import Signals
from shmlint.source import SourceText

_AGENTS = frozenset({"docker", "dockerfile"})
_SCRIPTED = frozenset({"inside", "withRun"})


class _Agent(NamedTuple):
    """One docker agent: what holds it (``docker agent``), its keyword token, image and args strings, and where a
    new ``args`` line would go in a declarative block."""

    holder: str
    keyword: Token
    image: Token | None
    args: Token | None
    new_args: CommandTarget | None
    label: str = ""  # who it is when no image names it: the dockerfile agent's file
    scope: tuple[int, int] | None = None  # token indexes of the block whose ``sh`` steps run in it (its braces)


def extract_jenkinsfile(source: SourceText, signals: Signals) -> list[Workload]:
    found = tokens(source.text)
    blocks, enclosing = _blocks(found), _enclosing(found)
    agents = [*_declarative(source, found, blocks, enclosing), *_scripted(found, blocks)]
    steps = _sh_steps(found) if any(agent.scope for agent in agents) else []
    mask = Mask(source.text)
    for agent in agents:
        if agent.args is not None:
            mask.keep(agent.args.start, agent.args.end)
    for step in steps:
        mask.keep(found[step].start, found[step].end)
        mask.put(found[step].end, ";")  # the closing quote: two steps on one line are two commands
    masked = mask.result()
    shell = list(commands(masked)) if any(agent.args for agent in agents) or steps else []
    words = WordIndex(word for command in shell for word in command.words)
    scoped = _steps_by_scope(found, enclosing, agents, steps)
    step_shell = StepShell(shell if scoped else ())
    return [
        _workload(source, signals, masked, words, agent, index, _steps(agent, found, scoped, step_shell, masked))
        for index, agent in enumerate(agents)
    ]


def _sh_steps(found: list[Token]) -> list[int]:
    """The string tokens of ``sh 'script'``, ``sh("script")`` and ``sh(script: 'script')`` steps."""
    steps = []
    for index, token in enumerate(found):
        if token.kind != "name" or token.text != "sh":
            continue
        after = [found[i] for i in range(index + 1, min(index + 5, len(found)))]
        texts = [t.text if t.kind != "string" else None for t in after]
        at = 0 if texts[:1] == [None] else 1 if texts[:1] == ["("] and texts[1:2] == [None] else None
        if at is None and texts[:3] == ["(", "script", ":"] and len(after) > 3 and after[3].kind == "string":
            at = 3
        if at is not None:
            steps.append(index + 1 + at)
    return steps


def _enclosing(found: list[Token]) -> list[int]:
    """For each token, the index of the ``{`` of the innermost block around it (-1 outside every block)."""
    stack: list[int] = []
    inner: list[int] = []
    for index, token in enumerate(found):
        if token.kind == "punct" and token.text == "}" and stack:
            stack.pop()
        inner.append(stack[-1] if stack else -1)
        if token.kind == "punct" and token.text == "{":
            stack.append(index)
    return inner


def _steps_by_scope(
    found: list[Token], enclosing: list[int], agents: list[_Agent], steps: list[int]
) -> dict[int, list[int]]:
    """The ``sh`` steps of each block that says where its steps run, by its ``{``: a step runs where its nearest
    such block says (a block that declares an agent of any kind, ``agent { docker ... }`` or ``agent any``, or an
    ``.inside`` closure). One pass over the blocks, outermost first, then one look-up per step."""
    agent_blocks = {enclosing[i] for i, t in enumerate(found) if t.kind == "name" and t.text == "agent"}
    scopes = agent_blocks | {agent.scope[0] for agent in agents if agent.scope is not None}
    nearest: dict[int, int] = {-1: -1}
    for index, token in enumerate(found):
        if token.kind == "punct" and token.text == "{":  # its enclosing block comes before it, so is known
            nearest[index] = index if index in scopes else nearest.get(enclosing[index], -1)
    scoped: dict[int, list[int]] = {}
    for step in steps:
        scope = nearest.get(enclosing[step], -1)
        if scope >= 0:
            scoped.setdefault(scope, []).append(step)
    return scoped


def _steps(
    agent: _Agent, found: list[Token], scoped: dict[int, list[int]], shell: StepShell, text: str
) -> Typed | None:
    """The ``sh`` steps whose nearest block that says where steps run is the agent's scope."""
    own = scoped.get(agent.scope[0], []) if agent.scope is not None else []
    ranges = [(found[step].start, found[step].end) for step in own]
    return steps_session(shell, ranges, text) if ranges else None


def _workload(
    source: SourceText,
    signals: Signals,
    masked: str,
    words: WordIndex,
    agent: _Agent,
    index: int,
    typed: Typed | None = None,
) -> Workload:
    own: list[Word] = []
    target = agent.new_args
    if agent.args is not None:
        args = agent.args
        own = words.within(args.start, args.end)
        target = CommandTarget(args.start + len(masked[args.start : args.end].rstrip()))
    image = agent.image
    image_word = Word(image.text, image.start, image.end, dynamic=image.interpolated) if image else None
    return options_workload(
        source,
        signals,
        id=WorkloadId(
            WorkloadFormat.CI_JOB,
            "pipeline",
            image.text if image else agent.label,
            container_kind=agent.holder,
            occurrence=index,
        ),
        span=source.span(agent.keyword.start, agent.keyword.end),
        words=own,
        image=image_word,
        target=target,
        typed=typed,
    )


def _declarative(
    source: SourceText, found: list[Token], blocks: dict[int, tuple[dict[str, Token], int]], enclosing: list[int]
) -> Iterator[_Agent]:
    """``docker { ... }`` and ``dockerfile { ... }`` blocks, and the short ``docker 'image'``."""
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in _AGENTS or index + 1 >= len(found):
            continue
        following = found[index + 1]
        scope = _declared_in(found, enclosing, blocks, index)
        if token.text == "docker" and following.kind == "string" and _text(found, index - 1) == "{":
            yield _Agent("docker agent", token, following, None, None, scope=scope)
        elif index + 1 in blocks:
            settings, closing = blocks[index + 1]
            image = settings.get("image") if token.text == "docker" else None
            built = settings.get("filename") or settings.get("dir")  # names a dockerfile agent for people
            yield _Agent(
                f"{token.text} agent",
                token,
                image,
                settings.get("args"),
                _new_args(source, found, index + 1, closing),
                built.text if built else "Dockerfile",
                scope,
            )


def _declared_in(
    found: list[Token], enclosing: list[int], blocks: dict[int, tuple[dict[str, Token], int]], index: int
) -> tuple[int, int] | None:
    """The block that declares ``agent { docker ... }`` (a stage's or the pipeline's braces), by token index."""
    agent_block = enclosing[index]
    if agent_block < 1 or _text(found, agent_block - 1) != "agent":
        return None
    scope = enclosing[agent_block - 1]
    return (scope, blocks[scope][1]) if scope in blocks else None


def _blocks(found: list[Token]) -> dict[int, tuple[dict[str, Token], int]]:
    """For each ``{``: the ``name 'string'`` settings directly inside its block, and its closing brace (the last
    token when it is never closed). One pass with a stack, whatever the nesting."""
    blocks: dict[int, tuple[dict[str, Token], int]] = {}
    open_blocks: list[tuple[int, dict[str, Token]]] = []
    for index, token in enumerate(found):
        if token.kind == "punct" and token.text == "{":
            open_blocks.append((index, {}))
        elif token.kind == "punct" and token.text == "}" and open_blocks:
            opening, settings = open_blocks.pop()
            blocks[opening] = (settings, index)
        elif token.kind == "string" and open_blocks and found[index - 1].kind == "name":
            open_blocks[-1][1].setdefault(found[index - 1].text, token)
    for opening, settings in open_blocks:
        blocks[opening] = (settings, len(found) - 1)
    return blocks


def _new_args(source: SourceText, found: list[Token], opening: int, closing: int) -> CommandTarget | None:
    """A new ``args`` line after the block's last setting, indented like its first one (or ``; args`` when the
    block is written on one line)."""
    if closing <= opening + 1 or found[closing].text != "}":
        return None
    first, last = found[opening + 1], found[closing - 1]
    text = source.text
    end = last.end
    if last.kind == "string":  # after the closing quotes
        end += 3 if text[end : end + 3] in ('"""', "'''") else 1
    line_start = text.rfind("\n", 0, first.start) + 1
    indent = text[line_start : first.start]
    if indent.strip():
        return CommandTarget(end, before="; args '", after="'")
    return CommandTarget(end, before=f"{source.newline}{indent}args '", after="'")


def _scripted(found: list[Token], blocks: dict[int, tuple[dict[str, Token], int]]) -> Iterator[_Agent]:
    """``docker.image('x').inside('args')``, ``.withRun('args')``: the image when the receiver names it."""
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in _SCRIPTED or _text(found, index - 1) != ".":
            continue
        if _text(found, index + 1) != "(":
            continue
        args = found[index + 2] if index + 2 < len(found) and found[index + 2].kind == "string" else None
        image = None
        if _text(found, index - 2) == ")" and _text(found, index - 4) == "(" and _text(found, index - 5) == "image":
            candidate = found[index - 3]
            image = candidate if candidate.kind == "string" else None
        scope = _closure(found, blocks, index, token.text)
        yield _Agent(f"docker.{token.text}", token, image, args, None, scope=scope)


def _closure(
    found: list[Token], blocks: dict[int, tuple[dict[str, Token], int]], index: int, method: str
) -> tuple[int, int] | None:
    """The braces of the closure after ``.inside()`` or ``.inside('args')``, whose steps run in the container."""
    if method != "inside":
        return None
    after_string = index + 3 if index + 2 < len(found) and found[index + 2].kind == "string" else index + 2
    position = after_string + 1
    if _text(found, after_string) != ")" or position not in blocks or _text(found, position) != "{":
        return None
    return position, blocks[position][1]


def _text(found: list[Token], index: int) -> str | None:
    return found[index].text if 0 <= index < len(found) and found[index].kind != "string" else None
