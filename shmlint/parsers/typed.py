"""Commands typed into an interactive container, in documentation.

A documentation code block that starts an interactive container whose command is a shell or the image's default
(``docker run -it --gpus all IMAGE``, ``... IMAGE bash``) and goes on with more lines shows a terminal session:
pasted into a terminal, those lines go to the container's standard input and its shell runs them. What the
container really runs is there, not on the ``docker run`` line (``bash``). Such lines are read as the container's
command, from the line after the ``docker run`` to the first of: an ``exit``/``logout``; a line written with the
host's prompt again (the prompt of the ``docker run`` line); another container engine command (the engine's CLI is
the host's); the end of the block; ``MAX_TYPED_COMMANDS`` commands or ``MAX_TYPED_CHARS`` characters.

Interactive means ``-i``: docker and podman attach the terminal's input only then (with ``-t`` alone the shell
reads nothing and exits at once, and the next line runs on the host). Not ``-d``, not ``create``.

A session goes on into the next blocks only when the block that opens the shell ends with it: a guide that gives
"open a shell in the container" as a block of its own has nothing typed there yet, and its next commands are the
ones typed into that shell (step 1 starts the container, steps 2 to 4 build and serve in it). The same ends apply
there, and a heading ends it (or a new content tab: another way to do the same steps): another section is another
task, and nothing tells the reader to stay in the container. When a block types commands after the ``docker run``,
the session is that block's: prose between two blocks is where a guide changes place ("then, on the host"), and
nothing in the text says which. Where that shell is still open at the block's end (no ``exit``, no engine command,
no host prompt: its lines set the container up, ``git clone``, ``cd``), the guide's later steps (below) are read
after it too (audit50: codeparrot clones Megatron-LM in the shell's block and trains on 8 GPUs two sections later).

A shell opened as the last thing of its section, with nothing after it there, is where the guide's later steps run
when nothing says otherwise: "Docker" opens it, "Training" and "Evaluation" give the commands (audit51: Fast-LLM's
quick start says its commands run as they are in that container, and trains with 8 local ranks three sections
later). Those steps are read as the guide's later steps (``LATER``), with the same ends: only from blocks whose
fence names a shell, or untagged blocks that start a launcher (``horovodrun -np 4 ...``: an untagged block may be a
folder tree or a config, never a launcher's line), under later headings (a sibling heading or tab of its
own section is another way to set up), in the shell's own content tab or in none (a guide whose tabs follow the
reader's choice through its sections), up to a command that makes a Python environment (``conda create``). They
are evidence that may only add to what the container is known to run (``shmlint.project.decide``), findings on it
are at most warnings, and only a container given an accelerator has them (a guide's 8-GPU steps after a shell given
none cannot run in it: found on Megatron-Bridge's pages).

Only documentation blocks are read so: in a shell script the lines after an interactive ``docker run`` run on the
host once the container exits.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.container_command import ContainerCommand, parse_container_command
from shmlint.parsers.embedded.shell_blocks import CodeLine, ShellBlock, ShellBlocks
from shmlint.parsers.option_variables import Assignments, note_assignment
from shmlint.parsers.programs import ENGINES, SHELLS, is_python, program_name
from shmlint.parsers.shell import SimpleCommand, commands
from shmlint.signals import MPI_LAUNCHERS, TORCHRUN_PROGRAMS

#: commands of one session read as the container's: a guide's walkthrough in a container is a few dozen
MAX_TYPED_COMMANDS = 64
#: characters of those commands
MAX_TYPED_CHARS = 16_000
#: lines looked at for the session's end (continuations and comments included)
MAX_TYPED_LINES = 4 * MAX_TYPED_COMMANDS
#: programs that end a session: the shell's own way out, and the container engines, whose CLI is on the host
_EXITS = frozenset({"exit", "logout"})
_HOST_PROGRAMS = _EXITS | ENGINES
_INTERACTIVE = frozenset({"-i", "--interactive"})
_DETACH = frozenset({"-d", "--detach"})


#: programs that start several processes: an untagged block with one of them is a guide's step, not a listing
_LAUNCHERS = MPI_LAUNCHERS | TORCHRUN_PROGRAMS | {"deepspeed", "accelerate"}

_TYPED = "typed in the container"
_STEPS = "the job's steps"
#: how commands a file runs in a container by its name are said
_EXECED = "run in it by docker exec"
#: how a session of a guide's later sections is said
LATER = "the guide's later steps in the container"
#: a command that makes a Python environment where it runs: a guide's later steps that come to one set up another
#: place to work (found: ``### Docker``, then ``### From source`` with ``conda create``, then ``## Training``)
_MAKES_AN_ENVIRONMENT = LazyRegex(
    r"(?:^|[ /])(?:python[0-9.]*[ ]+-m[ ]+venv|uv[ ]+venv|virtualenv|(?:conda|mamba|micromamba)[ ]+(?:env[ ]+)?create)\b"
)


class Typed(NamedTuple):
    """The commands typed into one container's shell: their words, and their text as a script (one a line);
    ``how`` they came to run there, for messages."""

    commands: tuple[SimpleCommand, ...]
    script: str
    how: str = _TYPED  # or ``_STEPS``, ``LATER``
    unread: str = ""  # what else ran in the container, not read: the session is incomplete
    #: the guide's later steps, where the block types commands after the ``docker run`` and its shell is still
    #: open where the block ends (``git clone``, ``cd``: set up in it, the work comes later)
    later: Typed | None = None

    @property
    def start(self) -> int:
        return self.commands[0].words[0].start

    @property
    def end(self) -> int:
        return self.commands[-1].words[-1].end

    def said(self, first: int, last: int, name: str) -> str:
        """Where they were read, for messages: ``typed in the container, README.md:23-24``; a job's steps are in
        the job's own file: ``the job's steps, lines 30-52``."""
        lines = f"{first}-{last}" if last > first else str(first)
        if self.how == _STEPS:
            unread = f"; {self.unread} ran in it unread" if self.unread else ""
            return f"{self.how}, line{'s' if last > first else ''} {lines}{unread}"
        return f"{self.how}, {name}:{lines}"


class _Document(NamedTuple):
    """A document's shell as sessions read it, indexed once (each run's session is then bounded work)."""

    text: str
    blocks: ShellBlocks
    shell: list[SimpleCommand]
    lines: list[tuple[CodeLine, int]]  # every kept line, with its block's index
    starts: list[int]  # of those lines
    by_start: list[int]  # indexes of ``shell`` in the order their commands start
    command_starts: list[int]  # of those commands, in that order
    steps: list[int]  # indexes of the blocks that may be later steps: fenced as shell, or starting a launcher


def _document(text: str, blocks: ShellBlocks) -> _Document:
    shell = list(commands(text, in_blocks=True))
    lines = [(line, index) for index, block in enumerate(blocks) for line in block.lines]
    by_start = sorted(range(len(shell)), key=lambda index: shell[index].words[0].start)
    starts = [line.start for line, _ in lines]
    return _Document(
        text,
        blocks,
        shell,
        lines,
        starts,
        by_start,
        [shell[index].words[0].start for index in by_start],
        _step_blocks(blocks, shell, lines, starts),
    )


def container_sessions(text: str, blocks: ShellBlocks) -> Iterator[tuple[ContainerCommand, Typed | None]]:
    """Every container run/create command of a masked document, with the commands typed into it when it opens an
    interactive shell and the same block goes on."""
    document = _document(text, blocks)
    shell = document.shell
    assigned = Assignments()
    for position, command in enumerate(shell):
        note_assignment(command, text, assigned)
        parsed = parse_container_command(command.words, text, assigned)
        if parsed is None:
            continue
        typed = _typed(command, position, document) if opens_shell(parsed) else None
        yield parsed, typed


def sessions_after(
    text: str, blocks: ShellBlocks, opens: Callable[[SimpleCommand], bool]
) -> Iterator[tuple[SimpleCommand, Typed]]:
    """The sessions of the shells a document opens by other commands than ``docker run`` (``opens`` tells them:
    ``docker compose exec trainer bash``): each such command with the commands typed after it, in its block or the
    next ones of its section, and the guide's later steps, read as a ``docker run -it`` shell's are."""
    document = _document(text, blocks)
    for position, command in enumerate(document.shell):
        if not opens(command):
            continue
        typed = _typed(command, position, document)
        for session in (typed, typed.later if typed is not None else None):
            if session is not None:
                yield command, session


#: programs a container runs only to stay up while commands are run in it
_HOLDING = frozenset({"sleep", "tail", "cat"})


def holds_open(command: ContainerCommand) -> bool:
    """Whether a container's own command only keeps it up for what is run in it by name (``sleep infinity``,
    ``tail -f /dev/null``, a shell given no ``-c``), not a program of its own."""
    entrypoint = [flag.value_text for flag in command.flag_values("--entrypoint")[-1:] if flag.value_text]
    argv = entrypoint + [word.text for word in command.arguments]
    if not entrypoint and argv[:1] == ["--"]:  # ``IMAGE -- sleep infinity``, as ``opens_shell`` reads it
        argv = argv[1:]
    if not argv:
        return False
    name = argv[0].rsplit("/", 1)[-1]
    if name in _HOLDING:
        return True
    return interactive_shell(argv)


def terminal_kept_open(command: ContainerCommand) -> bool:
    """``docker run -it -d IMAGE`` with no command: the image's own start runs, with a terminal kept open for what
    is run in it by name; what is exec'd there may only add to what the image is known to run (the review: an
    image whose ``CMD`` trains kept its need)."""
    flags = command.flags
    return (
        not command.arguments
        and not command.flag_values("--entrypoint")
        and any(_on(f.long_name, f.value_text, _INTERACTIVE) for f in flags)
        and any(_on(f.long_name, f.value_text, _DETACH) for f in flags)
    )


def exec_session(execed: Sequence[SimpleCommand], text: str) -> Typed | None:
    """The commands a file runs in a container by name (``docker exec dev python train.py``), as a session typed
    into it (at most ``MAX_TYPED_CHARS`` of them): what runs there, beside or instead of its own command."""
    kept: list[SimpleCommand] = []
    chars = 0
    for command in execed:
        chars += command.words[-1].end - command.words[0].start
        if chars > MAX_TYPED_CHARS:
            break
        kept.append(command)
    if not kept:
        return None
    script = "\n".join(text[c.words[0].start : c.words[-1].end] for c in kept)
    return Typed(tuple(kept), script, _EXECED, unread="more docker exec commands" if len(kept) < len(execed) else "")


def opens_shell(command: ContainerCommand) -> bool:
    """An interactive (``-i``), attached ``run`` whose command is a shell or the image's own (``-it IMAGE``,
    ``IMAGE bash -l``): what is typed next goes to that shell."""
    if not command.subcommand.endswith("run") or command.image is None or command.image.dynamic:
        return False
    if not any(_on(flag.long_name, flag.value_text, _INTERACTIVE) for flag in command.flags):
        return False
    if any(_on(flag.long_name, flag.value_text, _DETACH) for flag in command.flags):
        return False
    entrypoint = [flag.value_text for flag in command.flag_values("--entrypoint")[-1:] if flag.value_text]
    argv = entrypoint + [word.text for word in command.arguments]
    if not entrypoint and argv[:1] == ["--"] and argv[1:]:  # ``IMAGE -- bash``: an entrypoint that ends in ``exec
        argv = argv[1:]  # "$@"`` (CUDA's and NGC's images) runs ``exec -- bash``; ``IMAGE --`` alone runs nothing
    return not argv or interactive_shell(argv)


def _on(name: str, value: str, names: frozenset[str]) -> bool:
    """A boolean option that is set: ``-i``, ``--interactive``, ``--interactive=true`` (not ``=false``)."""
    return name in names and value.strip().lower() not in ("false", "0")


def _shell_option(word: str) -> bool:
    """An option that keeps a shell interactive (``-l``, ``--login``, ``-i``); ``-c`` gives it a command."""
    return word.startswith("-") and (word.startswith("--") or "c" not in word)


def interactive_shell(argv: Sequence[str]) -> bool:
    """A shell given only options that keep it interactive (``bash``, ``sh -l``; not ``bash -c ...``): a person
    types what it runs."""
    return bool(argv) and argv[0].rsplit("/", 1)[-1] in SHELLS and all(_shell_option(word) for word in argv[1:])


def _typed(run: SimpleCommand, position: int, document: _Document) -> Typed | None:
    blocks, lines, starts = document.blocks, document.lines, document.starts
    first, last = _line_at(run.words[0].start, lines, starts), _line_at(run.words[-1].end, lines, starts)
    if first is None or last is None or first[1] != last[1]:
        return None
    index = first[1]
    block = blocks[index]
    after = block.lines.index(last[0]) + 1
    shell = document.shell
    following: Iterable[SimpleCommand] = (shell[i] for i in range(position + 1, len(shell)))
    # the rest of its block; when the block ends with it, the next blocks of its section, else the shell blocks of
    # the sections after it (the module's docstring)
    if after < len(block.lines):
        rest = block.lines[after : after + MAX_TYPED_LINES + 1]
        limit = _session_end(rest, first[0].prompt)
        typed = _session(following, rest[0].start, limit, document.text, stop_at_host=True)
        if typed is None or not _open_at_end(shell, position, rest, limit):
            return typed
        return typed._replace(later=_later_session(document, index, first[0].prompt))
    if index + 1 < len(blocks) and blocks[index + 1].section == block.section:
        following_blocks = (blocks[i] for i in range(index + 1, len(blocks)))
        same_section = itertools.takewhile(lambda next_block: next_block.section == block.section, following_blocks)
        later = list(itertools.islice((line for b in same_section for line in b.lines), MAX_TYPED_LINES + 1))
        if not later:
            return None
        limit = _session_end(later, first[0].prompt)
        typed = _session(following, later[0].start, limit, document.text, stop_at_host=True)
        if typed is None or not _open_at_end(shell, position, later, limit):
            return typed
        return typed._replace(later=_later_session(document, index, first[0].prompt))
    return _later_session(document, index, first[0].prompt)


def _open_at_end(shell: Sequence[SimpleCommand], position: int, rest: Sequence[CodeLine], limit: int) -> bool:
    """Whether the shell a block opens is still open where the block ends, its typed lines all read: no line with
    the host's prompt, no ``exit`` and no container engine command (the host's) after the ``docker run``."""
    if limit <= rest[-1].end:
        return False
    for index in range(position + 1, len(shell)):  # the block's own commands only: no copy of the rest
        command = shell[index]
        if command.words[0].start > rest[-1].end:
            return True
        if _program(command) in _HOST_PROGRAMS:
            return False
    return True


def _later_session(document: _Document, index: int, prompt: str) -> Typed | None:
    """The guide's later steps after the shell opened in block ``index`` (``_later_blocks``), as a session."""
    chosen = _later_blocks(document, index)
    if not chosen:
        return None
    shell = document.shell
    spans = [(b.lines[0].start, b.lines[-1].end) for b in chosen]
    span_starts = [start for start, _ in spans]
    begin = bisect.bisect_left(document.command_starts, span_starts[0])
    ordered = (shell[document.by_start[i]] for i in range(begin, len(document.by_start)))
    following = (c for c in ordered if _within(c.words[0].start, spans, span_starts))
    rest = list(itertools.islice((line for b in chosen for line in b.lines), MAX_TYPED_LINES + 1))
    limit = _session_end(rest, prompt)
    return _session(following, rest[0].start, limit, document.text, stop_at_host=True, how=LATER)


