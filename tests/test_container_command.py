"""The container command-line grammar (``shmlint.parsers.container_command``): generated ``docker run`` lines are
split back into exactly the flags, image and arguments they were built from, with spans that point at the text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import Candidate
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.format_descriptor import FileKind
from shmlint.model import Severity
from shmlint.parsers.container_command import ArrayRuns, ContainerCommand, container_commands
from shmlint.settings import Settings
from shmlint.source import SourceText

#: options that take a value, and boolean ones (a sample of each kind the grammar knows)
VALUE_FLAGS = ["--shm-size", "--ipc", "--tmpfs", "--mount", "-v", "--volume", "-e", "--env", "--gpus", "-m", "--name"]
BOOLEAN_FLAGS = ["--rm", "-i", "-t", "-d", "--privileged", "--init"]
SHORT_BOOLEANS = ["i", "t", "d"]

LOWER = "abcdefghijklmnopqrstuvwxyz"
#: plain alphabets, not regular expressions: generating from a pattern is slow on a busy machine
VALUE = st.text(alphabet=LOWER + "0123456789/=:.,_", min_size=1, max_size=12)
IMAGE = st.builds(str.__add__, st.sampled_from(LOWER), st.text(alphabet=LOWER + "0123456789./-", max_size=10))
TAG = st.sampled_from(["", ":1", ":2.3-cuda", ":latest"])
ARGUMENT = st.text(alphabet=LOWER + "0123456789_./=-", min_size=1, max_size=8)
QUOTE = st.sampled_from(["", "'", '"'])


@st.composite
def flag_words(draw: st.DrawFn) -> tuple[str, str, str | None]:
    """(written, name, value): ``--x=v``, ``--x v``, ``-x v``, ``-xv`` or a boolean, quoted or not."""
    if draw(st.booleans()):
        name = draw(st.sampled_from(BOOLEAN_FLAGS))
        return name, name, None
    name = draw(st.sampled_from(VALUE_FLAGS))
    value, quote = draw(VALUE), draw(QUOTE)
    quoted = f"{quote}{value}{quote}"
    if name.startswith("--"):
        written = draw(st.sampled_from([f"{name}={quoted}", f"{name} {quoted}"]))
    else:
        written = draw(st.sampled_from([f"{name} {quoted}", f"{name}{quoted}"]))
        if written == f"{name}{quoted}" and len(value) > 1 and value.startswith("="):
            return written, name, value[1:]  # docker's flag library reads ``-v=0`` as ``-v 0``
    return written, name, value


@st.composite
def run_lines(draw: st.DrawFn) -> tuple[str, list[tuple[str, str | None]], str, list[str]]:
    prefix = draw(
        st.sampled_from(
            [
                "",
                "sudo ",
                "sudo -u root ",
                "env A=1 ",
                "X=1 ",
                "time ",
                "timeout 600 ",  # audit65b: a CI job's training run
                "timeout -s INT -k 5 1h sudo ",
                "stdbuf -oL ",
                "stdbuf -o L nohup ",
                "srun -N 2 --ntasks-per-node 1 --gres=gpu:4 ",  # audit81c: a Slurm allocation's nodes each run it
            ]
        )
    )
    engine = draw(st.sampled_from(["docker", "podman", "/usr/bin/docker", "nvidia-docker"]))
    subcommand = draw(st.sampled_from(["run", "create", "container run"]))
    flags = draw(st.lists(flag_words(), max_size=6))
    grouped = draw(st.lists(st.sampled_from(SHORT_BOOLEANS), max_size=3, unique=True))
    image = draw(IMAGE) + draw(TAG)
    arguments = draw(st.lists(ARGUMENT, max_size=4))
    words = [written for written, _, _ in flags] + ([f"-{''.join(grouped)}"] if grouped else [])
    line = " ".join([f"{prefix}{engine} {subcommand}", *words, image, *arguments])
    expected = [(name, value) for _, name, value in flags] + [(f"-{letter}", None) for letter in grouped]
    return line, expected, image, arguments


def parse(line: str) -> ContainerCommand:
    (command,) = list(container_commands(line))
    return command


@given(run_lines())
def test_a_generated_line_splits_back_into_what_built_it(case: tuple) -> None:
    line, expected, image, arguments = case
    command = parse(line)
    assert [(flag.name, flag.value_text if flag.value is not None else None) for flag in command.flags] == expected
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.arguments] == arguments
    assert line[command.run_word.start : command.run_word.end] in ("run", "create")


@given(run_lines())
def test_flag_spans_point_at_their_text(case: tuple) -> None:
    line, _, _, _ = case
    command = parse(line)
    assert command.image is not None
    for flag in command.flags:
        written = line[flag.flag.start : flag.flag.end]
        # a long option starts its word; a short one may stand in a group (``-it``)
        assert written.startswith(flag.name) if flag.name.startswith("--") else flag.name[1] in written
        if flag.value is not None:
            # the value's own characters, inside quotes and after '=' when it can tell
            assert line[flag.value_start : flag.value_end] == flag.value_text
            assert flag.exact
        assert command.run_word.end < flag.flag.start and flag.end <= command.image.start


@given(run_lines())
def test_has_flag_and_flag_values_read_long_names(case: tuple) -> None:
    line, expected, _, _ = case
    command = parse(line)
    long = {"-e": "--env", "-v": "--volume", "-m": "--memory"}
    for name in {long.get(name, name) for name, value in expected if value is not None}:
        assert command.has_flag(name)
        values = [value for written, value in expected if long.get(written, written) == name]
        assert [flag.value_text for flag in command.flag_values(name)] == values
    assert not command.has_flag("--never-given")


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("docker run img", "docker run"),
        ("sudo -E podman container create img", "podman container create"),
        ("docker --context remote run img", "docker run"),
        ("$(DOCKER) run img", "$(DOCKER) run"),
    ],
)
def test_command_names(line: str, name: str) -> None:
    assert parse(line).name == name


@pytest.mark.parametrize("line", ["docker build .", "echo docker run img", "docker", "podman ps", "run img"])
def test_lines_that_run_no_container(line: str) -> None:
    assert list(container_commands(line)) == []


def test_double_dash_ends_the_options() -> None:
    command = parse("docker run --rm -- -img --shm-size=1g")
    assert command.image is not None and command.image.text == "-img"
    assert [word.text for word in command.arguments] == ["--shm-size=1g"]
    assert not command.has_flag("--shm-size")


def test_an_options_variable_is_not_the_image() -> None:
    command = parse("docker run $DOCKER_ARGS img train.py")
    assert [word.text for word in command.unknown] == ["$DOCKER_ARGS"]
    assert command.image is not None and command.image.text == "img"


def last(text: str) -> ContainerCommand:
    """The last container command of a script (assignments before it)."""
    return list(container_commands(text))[-1]


#: option values a script may keep in a variable it puts in front of the options, and what it decides there
NEUTRAL_VALUES = st.sampled_from(["", "-it", "-d", "-i -t", "--rm", "--init", "--network host", "-u root"])
GPU_VALUES = st.sampled_from(["--gpus all", "--gpus=all", '--gpus "device=0,1"', "--runtime=nvidia"])


@given(
    st.lists(NEUTRAL_VALUES, min_size=1, max_size=3),
    st.sampled_from(["$FLAG", "${FLAG}"]),
    st.lists(flag_words(), max_size=4),
    IMAGE,
    st.lists(ARGUMENT, max_size=3),
)
def test_an_option_variable_the_script_assigns_never_loses_the_command(
    values: list[str], written: str, flags: list, image: str, arguments: list[str]
) -> None:
    """Whatever options-only values the script gives the variable (one per branch), the options after it, the
    image and the arguments are read as if the variable were not there: it drops nothing."""
    script = "".join(f'FLAG="{value}"\n' for value in values)
    line = " ".join(["docker run -u root", written, *(w for w, _, _ in flags), image, *arguments])
    command = last(script + line)
    read = [(flag.name, flag.value_text if flag.value is not None else None) for flag in command.flags]
    assert read == [("-u", "root"), *((name, value) for _, name, value in flags)]
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.arguments] == arguments
    assert command.unknown == ()


@given(GPU_VALUES, st.booleans(), IMAGE)
def test_an_option_variable_that_gives_a_gpu(value: str, branches: bool, image: str) -> None:
    """One value, or one value and a branch that gives nothing (no GPU on this host): its options are the
    command's (a GPU), as what runs needs /dev/shm on either branch."""
    script = f"G='{value}'\n" + ('if [ -z "$GPU" ]; then G=""; fi\n' if branches else "")
    command = last(script + f"docker run $G {image} python train.py")
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.arguments] == ["python", "train.py"]
    assert command.unknown == () and (command.has_flag("--gpus") or command.has_flag("--runtime"))