#: shell blocks looked at after a shell for the guide's later steps (those of other tabs or its own section are
#: passed over): a guide's steps come within a few hundred blocks
MAX_LATER_BLOCKS = 256


def _later_blocks(document: _Document, index: int) -> list[ShellBlock]:
    """The blocks of the guide's later steps after the shell opened in block ``index``: fenced as shell, under a
    later heading (not the rest of its own section: a sibling tab or heading there is another way to get set up),
    outside content tabs or in the shell's own tab (a guide whose tabs follow the reader's choice through every
    section), at most ``MAX_TYPED_LINES`` lines."""
    block = document.blocks[index]
    found: list[ShellBlock] = []
    read = 0
    at = bisect.bisect_right(document.steps, index)
    for later in document.steps[at : at + MAX_LATER_BLOCKS]:
        candidate = document.blocks[later]
        if candidate.part > block.part and (not candidate.tab or candidate.tab == block.tab):
            found.append(candidate)
            read += len(candidate.lines)
            if read > MAX_TYPED_LINES:
                break
    return found


def _step_blocks(
    blocks: ShellBlocks, shell: Sequence[SimpleCommand], lines: Sequence[tuple[CodeLine, int]], starts: Sequence[int]
) -> list[int]:
    """The blocks that may hold a guide's later steps: those fenced as shell, and untagged ones with a command that
    starts a launcher (``_LAUNCHERS``) or a Python program (``python train.py``, ``python -m pkg.train``): a folder
    tree, a config or a program's output never does. ``starts``: the lines' starts."""
    found = {index for index, block in enumerate(blocks) if block.tagged}
    for command in shell:  # each command's block found by bisection: linear in the document's commands
        if _program(command) in _LAUNCHERS or _runs_python_program(command):
            at = _line_at(command.words[0].start, lines, starts)
            if at is not None:
                found.add(at[1])
    return sorted(found)


def _within(offset: int, spans: Sequence[tuple[int, int]], starts: Sequence[int]) -> bool:
    """Whether an offset is in one of the spans (in order, apart; ``starts``: their starts)."""
    index = bisect.bisect_right(starts, offset) - 1
    return index >= 0 and offset <= spans[index][1]


class StepShell:
    """The commands of a file's step shell, found by the range of the step they are in (by bisection: a job's
    steps cost the job's own commands, not the file's)."""

    __slots__ = ("commands", "starts")

    def __init__(self, shell: Iterable[SimpleCommand]) -> None:
        self.commands = sorted(shell, key=lambda command: command.words[0].start)
        self.starts = [command.words[0].start for command in self.commands]

    def within(self, start: int, end: int) -> list[SimpleCommand]:
        return self.commands[bisect.bisect_left(self.starts, start) : bisect.bisect_left(self.starts, end)]


def steps_session(shell: StepShell, ranges: Sequence[tuple[int, int]], text: str, unread: str = "") -> Typed | None:
    """The commands a CI job's steps run in its container: those of the shell ``ranges`` (each step's script, in
    order), bounded as a typed session. A container engine command there starts a container of its own (read as
    its own workload), so it is left out rather than ending the session; an ``exit`` that surely runs
    (``_ends_step``) ends its step, and the next step runs. ``unread``: what else ran in the container that was not
    read (a job's actions), for messages; the session is then incomplete."""
    commands_in: list[SimpleCommand] = []
    for start, end in sorted(ranges):
        covered = start  # the end of the last word read: the text between words is the shell's own syntax
        plain = True  # no compound command, subshell or function opened before in this step
        for command in shell.within(start, end):
            first = command.words[0]
            inside = first.start < covered  # in a substitution of an earlier word
            gap = _syntax(text, covered, first.start) if not inside else ""
            plain = plain and _plain(gap)
            if _program(command) in _EXITS:
                if plain and not inside and first.text in _EXITS and _ends_step(text, gap, command.words[-1].end, end):
                    break
            else:
                commands_in.append(command)
            covered = max(covered, command.words[-1].end)
    typed = _session(commands_in, 0, len(text), text, stop_at_host=False, how=_STEPS)
    return typed._replace(unread=unread) if typed is not None and unread else typed