@pytest.mark.parametrize(
    "branches",
    [
        'G="--gpus all"\nG="--shm-size=1g"',  # a branch that sizes /dev/shm is not nothing
        'G="--gpus all"\nG="--env X=1"',  # nor one that sets something else read here
    ],
)
def test_an_option_variable_whose_branches_decide_differently_stays_unknown(branches: str) -> None:
    command = last(f"{branches}\ndocker run $G img python train.py")
    assert [word.text for word in command.unknown] == ["$G"]
    assert not command.has_flag("--gpus") and command.image is not None and command.image.text == "img"


@pytest.mark.parametrize(
    ("branches", "gpus"),
    [
        ('G="--gpus device=0"\nG="--gpus device=1"', "device=0"),
        ('if [ -z "$X" ]; then\n G="--gpus all"\nelse\n G="--gpus 1"\nfi', "all"),
        ('G="--gpus 2"\nG="--gpus 1"', "1"),  # the fewest, whatever the order (the review)
        ('G="--gpus 1"\nG="--gpus 2"', "1"),
        ('G="--gpus device=0,1"\nG="--gpus count=3"', "device=0,1"),
        # NVIDIA's MLPerf run_with_docker.sh (audit69d: the launch vanished, no finding and no notice)
        ("if [ -z \"${NV_GPU-}\" ]; then\n  readonly G=\"--gpus all\"\nelse\n"
         "  readonly G='--gpus=\"'device=${NV_GPU}'\" -e NVIDIA_VISIBLE_DEVICES='\"${NV_GPU}\"\nfi", "all"),
    ],
)  # fmt: skip
def test_an_option_variable_whose_branches_each_give_gpus_gives_them(branches: str, gpus: str) -> None:
    """Each branch gives the container GPUs its own way: GPUs run on every branch, read as the branch that counts
    the fewest (one that counts none first), never as none."""
    command = last(f"{branches}\ndocker run $G img python train.py")
    assert [flag.value_text for flag in command.flags if flag.long_name == "--gpus"] == [gpus]
    assert command.image is not None and command.image.text == "img"


@pytest.mark.parametrize(
    "branches",
    [
        'G="--gpus all"\nG="--runtime=runc"',
        'G="--device /dev/fuse"\nG="--gpus all"',
        'G="--runtime nvidia"\nG="--gpus 1"',
    ],
)
def test_an_option_variable_whose_branches_are_not_all_gpus_stays_unknown(branches: str) -> None:
    """The review: a runtime or a device another branch gives need not be an accelerator: which runs is not known."""
    command = last(f"{branches}\ndocker run $G img python train.py")
    assert [word.text for word in command.unknown] == ["$G"]


@pytest.mark.parametrize(
    "script",
    [
        'G="--gpus all"\ndocker run $G img python train.py\nG=""\ndocker run $G python:3.11 python serve.py',
        'G="--gpus all"; docker run $G img t; G=""; docker run $G python:3.11 serve',  # one line
        'train() {\n  E="--gpus all"\n  docker run $E img t\n}\nlint() {\n  E=""\n  docker run --rm $E python:3.11 x\n}',
        'G="--gpus all"\ndocker run $G img t\nif [ "$CPU_ONLY" = 1 ]; then G=""; fi\ndocker run $G app serve',
        'G="--gpus all"\ndocker run $G img t\ncase $M in\n  cpu) G="";;\nesac\ndocker run $G app serve',
    ],
)
def test_a_value_assigned_after_a_run_read_the_name_leaves_it_unknown(script: str) -> None:
    """Which value a later run gets depends on the order the script runs in, not only its branches: not read as
    the GPU (nor as none): unknown, as before any of its values was read."""
    first, second = list(container_commands(script))
    assert first.has_flag("--gpus") and not second.has_flag("--gpus") and len(second.unknown) == 1


@pytest.mark.parametrize("written", ["$G", "${G}", "${G-}", "${G:-}"])
def test_a_variable_with_an_empty_default_is_the_variable(written: str) -> None:
    """``${G-}`` and ``${G:-}`` are ``$G`` where the script sets it (a justfile's ``{{ G }}`` is read so)."""
    command = last(f'G="--gpus all"\ndocker run {written} img python train.py')
    assert command.has_flag("--gpus") and command.image is not None and command.image.text == "img"


def test_an_unassigned_variable_before_an_option_is_an_unknown_option() -> None:
    command = parse("docker run -u root $INTERACTIVE --rm --gpus all img python x.py")
    assert [word.text for word in command.unknown] == ["$INTERACTIVE"]
    assert command.has_flag("--gpus") and command.image is not None and command.image.text == "img"


@pytest.mark.parametrize(
    ("script", "image"),
    [
        ("docker run $IMAGE python x.py", "$IMAGE"),  # nothing says it is options: the image
        # the script says it is the image, and which: its one value, where the word is
        ("IMAGE=nvcr.io/nvidia/pytorch:24.01-py3\ndocker run $IMAGE --gpus all", "nvcr.io/nvidia/pytorch:24.01-py3"),
    ],
)
def test_what_an_expansion_is_when_the_script_says(script: str, image: str) -> None:
    command = last(script)
    assert command.image is not None and command.image.text == image
    assert not command.has_flag("--shm-size")


@pytest.mark.parametrize("written", ['S="--shm-size=1g"', "S=--shm-size=1g", "export S='--rm --shm-size 1g'"])
def test_a_variable_with_one_size_is_read_as_that_size(written: str) -> None:
    """The script gives it one value: its size is the container's (spanned on the variable, said as read from
    it), and a new option written after it wins."""
    script = f"{written}\ndocker run --gpus all $S img torchrun t.py"
    command = last(script)
    (size,) = command.flag_values("--shm-size")
    assert (size.value_text, size.expanded_from) == ("1g", "$S")
    assert script[size.flag.start : size.end] == script[size.value_start : size.value_end] == "$S"
    assert command.unknown == () and [word.text for word in command.may_set_shm] == ["$S"]
    assert command.image is not None and command.image.text == "img"


@pytest.mark.parametrize(
    ("script", "may_set_shm"),
    [
        ("docker run --gpus all $DOCKER_ARGS img", ["$DOCKER_ARGS"]),  # nothing says what it holds
        ("docker run --gpus all -u root $X --rm img", ["$X"]),
        ('G="--gpus all"\nG=""\ndocker run $G img', []),  # values known, none with a size
        ('S="--shm-size=1g"\nS="--shm-size=2g"\ndocker run $S img', ["$S"]),  # sizes that differ: unknown
        ('S="--ipc=host"\ndocker run $S img', ["$S"]),  # a mode it holds stays unknown, and shadows a size
        ('V="-v /data:/data"\nV=""\ndocker run --gpus all $V img', []),  # mounts elsewhere
        ('V="-v /dev/shm:/dev/shm"\ndocker run --gpus all $V img', ["$V"]),
        ("docker run --gpus all img", []),
    ],
)
def test_which_expansions_may_decide_dev_shm(script: str, may_set_shm: list[str]) -> None:
    assert [word.text for word in last(script).may_set_shm] == may_set_shm