#: the words and characters of compound commands, subshells and function definitions: after one in a step, the
#: simple-command model cannot tell whether an ``exit`` is inside it
_COMPOUND_WORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "select", "case", "esac", "function"}
)
_COMPOUND_CHARACTERS = frozenset("(){}`")
_OPERATORS = str.maketrans({character: " " for character in ";&|<>!"})


def _syntax(text: str, start: int, end: int) -> str:
    """The text between two words of a step without its comments: operators, reserved words (the lexer keeps them
    out of commands), redirection targets and here-document bodies."""
    parts = []
    at = start
    while at < end:
        sharp = text.find("#", at, end)
        if sharp == -1:
            parts.append(text[at:end])
            break
        comment = sharp == 0 or text[sharp - 1] in " \t\n;&|()<>"
        parts.append(text[at : sharp if comment else sharp + 1])
        newline = text.find("\n", sharp, end) if comment else sharp + 1
        at = end if newline == -1 else newline
    return "".join(parts)


def _plain(syntax: str) -> bool:
    """No compound command, subshell, group or function opens or closes in this syntax (the words between are
    operators, redirection targets or here-document text, never those)."""
    if any(character in _COMPOUND_CHARACTERS for character in syntax):
        return False
    return not any(word in _COMPOUND_WORDS for word in syntax.translate(_OPERATORS).split())


def _ends_step(text: str, before: str, after: int, end: int) -> bool:
    """Whether an ``exit`` at the step's top level surely runs: it starts a line or follows a ``;`` (not after
    ``&&``, ``||``, ``|`` or ``&``), and only a ``;`` or the line's end follows it (not in a pipeline, which runs
    it in a subshell)."""
    kept = before.rstrip()
    after_separator = kept.endswith(";") and not kept.endswith(";;")
    on_new_line = "\n" in before[len(kept) :] and kept[-1:] not in ("|", "&", "\\")
    if kept and not after_separator and not on_new_line:
        return False
    newline = text.find("\n", after, end)
    rest = _syntax(text, after, end if newline == -1 else newline).strip()
    return not rest or (rest.startswith(";") and not rest.startswith(";;"))


def _session(
    following: Iterable[SimpleCommand], end: int, limit: int, text: str, *, stop_at_host: bool, how: str = _TYPED
) -> Typed | None:
    """The commands from ``end`` up to ``limit``, ``MAX_TYPED_COMMANDS`` or ``MAX_TYPED_CHARS``; a host program
    (``exit``, a container engine) ends them or, unless ``stop_at_host``, is left out."""
    typed: list[SimpleCommand] = []
    chars = 0
    for command in following:
        start = command.words[0].start
        if start < end:
            continue  # on the ``docker run`` lines, or inside the last command (a substitution)
        if start >= limit or len(typed) >= MAX_TYPED_COMMANDS:
            break
        if _program(command) in _HOST_PROGRAMS:
            if stop_at_host:
                break
            end = command.words[-1].end
            continue
        if how == LATER and _MAKES_AN_ENVIRONMENT.search(" ".join(word.text for word in command.words[:8])):
            break  # the guide's later steps install elsewhere: not in the container
        chars += command.words[-1].end - start
        if chars > MAX_TYPED_CHARS:
            break
        typed.append(command)
        end = command.words[-1].end
    if not typed:
        return None
    script = "\n".join(text[c.words[0].start : c.words[-1].end] for c in typed)
    return Typed(tuple(typed), script, how)