@pytest.mark.parametrize(
    ("line", "arguments"),
    [
        # an option docker does not know, no image left, or no image reference after the options: the words are
        # the command of the image the variable names
        (
            "docker run --gpus all $IMG -m torch.distributed.run --nproc_per_node=2 t.py",
            ["-m", "torch.distributed.run", "--nproc_per_node=2", "t.py"],
        ),
        ("docker run --gpus all $IMG -d", ["-d"]),
        ("docker run --gpus all $IMG -i data/Train.csv", ["-i", "data/Train.csv"]),
        ("docker run --gpus all $IMG --gpus 2 --epochs 10", ["--gpus", "2", "--epochs", "10"]),
    ],
)
def test_an_expansion_before_words_docker_would_refuse_is_the_image(line: str, arguments: list[str]) -> None:
    command = parse(line)
    assert command.image is not None and command.image.text == "$IMG"
    assert [word.text for word in command.arguments] == arguments
    assert command.unknown == ()


@pytest.mark.parametrize(
    ("line", "image"),
    [
        ("docker run $X --rm img python x.py", "img"),
        ("docker run $X -it $IMAGE bash", "$IMAGE"),
        (
            "docker run $X -p8080:80 --oom-kill-disable nvcr.io/nvidia/pytorch:24.01-py3 python",
            "nvcr.io/nvidia/pytorch:24.01-py3",
        ),
        ("docker run $X -itq -- img", "img"),
    ],
)
def test_an_expansion_before_options_docker_takes_stands_among_them(line: str, image: str) -> None:
    command = parse(line)
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.unknown] == ["$X"]


@pytest.mark.parametrize("mount", ["$(pwd):/w", "`pwd`:/w", "$PWD:/w", "${HOME}/data:/data:ro"])
def test_a_variable_of_options_that_mount_elsewhere_is_read(mount: str) -> None:
    """``OPTS="--gpus all -v $(pwd):/w"``: the substitution is part of its word (not a command of the value, which
    read the value as no options and ``$OPTS`` as the image: the GPU was lost), and a mount whose target is written
    out elsewhere decides nothing about /dev/shm."""
    (command,) = container_commands(f'OPTS="--gpus all -v {mount}"\ndocker run $OPTS img python3 t.py')
    assert [flag.long_name for flag in command.flags] == ["--gpus", "--volume"]
    assert command.image is not None and command.image.text == "img" and not command.unknown


@pytest.mark.parametrize(
    "mount",
    [
        *("-v $X:/dev/shm", "-v $A:$B", "--tmpfs $T", "-v /dev:/dev", "--mount $M", "-v $PWD:/dev//shm"),
        *("--mount type=bind,src=$PWD,dst=/dev/shm/", "-v $PWD:/w $EXTRA"),
    ],
)
def test_a_variable_that_may_mount_dev_shm_stays_unknown(mount: str) -> None:
    (command,) = container_commands(f'OPTS="--gpus all {mount}"\ndocker run $OPTS img python3 t.py')
    assert [word.text for word in command.unknown] == ["$OPTS"] and not command.flags


@pytest.mark.parametrize("mount", ["-v /x:/dev/./shm", "-v /dev/shm:/dev/shm", "--volume=/dev/shm:/dev/shm:rw"])
def test_a_variable_that_binds_a_written_out_path_at_dev_shm_is_read(mount: str) -> None:
    """Nothing in it is filled in at run time: it is the mount it says (audit59a)."""
    (command,) = container_commands(f'OPTS="--gpus all {mount}"\ndocker run $OPTS img python3 t.py')
    assert [flag.long_name for flag in command.flags] == ["--gpus", "--volume"] and not command.unknown
    assert all(flag.expanded_from == "$OPTS" for flag in command.flags)


@pytest.mark.parametrize(
    ("script", "arguments"),
    [
        ('CMD="python3 train.py --epochs 3"\ndocker run --gpus all img $CMD', ["python3", "train.py", "--epochs", "3"]),
        ('CMD="python3 src/main.py $@"\ndocker run img ${CMD}', ["python3", "src/main.py", "$@"]),
        ('CMD="python3 train.py"\ndocker run img "$CMD"', ["$CMD"]),  # quoted: one word, a program of that name
        ("CMD=a\nCMD=b\ndocker run img $CMD", ["$CMD"]),  # two values: which one runs is not known
        ('CMD="$(cat cmd)"\ndocker run img $CMD', ["$CMD"]),  # a substitution: not the text's to say
        ("docker run img $CMD", ["$CMD"]),  # never assigned
        # a setting's value (audit80a: ``--tensor-parallel-size "$TP"`` after ``TP=2`` was read as an expansion)
        ('TP=2\ndocker run img serve --tp "$TP"', ["serve", "--tp", "2"]),
        ("TP=${TP:-2}\ndocker run img serve --tp $TP", ["serve", "--tp", "2"]),  # its default, as for an image
        ("TP=2\ndocker run img serve --tp=${TP}", ["serve", "--tp=2"]),
        ("TP=2\ndocker run img serve --tp=$TP:$PP", ["serve", "--tp=2:$PP"]),  # the other stays an expansion
        ('TP=1\nTP=2\ndocker run img serve --tp "$TP"', ["serve", "--tp", "$TP"]),  # which value runs is not known
        ('TP=2\nsource env.sh\ndocker run img serve --tp "$TP"', ["serve", "--tp", "$TP"]),  # the file may set it
        # the container's own variable, or one the text binds otherwise before the run (the review)
        ('TP=2\ndocker run img -c "cd $W && serve --tp \\$TP"', ["-c", "cd $W && serve --tp $TP"]),
        ("TP=2\ndocker run img -c \"cd $W && \"'serve --tp $TP'", ["-c", "cd $W && serve --tp $TP"]),
        ('TP=4\nfor TP in 1; do\n  docker run img serve --tp "$TP"\ndone', ["serve", "--tp", "$TP"]),
        ("TP=4\nfor TP in 1; do\n  docker run img serve --tp $TP\ndone", ["serve", "--tp", "$TP"]),
        ('TP=4\nprintf -v TP "%d" 1\ndocker run img serve --tp "$TP"', ["serve", "--tp", "$TP"]),
        ('TP=4\nlet TP=1\ndocker run img serve --tp "$TP"', ["serve", "--tp", "$TP"]),
        ('TP=4\n(( TP = 1 ))\ndocker run img serve --tp "$TP"', ["serve", "--tp", "$TP"]),
        ('TP=4\nwhile IFS=, read -r m TP; do\n  docker run img serve --tp "$TP"\ndone', ["serve", "--tp", "$TP"]),
        ('TP=4\ndocker run img serve --tp "$TP"\nfor TP in 1; do :; done', ["serve", "--tp", "4"]),  # bound after
    ],
)
def test_a_command_variable_the_script_assigns_once_is_its_words(script: str, arguments: list[str]) -> None:
    (command,) = container_commands(script)
    assert [word.text for word in command.arguments] == arguments
    assert all("$" in script[word.start : word.end] for word in command.arguments if word.text not in script)


@pytest.mark.parametrize(
    ("script", "flags", "unknown", "arguments"),
    [
        ('A=(--gpus all --shm-size 16g)\ndocker run "${A[@]}" img', ["--gpus", "--shm-size"], [], []),
        ("A=(\n  --gpus all\n  --shm-size=1g\n)\ndocker run ${A[@]} img", ["--gpus", "--shm-size"], [], []),
        ("A=(--gpus all --ipc=host)\ndocker run ${A[@]} img", ["--gpus", "--ipc"], [], []),  # an IPC mode, read
        (
            'C=(torchrun --nproc_per_node 4 "t r.py")\ndocker run img "${C[@]}"',
            [],
            [],
            ["torchrun", "--nproc_per_node", "4", "t r.py"],
        ),
        # an item the shell fills in, one word: read as that option with its value unknown, as ``A="--gpus $G"``
        ('A=(--gpus "$G")\ndocker run "${A[@]}" img', ["--gpus"], [], []),
        ('A=(--gpus all -v "$PWD:/w")\ndocker run "${A[@]}" img', ["--gpus", "--volume"], [], []),
        # a substitution's `)` is not the array's end
        (
            'A=(-it -v "$(pwd)":/w --shm-size 16g)\ndocker run "${A[@]}" img',
            ["-i", "-t", "--volume", "--shm-size"],
            [],
            [],
        ),
        ('A=(--gpus all $EXTRA)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # an item that may be several
        ('A=(--gpus all "$MAYBE_IPC")\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # one where an option is
        ('A=(--gpus all -v "$X:/dev/shm")\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # a mount at /dev/shm
        ('A=(--gpus all -v "$PWD:$TARGET")\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # a target not given
        ('A=(--gpus all -v /dev:/dev)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # /dev/shm is in it
        # added to in branches (read straight through): the whole built-up value, when nothing added decides /dev/shm
        (
            'A=(--gpus all)\nif [ "$D" = 1 ]; then\n  A+=(-d)\nelse\n  A+=(--rm)\nfi\ndocker run "${A[@]}" img',
            ["--gpus", "-d", "--rm"],
            [],
            [],
        ),
        ('A+=(--gpus all)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # a caller's value may be its first
        ('IFS=" " read -r -a A <<< "$X"\nA+=(--gpus all)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # read into
        ('A=(--gpus all)\nA[${#A[@]}]=--shm-size=1g\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # an item set
        ('A=(--gpus all)\nA+=(--shm-size 1g)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # a size maybe added
        ('A=(--gpus all)\nA+=($EXTRA)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # an item that may be several
        ('A=(--gpus all)\nsource env.sh\nA+=(-d)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # may be reset
        ('A="--gpus all"\nA+=(-d)\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # a string made an array
        ('A=--gpus\ndocker run "${A[@]}" img', [], ["${A[@]}"], []),  # not an array
    ],
)
def test_an_array_the_script_assigns_is_its_items(
    script: str, flags: list[str], unknown: list[str], arguments: list[str]
) -> None:
    (command,) = container_commands(script)
    assert [flag.long_name for flag in command.flags] == flags
    assert [word.text for word in command.unknown] == unknown
    assert [word.text for word in command.arguments] == arguments


@pytest.mark.parametrize(
    "script",
    [
        "A=(\n  docker run --gpus all img\n)\n",
        'A=(docker run --gpus all img)\necho "${A[@]}"\n',  # printed, not run
        '"${A[@]}"\nA=(docker run --gpus all img)\n',  # run before it holds the command
        'A=(docker run --gpus all img)\nA[3]=other\n"${A[@]}"\n',  # an item set after
        'A=(docker run --gpus all img)\nunset A\n"${A[@]}"\n',
        'A=(docker run --rm --gpus all)\n"${A[@]}"\n',  # no image in it nor in the run
        'A=(docker run --gpus all img)\nA=(docker build -t img .)\n"${A[@]}"\n',  # another command by then
        'A=(docker run --gpus all img)\nA=("${A[@]:0:3}" --shm-size 1g "${A[@]:3}")\n"${A[@]}"\n',  # rebuilt
        # a function that only prints it, and another whose own array of that name is what runs
        'p() {\n  local A=(docker run --gpus all img)\n  echo "${A[*]}"\n}\nb() {\n  local A=(make)\n  "${A[@]}"\n}\n',
        'declare -a A=(docker run --gpus all img)\necho "${A[*]}"\n',  # an array declared with its options
    ],
)
def test_an_arrays_items_are_not_commands_unless_it_is_run(script: str) -> None:
    """``A=(docker run --gpus all img)`` holds words: it runs nothing until a command runs it as it is."""
    assert list(container_commands(script)) == []


@pytest.mark.parametrize(
    "line",
    [
        'bash -c "docker run --gpus all img t"',
        "sudo sh -c 'docker run --gpus all img t'",
        'bash -lc "cd /w && docker run --gpus all img t"',
        'nohup bash -c "docker run --gpus all img t" &',
        'ssh -o StrictHostKeyChecking=no -p 22 node1 "docker run --gpus all \\\n  img t"',  # audit65a: each node
        "ssh node1 docker run --gpus all img t",  # the remote command as words
        "ssh node1 \"bash -c 'docker run --gpus all img t'\"",  # two shells deep
        # a quoted command run on other hosts or in a terminal session (audit73c: a byteps launcher's workers)
        'clush --hostfile "$HOSTS" "docker run --gpus all img t"',
        "pdsh -w node[1-4] 'docker run --gpus all img t'",
        'tmux new-session -d -s worker "docker run --gpus all img t"',
        'clush -w node[1-2] "cd /work && docker run --gpus all img t"',  # the review: a run after another command
        "screen -dmS worker docker run --gpus all img t",  # screen runs its words, not a shell's string
        "pdsh -w n[1-2] docker run --gpus all img t",
        'srun --nodes=2 -p gpu bash -c "docker run --gpus all img t"',  # audit81c: a Slurm allocation's nodes
    ],
)
def test_a_container_command_handed_to_another_shell_as_text_is_read(line: str) -> None:
    """``bash -c "docker run ..."`` and ``ssh host "docker run ..."``: the string's command, where it is written."""
    (command,) = container_commands(line + "\n")
    assert command.image is not None and command.image.text == "img"
    assert line[command.engine.start : command.run_word.end] == "docker run"
    assert [flag.long_name for flag in command.flags] == ["--gpus"]


def test_a_double_quoted_string_handed_on_is_read_as_its_value() -> None:
    """Inside double quotes ``\\\\`` at a line's end is a backslash that continues the remote command, and ``\\"``
    is a quote (audit65a: a TensorRT-LLM ``docker run`` over ssh, one option a line): each word where it is
    written."""
    script = (
        'ssh -o ConnectTimeout=10 "$USER@node" "\n'
        "    docker run -d --rm \\\\\n"
        "      --gpus '\\\"device=all\\\"' \\\\\n"
        '      -e NCCL_SOCKET_IFNAME=\\"$IF,$IF\\" \\\\\n'
        '      nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6 sh -c \\"curl -s x | sh\\"\n"\n'
    )
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6"
    assert script[command.image.start : command.image.end] == command.image.text
    gpus = command.flag_values("--gpus")[0]
    assert gpus.value_text == '"device=all"'
    assert [word.text for word in command.arguments] == ["sh", "-c", "curl -s x | sh"]
    assert script[command.run_word.start : command.run_word.end] == "run"


@pytest.mark.parametrize(
    "line",
    [
        "ssh node1 'echo docker run --gpus all img t'",  # printed there
        "tmux new -d 'echo docker run --gpus all img t'",
        "tmux new -s docker",  # a session named so
        "bash -c 'docker ps'",
        "bash run.sh docker run --gpus all img t",  # a script's arguments
        "ssh -p 22",  # no host
        "ssh node1",  # a login
        # three shells deep: past ``MAX_HANDED_ON``
        'ssh h "bash -c \'sh -c \\"docker run --gpus all img t\\"\'"',
        # a string inside a string whose escapes had to be undone is not the file's text (the review: the remote
        # run's --shm-size=8g, quoted with escaped quotes, was read as written: a false finding)
        r'bash -c "ssh n \"docker run --gpus all \\\"--shm-size=8g\\\" img t\""',
        # ssh joins its words with blanks and the remote shell splits them again: "--shm-size 8g" is two words there
        'ssh node1 docker run --gpus all "--shm-size 8g" img t',
    ],
)
def test_a_string_handed_on_is_read_only_as_a_shell_runs_it(line: str) -> None:
    assert list(container_commands(line + "\n")) == []


@pytest.mark.parametrize(
    ("function", "found"),
    [
        # audit68a: a multi-node script's wrapper, its body holding a ``{ ...; }`` group
        (
            'ssh_run() {\n  local host="$1"; shift\n  [[ -n "$DRY" ]] && { echo "$*"; return; }\n  ssh "$host" "$*"\n}\n',
            1,
        ),
        ('remote() { ssh -o BatchMode=yes "$1" "$2"; }\n', 1),
        ('function on() {\n  bash -lc "$*"\n}\n', 1),
        ('log() { echo "[$(date)] $*"; }\n', 0),  # it prints what it is given
    ],
)
def test_a_function_that_hands_its_arguments_to_another_shell_runs_the_strings_it_is_given(
    function: str, found: int
) -> None:
    name = function.split("(")[0].removeprefix("function ").strip()
    script = f'{function}{name} "$HOST" "docker run --gpus all \\\n  img t"\n{name} "$HOST" "echo docker run x y"\n'
    commands = list(container_commands(script))
    assert len(commands) == found
    assert all(c.image is not None and c.image.text == "img" for c in commands)


@pytest.mark.parametrize(
    "line",
    [
        'bash -c "$(docker run --gpus all img t)"',  # the local shell runs it: once, not again inside the string
        "bash -c 'echo $(docker run --gpus all img t)'",  # the inner shell runs it
    ],
)
def test_a_command_substitution_in_a_handed_on_string_is_one_command(line: str) -> None:
    assert len(list(container_commands(line + "\n"))) == 1


@pytest.mark.parametrize(
    ("assign", "run"),
    [
        ('cmd="docker run --gpus all -e N=1 vllm/vllm-openai:v0.6 --tensor-parallel-size 4"', "$cmd"),
        ("CMD='docker run --gpus all -e N=1 vllm/vllm-openai:v0.6 --tensor-parallel-size 4'", 'eval "$CMD"'),
        ('export CMD="docker run --gpus all -e N=1 vllm/vllm-openai:v0.6 --tensor-parallel-size 4"', "sudo ${CMD}"),
        ('local cmd="sudo docker run --gpus all -e N=1 vllm/vllm-openai:v0.6 --tensor-parallel-size 4"', "eval $cmd"),
    ],
)
def test_a_string_the_script_runs_is_a_container_command(assign: str, run: str) -> None:
    """``cmd="docker run ..."`` then ``$cmd`` or ``eval "$cmd"`` (audit64b: a benchmark script that echoes its
    command first): the string's words, at their offsets in the file, found where it runs."""
    script = f'{assign}\necho "$cmd"\n{run}\n'
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == "vllm/vllm-openai:v0.6"
    assert [flag.long_name for flag in command.flags] == ["--gpus", "--env"]
    assert [word.text for word in command.arguments] == ["--tensor-parallel-size", "4"]
    assert script[command.engine.start : command.run_word.end] == "docker run"
    assert script[command.first.start : command.first.end] == run.split()[-1]


@pytest.mark.parametrize(
    "script",
    [
        'cmd="docker run --gpus all img t"\necho $cmd',  # printed, not run
        'cmd="docker run --gpus all img t"\n"$cmd"',  # one word: a program of that whole name
        'cmd="docker run --gpus all img t"\ncmd="--shm-size 8g $cmd"\n$cmd',  # read elsewhere than first: not known
        'cmd="docker run --gpus all img t"\ncmd="$cmd; nvidia-smi"\neval "$cmd"',  # adds another command
        'cmd="docker run --gpus all img t"\ncmd=$(other)\n$cmd',  # given another value
        'cmd="docker run --gpus all img t && echo done"\neval "$cmd"',  # more than one command
        'cmd="echo docker run --gpus all img t"\n$cmd',  # not a container command
        # bound again otherwise than by an assignment (the review): a loop, read in a while, printf -v
        'cmd="docker run --gpus all img t"\nfor cmd in nvidia-smi "df -h"; do $cmd; done',
        'cmd="docker run --gpus all img t"\nwhile read -r cmd; do $cmd; done < jobs.txt',
        'cmd="docker run --gpus all img t"\nprintf -v cmd "%s" ls\n$cmd',
        'CMD=(docker run --gpus all img t)\nfor CMD in a b; do "${CMD[@]}"; done',
    ],
)
def test_a_string_is_a_container_command_only_when_run_as_written(script: str) -> None:
    assert list(container_commands(script)) == []


@pytest.mark.parametrize("add", ['CMD="$CMD {}"', 'CMD="${{CMD}} {}"', 'CMD+=" {}"'])
def test_a_string_built_up_and_evaluated_is_a_container_command(add: str) -> None:
    """``CMD="docker run --rm"``, options added line by line (some in an ``if``, read straight through as arrays'
    ``+=`` are), then ``eval "$CMD"`` (audit86c: a trainer's launch script): the words of every line, where each
    line has them; a quoted variable of the command gets its plain value whole (``bash -c "$ARGS"``, the last of
    values each growing the one before), as the names stood before the ``eval``."""
    script = (
        'IMAGE=acme/bev\nCMD="docker run --rm"\nif [[ "$GPU" == 1 ]]; then\n  '
        + add.format("--gpus all")
        + "\nfi\n"
        + add.format("-v $PWD:/w -w /w $IMAGE")
        + '\nARGS="python train.py"\nif [ -n "$CFG" ]; then ARGS="$ARGS --config $CFG"; fi\nARGS="$ARGS --epochs 3"\n'
        + add.format('bash -c \\"$ARGS\\"')
        + '\neval "$CMD"\n'
    )
    (command,) = container_commands(script)
    assert [flag.long_name for flag in command.flags] == ["--rm", "--gpus", "--volume", "--workdir"]
    assert command.image is not None and command.image.text == "acme/bev"
    assert [word.text for word in command.arguments] == ["bash", "-c", "python train.py --config $CFG --epochs 3"]
    assert script[command.first.start : command.first.end] == '"$CMD"'


@pytest.mark.parametrize(
    "run", ['"${CMD[@]}"', "${CMD[*]}", 'sudo -E "${CMD[@]}"', 'eval "${CMD[*]}"', 'timeout -s INT 1h "${CMD[@]}"']
)
def test_an_array_the_script_runs_is_a_container_command(run: str) -> None:
    """A container command kept in an array and run from it (``"${CMD[@]}"``): its words where the array has them,
    after the text's own commands (theirs keep their order), with what ``CMD+=(...)`` adds."""
    script = (
        "docker run --gpus all app:1 serve\n"
        'CMD=(docker run --rm --gpus all -v "$PWD:/w"\n     pytorch/pytorch:2.3.0 torchrun --nproc_per_node=4 /w/t.py)\n'
        "CMD+=(--epochs 3)\n"
        f"{run}\n"
    )
    plain, held = container_commands(script + 'unset CMD\n"${CMD[@]}"\n')  # run once: that run is what it was
    assert plain.image is not None and plain.image.text == "app:1"
    assert held.image is not None and held.image.text == "pytorch/pytorch:2.3.0"
    assert [flag.long_name for flag in held.flags] == ["--rm", "--gpus", "--volume"]
    assert [word.text for word in held.arguments] == ["torchrun", "--nproc_per_node=4", "/w/t.py", "--epochs", "3"]
    assert script[held.engine.start : held.run_word.end] == "docker run"
    assert script[held.first.start : held.first.end] == run.split()[-1]  # found where it runs


def test_an_array_is_read_only_as_all_its_items() -> None:
    """``$A`` of an array is its first item; ``${A[@]}`` of a plain name is that name's value, not read so."""
    from shmlint.parsers.option_variables import Assignments, assigned_name, note_assignment
    from shmlint.parsers.shell import Word, commands

    text = "A=(--gpus all)\nB=--gpus\n"
    assigned = Assignments()
    simple = list(commands(text))
    for index, command in enumerate(simple):
        note_assignment(command, text, assigned, simple[index + 1 :])
    names = {word: assigned_name(Word(word, 0, 0, True, True), assigned) for word in ("$A", "${A[@]}", "$B", "${B[@]}")}
    assert names == {"$A": "", "${A[@]}": "A", "$B": "B", "${B[@]}": ""}


@pytest.mark.parametrize(
    ("script", "image"),
    [
        ('IMAGE=${DOCKER_IMAGE:-"acme/app:1"}\ndocker run ${IMAGE}', "acme/app:1"),
        ("IMAGE=${DOCKER_IMAGE-acme/app}\ndocker run $IMAGE", "acme/app"),
        ("DOCKER_IMAGE=x/y\nIMAGE=${DOCKER_IMAGE:-acme/app}\ndocker run $IMAGE", "$IMAGE"),
        ("IMAGE=${DOCKER_IMAGE:-$BASE}\ndocker run $IMAGE", "$IMAGE"),
    ],
)
def test_an_image_the_script_defaults_from_the_environment_is_its_default(script: str, image: str) -> None:
    """Run as written, without the variable it defaults from: its default; a script that gives that variable a
    value of its own leaves the image to it (not read here)."""
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == image


def test_what_an_array_is_given_after_is_read_and_each_run_of_a_prefix_is_its_own_command() -> None:
    """``D+=(--shm-size 16g)`` adds to what the run reads (it was left out: a false error); each run that adds words
    is a command of its own (up to ``MAX_RUNS``: ``"${D[@]}" nvidia-smi`` then ``"${D[@]}" torchrun ...`` is two),
    runs that add none are the array's one command."""
    (grown,) = container_commands('D=(docker run --rm --gpus all)\nD+=(--shm-size 16g)\n"${D[@]}" img t')
    assert grown.has_flag("--shm-size") and grown.image is not None and grown.image.text == "img"
    runs = "".join(f'"${{D[@]}}" img{index} t\n' for index in range(20))
    found = list(container_commands(f"D=(docker run --rm --gpus all)\n{runs}"))
    assert [c.image.text for c in found if c.image] == [f"img{index}" for index in range(ArrayRuns.MAX_RUNS)]
    assert len(list(container_commands(f"D=(docker run --gpus all img)\n{runs}"))) == ArrayRuns.MAX_RUNS
    assert len(list(container_commands('D=(docker run --gpus all img t)\n"${D[@]}"\n"${D[@]}"\n'))) == 1


@pytest.mark.parametrize(
    ("script", "image", "added"),
    [
        ('D=()\nD+=(docker run --gpus all img t)\n"${D[@]}"', "img", []),  # built by ``+=`` from nothing
        ('D=(sudo)\nD+=(docker run --gpus all img t)\n"${D[@]}"', "img", []),
        ('D+=(docker run --gpus all img t)\n"${D[@]}"', "img", []),  # never given before
        ('D=(docker run --gpus all img t)\nD=(sudo "${D[@]}")\n"${D[@]}"', "img", []),  # made of itself
        ('D=(docker run --gpus all img t)\nD=("${D[@]}" --epochs 3)\n"${D[@]}"', "img", ["--epochs", "3"]),
        ('D=(sudo docker)\n"${D[@]}" run --gpus all img t', "img", []),  # the engine in an array
    ],
)
def test_an_array_is_read_as_the_text_built_it(script: str, image: str, added: list[str]) -> None:
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.arguments] == ["t", *added]


@pytest.mark.parametrize(
    "script",
    [
        'D=(docker run --gpus all img t)\n"${D[*]}"',  # one word: a program of that whole name
        'D=(docker run --gpus all img t)\nD=("${X[@]}" "${D[@]}")\n"${D[@]}"',  # made of an array not shown
        'D=(docker run --gpus all img t)\nD=("${D[@]:1}")\n"${D[@]}"',  # a slice
    ],
)
def test_an_array_the_text_does_not_show_whole_is_not_read(script: str) -> None:
    assert list(container_commands(script)) == []


@pytest.mark.parametrize(
    "script",
    [
        # a function's own array over the text's: which one the run gets is not known
        'D=(docker run --gpus all --shm-size 16g img)\nshow() { local -a D=(docker run --gpus all img); }\n"${D[@]}" t',
        'D="echo"\nD+=(docker run --gpus all img t)\n"${D[@]}"',  # added to a string: ``echo docker ...``
        'D=(docker run --gpus all img t)\nif command -v "${D[@]}" >/dev/null; then :; fi',  # asks, runs nothing
    ],
)
def test_an_array_whose_value_at_the_run_is_not_known_is_not_read(script: str) -> None:
    assert list(container_commands(script)) == []


@pytest.mark.parametrize(
    "script",
    [
        # a function of the script that runs its arguments (an audit's misses: pytorch-pfn-extras, chainer)
        'run() { echo "+ $*" >&2; "$@"; }\nD=(docker run --gpus all img t)\nrun "${D[@]}"',
        'run()\n{\n  set -x\n  exec "$@"\n}\nD=(docker run --gpus all img t)\nrun "${D[@]}"',
        'function run { echo "+ $*"; "$@"; }\nD=(docker run --gpus all img t)\nrun "${D[@]}"',
        'F=(--gpus all)\nD=(docker run ${F[@]:+"${F[@]}"} img t)\n${D[@]:+"${D[@]}"}',
        # the ``set -u`` spelling of an array that may be empty (apache/tvm)
        'F=(--gpus all)\nD=(docker run ${F[@]+"${F[@]}"} img t)\n${D[@]+"${D[@]}"}',
        'B=docker\nD=(${B} run --gpus all img t)\n"${D[@]}"',  # the engine in a variable the script gives
    ],
)
def test_an_array_run_through_a_runner_or_spelled_for_set_u_is_read(script: str) -> None:
    (command,) = container_commands(script)
    assert command.has_flag("--gpus") and command.image is not None and command.image.text == "img"


@pytest.mark.parametrize(
    "function",
    [
        'show() { echo "+ $*"; }',
        'log() { echo "running; $@" >&2; }',  # in a string
        "show() { printf '%s ' \\\n  \"$@\"; echo; }",  # an argument on a continued line
        'keep() { ARGS=(\n  "$@"\n); }',  # an array's item
        "cat > helper.sh <<'EOF'\nrun() { \"$@\"; }\nEOF",  # a here-document's text, not the script's function
    ],
)
def test_a_function_that_does_not_run_its_arguments_runs_no_array(function: str) -> None:
    script = f'{function}\nD=(docker run --gpus all img t)\nrun "${{D[@]}}"\nshow "${{D[@]}}"\nlog "${{D[@]}}"\n'
    assert list(container_commands(script + 'keep "${D[@]}"\n')) == []


def test_an_engine_in_a_variable_is_the_engine_it_holds() -> None:
    """``B=podman; $B run ...`` is podman's run (its own rules apply); a name that says docker stays an engine
    whatever it holds."""
    (command,) = container_commands("B=podman\n$B run --gpus all img t\n")
    assert command.engine.text == "podman" and command.name == "podman run"
    (named,) = container_commands("DOCKER=finch\n$DOCKER run --gpus all img t\n")
    assert named.engine.text == "$DOCKER"


def test_arrays_made_of_one_prefix_are_each_their_own_command() -> None:
    """Two arrays built from one ``BASE`` start at the same word: each run is still its own command."""
    script = (
        'BASE=(docker run --rm)\nEVAL=("${BASE[@]}" img python eval.py)\n'
        'TRAIN=("${BASE[@]}" --gpus all trainer python train.py)\n"${EVAL[@]}"\n"${TRAIN[@]}"\n'
    )
    assert [c.image.text for c in container_commands(script) if c.image] == ["img", "trainer"]


def test_a_functions_own_array_run_inside_it_is_read() -> None:
    script = 'train() {\n  local cmd=(docker run --gpus all img python t.py)\n  "${cmd[@]}"\n}\ntrain\n'
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == "img"


def test_all_of_the_scripts_arguments_in_braces_stand_for_options() -> None:
    (command,) = container_commands('D=(docker run --gpus all "${@}")\n"${D[@]}" img')
    assert [word.text for word in command.unknown] == ["${@}"] and command.image is not None
    assert command.image.text == "img"


def test_an_array_is_not_read_across_ci_steps() -> None:
    """A CI job's ``run:`` steps are shells of their own (``in_blocks``): an array given in one is not run in the
    next."""
    text = 'CMD=(docker run --gpus all img torchrun t.py)\n"${CMD[@]}"\n'
    assert len(list(container_commands(text))) == 1
    assert list(container_commands(text, in_blocks=True)) == []


@pytest.mark.parametrize(
    ("script", "image", "arguments"),
    [
        # the array starts the command and the run line goes on with it
        ('D=(docker run --rm --gpus all app:1)\n"${D[@]}" torchrun t.py', "app:1", ["torchrun", "t.py"]),
        ('D=(docker run --rm --gpus all -v "$PWD:/w")\n"${D[@]}" app:1 python3 t.py', "app:1", ["python3", "t.py"]),
        # given again before the run: the value the run gets
        ('D=(docker run old:1)\nD=(docker run --gpus all new:1 serve)\n"${D[@]}"', "new:1", ["serve"]),
        ('declare -a D=(docker run --gpus all app:1 serve)\n"${D[@]}"', "app:1", ["serve"]),
        ('D=(docker run --rm --gpus all)\nD+=("$IMAGE" python3 t.py)\n"${D[@]}"', "$IMAGE", ["python3", "t.py"]),
    ],
)
def test_an_array_run_is_read_with_the_words_the_run_adds(script: str, image: str, arguments: list[str]) -> None:
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == image
    assert [word.text for word in command.arguments] == arguments
    assert script[command.engine.start : command.run_word.end] == "docker run"
    assert command.first.text.startswith("${D[@]}"[:2]) and "[@]" in command.first.text  # found where it runs


@pytest.mark.parametrize(
    "script",
    [
        'A=(--gpus all --shm-size 512m)\n[ -n "$BIG" ] && A[3]=32g\ndocker run "${A[@]}" img',  # an item changed
        'A=(--gpus all --shm-size 512m)\nunset A\ndocker run "${A[@]}" img',
    ],
)
def test_an_array_whose_items_cannot_be_read_exactly_stays_unknown(script: str) -> None:
    (command,) = container_commands(script)
    assert [word.text for word in command.unknown] == ["${A[@]}"]
    assert not command.has_flag("--shm-size")


@pytest.mark.parametrize(
    "script",
    [
        'A=(\n  --gpus all  # every GPU (see nvidia-smi)\n  --shm-size 16g\n)\ndocker run "${A[@]}" img',
        'A=(--gpus all --label "a)b" --shm-size 16g)\ndocker run "${A[@]}" img',
    ],
)
def test_an_arrays_end_is_the_first_paren_outside_its_words_and_comments(script: str) -> None:
    (command,) = container_commands(script)
    assert command.has_flag("--shm-size") and command.has_flag("--gpus") and not command.unknown


def test_an_array_of_many_lines_is_read_to_its_end() -> None:
    lines = "".join(f"  -e A{index}=1\n" for index in range(70))
    (command,) = container_commands(f'A=(\n  --gpus all\n{lines}  --shm-size 16g\n)\ndocker run "${{A[@]}}" img')
    assert command.has_flag("--shm-size") and not command.unknown


@pytest.mark.parametrize("value", ["--tmpfs $SPEC", "-v $SHMVOL", "--mount type=tmpfs,destination=$P,tmpfs-size=8g"])
def test_an_option_variables_mount_that_expands_may_be_at_dev_shm(value: str) -> None:
    (command,) = container_commands(f'OPTS="--gpus all {value}"\ndocker run $OPTS img')
    assert [word.text for word in command.may_set_shm] == ["$OPTS"]


@pytest.mark.parametrize(
    "value",
    [
        "echo 'torchrun --nproc_per_node=8 t.py'",
        "bash -c 'torchrun t.py'",
        'python3 t.py \\"x\\"',
        "torchrun t.py; sleep 1",
    ],
)
def test_a_command_variable_with_quotes_is_not_split_as_the_shell_would_not(value: str) -> None:
    (command,) = container_commands(f'CMD="{value}"\ndocker run img $CMD')
    assert [word.text for word in command.arguments] == ["$CMD"]


@pytest.mark.parametrize(
    ("script", "image"),
    [
        ("source .env\nIMAGE=${DOCKER_IMAGE:-acme/app}\ndocker run $IMAGE", "$IMAGE"),  # the file may set it
        (". ./env.sh\nIMAGE=${IMAGE:-acme/app}\ndocker run $IMAGE", "$IMAGE"),
        ("IMAGE=${IMAGE:-acme/app}\ndocker run $IMAGE", "acme/app"),  # its own default
    ],
)
def test_an_images_default_after_a_file_of_assignments_is_not_known(script: str, image: str) -> None:
    (command,) = container_commands(script)
    assert command.image is not None and command.image.text == image


@pytest.mark.parametrize(
    "script",
    [
        'E=""\nif [ -n "$GPU" ]; then E="${E} --gpus all"; fi\n',  # built up under a condition
        'E="-it"\nE+=" --gpus all"\n',  # added to
        'E="-v a:/b"\nif [ -n "$G" ]; then E="$E --gpus all"; fi\nif [ -n "$X" ]; then E="$E -e X=1"; fi\n',
        'E="--rm"\nexport E="$E --gpus=all"\n',
    ],
)
def test_an_option_variable_the_script_builds_up_is_read_as_every_condition_adds(script: str) -> None:
    """``E="$E --gpus all"`` and ``E+=...`` add to what the name held: the value with every addition is the
    container as its accelerator branch runs."""
    command = last(script + "docker run $E img python train.py")
    assert command.has_flag("--gpus") and command.unknown == ()
    assert command.image is not None and command.image.text == "img"
    assert [word.text for word in command.arguments] == ["python", "train.py"]


@pytest.mark.parametrize(
    "script",
    [
        'E="${E} --gpus all"\n',  # what the environment holds is not known
        'E+=" --gpus all"\n',
        'E="-it"\nE="$E --gpus all"\nE="$E --shm-size=1g"\n',  # a size in one branch: which one runs is not known
        'E="--gpus all"\nE="$E --ipc=host"\n',
        'E=(-it)\nE+=" --gpus all"\n',  # added to an array
        'E="it\'s"\nE="$E --gpus all"\n',  # a quote the reading would have to rewrite
    ],
)
def test_an_option_variable_built_up_from_what_is_not_known_stays_unknown(script: str) -> None:
    command = last(script + "docker run $E img python train.py")
    assert not command.has_flag("--shm-size") and not command.has_flag("--ipc")
    assert [word.text for word in command.unknown] == ["$E"] or command.image is None or command.image.text == "$E"


def test_a_variable_of_options_and_the_image_is_its_words_where_it_is() -> None:
    script = 'A="--gpus all -v $PWD:/w --rm nvcr.io/nvidia/pytorch:24.01-py3 python train.py"\ndocker run $A'
    command = last(script)
    at = script.index("$A", script.index("docker"))
    assert command.image is not None and command.image.text == "nvcr.io/nvidia/pytorch:24.01-py3"
    assert (command.image.start, command.image.end) == (at, at + 2)
    assert [word.text for word in command.arguments] == ["python", "train.py"]
    assert [(flag.name, flag.value_text, flag.expanded_from) for flag in command.flags[:2]] == [
        ("--gpus", "all", "$A"),
        ("-v", "$PWD:/w", "$A"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        "--gpus all -v /dev/shm:/dev/shm img",  # a mount a fix would have to write into
        "--gpus all $IMAGE",  # the image is not known
        "img --gpus all",  # not options first
    ],
)
def test_a_variable_of_options_and_an_image_that_may_mount_dev_shm_is_not_split(value: str) -> None:
    command = last(f'A="{value}"\ndocker run $A')
    assert not command.has_flag("--shm-size") and not command.has_flag("--ipc") and not command.has_flag("--volume")


@pytest.mark.parametrize(
    ("value", "flag"), [("--gpus all --shm-size=1g img", "--shm-size"), ("--ipc=host img", "--ipc")]
)
def test_a_variable_of_options_and_an_image_gives_its_size_and_ipc_mode(value: str, flag: str) -> None:
    """Read as the variable's (no fix writes into it, nor beside it: ``commandline._target``)."""
    command = last(f'A="{value}"\ndocker run $A')
    assert command.has_flag(flag) and command.image is not None and command.image.text == "img"


def test_the_fix_for_a_variable_of_options_and_the_image_goes_before_it(tmp_path: Path) -> None:
    """The size is written in front of the variable (after it would be the image's command), never into it."""
    script = (
        'A="--gpus all --rm nvcr.io/nvidia/pytorch:24.01-py3 torchrun --nproc_per_node=2 train.py"\ndocker run $A\n'
    )
    path = tmp_path / "run.sh"
    path.write_text(script)
    engine = Engine(Settings())
    (finding,) = engine.check_candidate(Candidate(str(path), FileKind.SHELL, True)).findings
    assert finding.code == "SHM001" and finding.severity is Severity.ERROR
    result = fix_source(engine, SourceText(str(path), script), FileKind.SHELL, path)
    assert result.text == script.replace("docker run $A", "docker run --shm-size=8g $A")


@pytest.mark.parametrize(
    "script",
    [
        # a value given after a command read the name: which one a later run gets is the script's order
        'E="-it"\ndocker run $E img python t.py\nE="$E --gpus all"\n',
        # a held value whose quotes the shell would keep as characters: not read as options
        'E=\'-e "NCCL_SHM_DISABLE=1"\'\nE="$E --gpus all"\n',
        # read through an operator: not what the name held
        'E="-it"\nE="${E:+$E }--gpus all"\n',
        # a file of assignments read in between may have given the name anything
        'E="-it"\n. ./env.sh\nE="$E --gpus all"\n',
        'E="-it"\nsource "$CONFIG"\nE+=" --gpus all"\n',
    ],
)
def test_a_value_built_from_what_the_name_may_not_hold_stays_unknown(script: str) -> None:
    """Not read as the options it would be with what the name held before: unknown among the options, or (a value
    this reading cannot split) perhaps the image, as any such value is."""
    command = last(script + "docker run $E img2 python train.py")
    assert not command.has_flag("--gpus") and not command.has_flag("--env")
    image = command.image.text if command.image is not None else None
    assert [word.text for word in command.unknown] == ["$E"] or image == "$E"


@pytest.mark.parametrize(
    "reads_in",
    [". ./.env", "source .env", 'eval "$(cat env)"', "export $(grep -v '^#' .env | xargs)", "set -a; . ./.env"],
)
def test_an_option_variable_given_before_a_file_of_assignments_is_not_known_after_it(reads_in: str) -> None:
    """What ``.env`` sets is not read: ``E`` may hold a size or an IPC mode after it, so it stays unknown."""
    command = last(f'E="-it"\n{reads_in}\ndocker run $E --gpus all img torchrun --nproc_per_node 4 t.py')
    assert [word.text for word in command.unknown] == ["$E"] and command.has_flag("--gpus")
    assert not last('E="-it"\ndocker run $E --gpus all img torchrun t.py').unknown


def test_an_array_given_again_after_a_file_of_assignments_is_its_items() -> None:
    script = 'A=(-it)\n. ./.env\nA=(--gpus all)\ndocker run "${A[@]}" img torchrun t.py'
    command = last(script)
    assert command.has_flag("--gpus") and command.unknown == ()


@given(st.text(alphabet='ab $"\\`\n', max_size=40))
def test_a_double_quoted_value_is_what_was_quoted_and_each_character_is_placed(value: str) -> None:
    """Quoting a value for double quotes, then reading it back, gives the value, each character at an offset of
    the quoted text that holds it."""
    from shmlint.parsers.container_command import _double_quoted_value

    quoted = "".join("\\" + c if c in '$`"\\' else c for c in value)
    found, where = _double_quoted_value(quoted, 0, len(quoted))
    assert found == value
    assert [quoted[at] for at in where[:-1]] == list(value)
    assert where[-1] == len(quoted)


def test_the_texts_forwarding_functions_are_looked_for_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search for functions that hand their arguments on runs once a text, not once a command (found in the
    session's final read: a 20,000-line script with a ``$`` in each line took 464 s)."""
    from shmlint.parsers import container_command

    searched: list[int] = []
    real = container_command._FORWARDS

    class Counted:
        def search(self, text: str, *args: int) -> object:
            searched.append(len(text))
            return real.search(text, *args)

    monkeypatch.setattr(container_command, "_FORWARDS", Counted())
    assert list(container_commands("echo a $x\n" * 500)) == []
    assert len(searched) == 1


RUN8 = "docker run --gpus all img torchrun --nproc_per_node=8 t.py"


@pytest.mark.parametrize(
    ("script", "read"),
    [
        (f"bash <<EOF\n{RUN8}\nEOF\n", True),  # a shell runs the body
        (f"sudo -E bash -s <<'EOF'\n{RUN8}\nEOF\n", True),
        (f"ssh node1 <<EOF\n{RUN8}\nEOF\n", True),
        (f"sbatch <<EOF\n#!/bin/bash\n#SBATCH --gres=gpu:8\n{RUN8}\nEOF\n", True),
        # a script written for a machine to run (audit83d: the user-data a cloud launcher writes)
        (f"cat > user-data.sh <<EOF\n#!/bin/bash\n{RUN8}\nEOF\n", True),
        (f"cat <<'EOF' | tee /opt/start.sh\n{RUN8}\nEOF\n", True),
        # printed, or written to a file nothing runs
        (f"cat <<EOF\nUsage:\n  {RUN8}\nEOF\n", False),
        (f"cat > notes.txt <<EOF\n{RUN8}\nEOF\n", False),
        (f"python3 - <<EOF\nprint('{RUN8}')\nEOF\n", False),
    ],
)
def test_a_here_document_a_shell_runs_or_a_script_is_written_from_is_read(script: str, read: bool) -> None:
    found = list(container_commands(script))
    assert len(found) == read
    if read:
        (command,) = found
        assert script[command.engine.start : command.run_word.end] == "docker run"
        assert [word.text for word in command.arguments][-1] == "t.py"


def test_where_names_are_bound_is_found_once_a_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: one search of the whole text for each name a command reads made a 400 KB script take 8 minutes;
    the places names are bound are found in one pass."""
    from shmlint.parsers import container_command as module

    calls: list[int] = []
    real = module._first_binds
    monkeypatch.setattr(module, "_first_binds", lambda text: calls.append(1) or real(text))
    script = "TP=2\n" + "".join(f'docker run --gpus all img{i} serve --tp "$TP" --a "$A{i}"\n' for i in range(200))
    found = list(container_commands(script))
    assert len(found) == 200 and len(calls) == 1
    assert [word.text for word in found[0].arguments][:3] == ["serve", "--tp", "2"]