def _line_at(offset: int, lines: Sequence[tuple[CodeLine, int]], starts: Sequence[int]) -> tuple[CodeLine, int] | None:
    """The kept line (and its block's index) that holds an offset."""
    index = bisect.bisect_right(starts, offset) - 1
    if index < 0:
        return None
    line, block = lines[index]
    return (line, block) if offset <= line.end else None


def _session_end(following: Sequence[CodeLine], host_prompt: str) -> int:
    """Where the session ends: the first line written with the host's prompt again, else the end of the lines
    (at most ``MAX_TYPED_LINES``). Without a prompt on the ``docker run`` line, no prompt tells the host apart."""
    for index, line in enumerate(following):
        if index == MAX_TYPED_LINES or (host_prompt and line.prompt == host_prompt):
            return line.start
    return following[-1].end + 1


def _runs_python_program(command: SimpleCommand) -> bool:
    """``python train.py ...`` or ``python -m pkg.train``, past ``NAME=value`` and ``sudo``."""
    return is_python(_program(command)) and any(w.text == "-m" or w.text.endswith(".py") for w in command.words)


def _program(command: SimpleCommand) -> str:
    """The program a command runs, past ``NAME=value`` and ``sudo``."""
    for word in command.words:
        name = program_name(word.text)
        if name != "sudo" and not ("=" in word.text and not word.text.startswith("-")):
            return name
    return ""
