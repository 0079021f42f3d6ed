"""Masks of embedded shell: same length as the file, line breaks kept, only shell left visible."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.parsers.embedded.ci_yaml import mask_ci_yaml
from shmlint.parsers.embedded.makefile import (
    MAX_ASSIGNMENTS,
    MAX_CONTINUED,
    MAX_VALUE,
    braced_references,
    make_assignments,
    mask_makefile,
)
from shmlint.parsers.embedded.markdown import markdown_shell_blocks, mask_markdown
from shmlint.parsers.embedded.rst import rst_shell_blocks
from shmlint.parsers.embedded.shell_blocks import CodeLine
from shmlint.parsers.shell import commands
from shmlint.parsers.yamlnodes import compose
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import run_shmlint


def visible(masked: str) -> list[str]:
    """The non-blank lines of a mask, stripped: what the tokenizer will read."""
    return [line.strip() for line in masked.split("\n") if line.strip()]


def assert_is_mask(original: str, masked: str) -> None:
    assert len(masked) == len(original)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(original) if c == "\n"]


# -- Markdown ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "info", ["", "bash", "sh", "shell", "zsh", "Bash", "bash title=run.sh", "{.bash}", "shell ", "docker", "Docker"]
)
def test_markdown_shell_fences(info: str) -> None:
    text = f"Intro `docker run x` prose.\n\n```{info}\ndocker run --gpus all img\n```\nAfter.\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert visible(masked) == ["docker run --gpus all img"]


@pytest.mark.parametrize("info", ["python", "yaml", "dockerfile", "json", "text"])
def test_markdown_other_fences_are_blank(info: str) -> None:
    assert visible(mask_markdown(f"```{info}\ndocker run --gpus all img\n```\n")) == []


def test_a_docker_fence_is_read_for_its_commands_and_a_dockerfile_in_one_runs_nothing(tmp_path) -> None:
    """``docker`` fences hold ``docker run`` lines in most READMEs and a Dockerfile in some: its instructions start
    no container (a ``RUN`` that runs ``docker run`` itself would be read as one, as in any shell block)."""
    (tmp_path / "README.md").write_text(
        "```docker\ndocker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n```\n\n"
        '```docker\nFROM pytorch/pytorch\nRUN pip install x\nCMD ["torchrun", "--nproc_per_node=2", "t.py"]\n```\n'
    )
    done = run_shmlint("check", "README.md", cwd=tmp_path)
    assert [line.split(" ")[0] for line in done.stdout.splitlines() if "SHM001" in line] == ["README.md:2:1:"]


def test_a_dockerfile_in_a_docker_fence_is_not_shell(tmp_path) -> None:
    """Its apostrophes (``MAINTAINER Jane O'Neil``) would open a quote that swallows the next block's command."""
    (tmp_path / "README.md").write_text(
        "```docker\nFROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nMAINTAINER Jane O'Neil <jane@example.com>\n```\n\n"
        "```bash\ndocker run --gpus all -it img torchrun --nproc_per_node=8 train.py\n```\n"
    )
    done = run_shmlint("check", "README.md", cwd=tmp_path)
    assert [line.split(" ")[0] for line in done.stdout.splitlines() if "SHM001" in line] == ["README.md:7:1:"]


def test_markdown_tilde_fences_and_longer_closers() -> None:
    text = "~~~~bash\ndocker run a\n~~~\nstill code\n~~~~~\nprose\n````\n```\ninside\n````\n"
    # the block's third backtick opens a substitution it never closes: blanked, so it cannot run on
    assert visible(mask_markdown(text)) == ["docker run a", "~~~", "still code", "``", "inside"]


def test_markdown_inline_triple_backticks_are_not_a_fence() -> None:
    text = "* ```shm-size``` - the shared memory\n```shm-size``` again\ndocker run a\n"
    assert visible(mask_markdown(text)) == []


def test_markdown_prompts_are_blanked() -> None:
    text = "```bash\n$ docker run --gpus all \\\n    --rm img\nUnable to find image\n$ ls\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert visible(masked) == ["docker run --gpus all \\", "--rm img", "ls"]
    assert masked.index("docker") == text.index("docker")


@pytest.mark.parametrize(
    "prefix", ["compute-session:", "login-node:", "user@gpu01:", "  node.1:", "compute-session:sudo "]
)
def test_markdown_name_prompt_before_an_engine_command_is_blanked(prefix: str) -> None:
    text = f"```bash\n{prefix}docker run --gpus=all --rm img\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert visible(masked) == [("sudo " if "sudo" in prefix else "") + "docker run --gpus=all --rm img"]


@pytest.mark.parametrize(
    "line",
    [
        "image:docker.io/library/ubuntu run",  # no engine word: a registry name
        "key:value docker run img",
        "http://docker run",
        "compute-session: docker run img",  # a space after the colon: not this style
        "compute-session:dockerd run",
        "a:b:docker run img",
    ],
)
def test_markdown_name_prompt_needs_an_engine_right_after_it(line: str) -> None:
    assert visible(mask_markdown(f"```bash\n{line}\n```\n")) == [line]


def test_markdown_shell_blocks_keep_each_line_with_its_prompt() -> None:
    text = "```console\n$ docker run -it img\nroot@c2:/x# python a.py\noutput\n```\n\n```\nls\n```\n"
    masked, blocks = markdown_shell_blocks(text)
    assert masked == mask_markdown(text)
    assert [[(masked[line.start : line.end], line.prompt) for line in block.lines] for block in blocks] == [
        [("docker run -it img", "$"), ("python a.py", "root@c2:/x#")],
        [("ls", "")],
    ]
    assert all(isinstance(line, CodeLine) for block in blocks for line in block.lines)


def test_markdown_shell_blocks_know_their_section() -> None:
    text = "```bash\na\n```\n\n```python\n# not a heading\n```\n\n```\nb\n```\n\n## Next\n\n```\nc\n```\n"
    text += "\nTitle\n-----\n\n    d\n"
    _, blocks = markdown_shell_blocks(text)
    assert [block.section for block in blocks] == [0, 0, 1, 2]


def test_markdown_content_tabs_and_admonitions_hold_prose_not_code() -> None:
    """MkDocs' tabs and admonitions indent what they hold by four: prose there is no indented code block (found:
    Fast-LLM's tabbed prose read as commands typed into the container), their fences are read, and a new tab (or an
    MDX ``<TabItem>``) starts another section, as another way to do the same steps."""
    text = (
        '=== "Docker"\n\n    Start it:\n\n    ```bash\n    docker run -it --gpus all img bash\n    ```\n\n'
        "    Once inside, run the guide.\n\n!!! note\n\n    A note.\n\n        code in the note\n\n"
        '=== "Venv"\n\n    ```bash\n    pip install x\n    ```\n\n<TabItem value="k8s">\n\n```bash\nkubectl apply\n```\n\n'
        "Back to text.\n\n    indented code\n"
    )
    _, blocks = markdown_shell_blocks(text)
    masked = mask_markdown(text)
    kept = [[masked[line.start : line.end].strip() for line in block.lines] for block in blocks]
    assert [[line for line in lines if line] for lines in kept] == [
        ["docker run -it --gpus all img bash"],
        ["code in the note"],
        ["pip install x"],
        ["kubectl apply"],
        ["indented code"],
    ]
    assert [block.section for block in blocks] == [1, 1, 2, 3, 3]
    assert [block.tagged for block in blocks] == [True, False, True, True, False]
    # the admonition at the tab's own indent leaves the tab; an MDX tab holds what follows up to its end tag
    assert [block.tab for block in blocks] == ['"Docker"', "", '"Venv"', 'value="k8s"', 'value="k8s"']
    assert [block.part for block in blocks] == [0, 0, 0, 0, 0]  # tabs are not headings
    ended = '<TabItem value="a">\n\n```bash\nx\n```\n\n</TabItem>\n\n```bash\ny\n```\n\n## H\n\n```bash\nz\n```\n'
    _, blocks = markdown_shell_blocks(ended)
    assert [(block.tab, block.part, block.section) for block in blocks] == [('value="a"', 0, 1), ("", 0, 2), ("", 1, 3)]


def test_rst_shell_blocks_know_their_section() -> None:
    text = "Run::\n\n    a\n\nSingle machine\n~~~~~~~~~~~~~~\n\n.. code-block:: bash\n\n    b\n\nThen::\n\n    c\n"
    _, blocks = rst_shell_blocks(text)
    assert [block.section for block in blocks] == [0, 1, 1]


def test_markdown_console_block_output_and_root_prompt() -> None:
    text = "```console\n# docker run a \\\n> --rm img\noutput line\n```\n"
    assert visible(mask_markdown(text)) == ["docker run a \\", "--rm img"]


def test_a_shell_block_is_a_transcript_only_from_its_first_prompt() -> None:
    """A ``bash`` block of commands that then shows ``$ ls /imn`` and its output (audit69d: the docker run above
    the prompt was hidden as output): the lines before the first prompt are commands, a ``#`` there a comment; from
    the prompt on, lines without one are output. A ``console`` block is a transcript throughout."""
    text = "```bash\n# train\ndocker run --gpus all img t\n\n    $ ls /imn\n    imagenet\n```\n"
    assert visible(mask_markdown(text)) == ["# train", "docker run --gpus all img t", "ls /imn"]
    assert visible(mask_markdown(text.replace("bash", "console"))) == ["train", "ls /imn"]
    # a host's ``#`` prompt is a prompt too: the transcript starts there, its output unread (the review)
    root = "```bash\nroot@box:/x# docker run --gpus all img t\nUnable to find image\n$ docker ps\n```\n"
    assert visible(mask_markdown(root)) == ["docker run --gpus all img t", "docker ps"]


def test_a_console_block_without_any_prompt_holds_its_engine_commands() -> None:
    """Sphinx documents tag commands ``console`` for its highlighting: a block that shows no prompt at all is no
    transcript; its container engine lines (and continuations) are read, nothing else (output there, ``Don't``,
    would open a quote into the document's later blocks). With one prompt, lines without one stay output; a
    bare ``# text`` is a comment, not a prompt."""
    bare = "```console\n# start it\ndocker run --gpus all \\\n  img token=x\nDon't worry\n```\n"
    assert visible(mask_markdown(bare)) == ["docker run --gpus all \\", "img token=x"]
    shown = "```console\n$ echo hi\ndocker run --gpus all img\n```\n"
    assert visible(mask_markdown(shown)) == ["echo hi"]
    rst = ".. code-block:: console\n\n    docker run --gpus all img\n    Unable to find image 'img' locally\n"
    assert [[w.text for w in c.words] for c in commands(rst_shell_blocks(rst)[0])] == [
        ["docker", "run", "--gpus", "all", "img"]
    ]


def test_output_in_a_prompt_less_console_block_hides_no_later_command(tmp_path: Path) -> None:
    text = (
        "```console\nSuccessfully installed torch\nWARNING: Don't run pip as 'root'. Really don't\n```\n\n"
        "```bash\ndocker run --gpus all --rm pytorch/pytorch torchrun --nproc_per_node=4 train.py\n```\n"
    )
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    findings = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert [(f.code, f.severity.label, f.span.line) for f in findings] == [("SHM001", "error", 7)]


def test_a_block_left_inside_a_quote_ends_it_at_its_own_end() -> None:
    """A stray apostrophe (``n_samples=50'000``), an unclosed ``$(`` or a here-document whose end the guide does
    not show would run on into every later block; a reader sees each block on its own, so the opener is blanked
    and the later blocks' commands are read."""
    rst = (
        ".. code-block:: console\n\n    docker run --gpus all img \\\n        n_samples=50'000 \\\n        x=1\n\n"
        "Text.\n\n.. code-block:: console\n\n    docker run --gpus all img token=y\n"
    )
    masked, _ = rst_shell_blocks(rst)
    assert [[w.text for w in c.words] for c in commands(masked)] == [
        ["docker", "run", "--gpus", "all", "img", "n_samples=50", "000", "x=1"],
        ["docker", "run", "--gpus", "all", "img", "token=y"],
    ]
    for opener in ("echo $(date", "echo `date", "cat <<EOF", 'echo "open', "ARGS=(--gpus all"):
        text = f"```bash\n{opener}\n```\n\n```bash\nif true; then docker run img; fi\n```\n"
        masked = mask_markdown(text)
        assert_is_mask(text, masked)
        assert ["docker", "run", "img"] in [[w.text for w in c.words] for c in commands(masked, in_blocks=True)], opener


def test_a_here_document_a_block_leaves_open_ends_with_the_block(tmp_path: Path) -> None:
    """A guide that shows ``kubectl apply -f - <<EOF`` and the manifest but not its ``EOF``: the body is the rest
    of the block, read as the manifest it is (not as commands), and the next block is read."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ddp\nspec:\n  containers:\n    - name: trainer\n"
        "      image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        '      command: ["torchrun", "--nproc_per_node", "4", "train.py"]\n'
        "      resources:\n        limits:\n          nvidia.com/gpu: 4\n"
    )
    text = f"```bash\nkubectl apply -f - <<EOF\n{pod}```\n\n```bash\ndocker run --gpus all img\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert [c.words[0].text for c in commands(masked, in_blocks=True)] == ["kubectl", "docker"]
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    findings = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert [(f.code, f.severity.label, f.span.line) for f in findings] == [("SHM001", "error", 9)]


@pytest.mark.parametrize(
    "first",
    [
        "cat <<EOF > env.sh \\",  # the here-document's line goes on past the block: the opener is blanked
        "cat <<EOF\n\vdocker run img2",  # a vertical tab in a block is text, not the mark after it
    ],
)
def test_the_block_after_a_here_document_is_read(first: str) -> None:
    text = f"```bash\n{first}\n```\n\nThen run:\n\n```bash\ndocker run img\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert [[w.text for w in c.words] for c in commands(masked, in_blocks=True)][-1] == ["docker", "run", "img"]
    assert ["docker", "run", "img2"] not in [[w.text for w in c.words] for c in commands(masked, in_blocks=True)]


def test_a_quote_the_mask_adds_is_closed_too() -> None:
    """A Hugo shortcode ending in a backslash (``{{% ref x \\%}}``) becomes ``{{" ref x \\"}}`` in the mask, an
    escaped quote that stays open: the block is read for what its mask leaves open, not its text."""
    text = "```bash\necho {{% ref x \\%}}\n```\n\n```bash\ndocker run --gpus all img\n```\n"
    masked = mask_markdown(text)
    assert [[w.text for w in c.words] for c in commands(masked, in_blocks=True)][-1] == [
        "docker",
        "run",
        "--gpus",
        "all",
        "img",
    ]


def test_blanking_a_block_that_leaves_too_much_open_loses_no_later_block() -> None:
    text = "```bash\ncat <<EOF $($($($($($($($($(\nbody\nEOF\n```\n\n```bash\ndocker run img\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert [[w.text for w in c.words] for c in commands(masked)] == [["docker", "run", "img"]]


def test_a_block_with_more_open_constructs_than_read_is_not_read_past_them() -> None:
    """Each open construct costs a read of the block: past four, the block is blanked whole, and the next block is
    still read."""
    text = "```bash\n" + "echo $(a\n" * 12 + "```\n\n```bash\ndocker run img\n```\n"
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    assert visible(masked) == ["docker run img"]
    assert [[w.text for w in c.words] for c in commands(masked)][-1] == ["docker", "run", "img"]


def test_markdown_comments_stay_comments_in_bash_blocks() -> None:
    masked = mask_markdown("```bash\n# docker run --gpus all img\ndocker ps\n```\n")
    assert [[w.text for w in c.words] for c in commands(masked)] == [["docker", "ps"]]


def test_markdown_indented_code_block() -> None:
    text = "Run it:\n\n    nvidia-docker run -td img\n\n    docker ps\n\nProse again.\n"
    assert visible(mask_markdown(text)) == ["nvidia-docker run -td img", "docker ps"]


def test_markdown_indented_text_that_is_not_code() -> None:
    text = "A paragraph\n    continued with indentation: docker run x\n\n- item\n\n    item paragraph docker run y\n"
    assert visible(mask_markdown(text)) == []


def test_markdown_fence_inside_list_item() -> None:
    text = "1. Run:\n   ```bash\n   docker run --gpus all img\n   ```\n"
    assert visible(mask_markdown(text)) == ["docker run --gpus all img"]


def test_markdown_unclosed_fence_runs_to_the_end() -> None:
    assert visible(mask_markdown("```sh\ndocker run a\n")) == ["docker run a"]
    assert visible(mask_markdown("```python\ndocker run a\n")) == []


def test_markdown_placeholders_become_one_word() -> None:
    text = (
        "```\ndocker run -v <path to data>:/data --ipc=host nvcr.io/nvidia/tritonserver:<xx.yy>-py3 cat <<EOF\n"
        "x\nEOF\n```\n"
    )
    masked = mask_markdown(text)
    assert_is_mask(text, masked)
    words = [w.text for w in next(commands(masked)).words]
    assert words == [
        "docker",
        "run",
        "-v",
        "path to data:/data",
        "--ipc=host",
        "nvcr.io/nvidia/tritonserver:xx.yy-py3",
        "cat",
    ]


def test_markdown_hugo_shortcode_stays_in_its_word() -> None:
    masked = mask_markdown("```bash\ndocker run --gpus all localai/localai:{{< version >}}-gpu\n```\n")
    assert [w.text for w in next(commands(masked)).words][-1] == "localai/localai:{{ version }}-gpu"


# -- Makefile ----------------------------------------------------------------------------------------------------


def test_a_target_named_define_something_is_a_rule() -> None:
    """audit60b: ``define-image-name:`` was read as the ``define`` directive, and every later recipe was hidden."""
    text = "define-image-name:\n\techo img\ntrain:\n\tdocker run --gpus all img\ndefine X\n\tno\nendef\n"
    assert visible(mask_makefile(text)) == ["echo img", "docker run --gpus all img"]
    # so are the conditionals' (review): ``else-run:`` is a target, ``else`` and ``endif\r`` are directives
    text = "else-run:\n\tdocker run a\nifeq ($(X),1)\nY=1\nelse\nY=2\nendif\r\nt:\n\tdocker run c\n"
    assert visible(mask_makefile(text)) == ["docker run a", "docker run c"]


def test_makefile_recipes_and_prefixes() -> None:
    text = (
        "IMAGE ?= img\nX = a \\\n\tb\n\ntrain: deps\n\t@docker run --gpus all \\\n  -v $$(pwd):/d \\\n\t$(IMAGE)\n"
        "\t-+@ echo done\n# comment\n\n\techo still recipe\nifeq ($(X),1)\n\tdocker ps\nendif\nlint: ; ruff .\n"
        "define HELP\n\tdocker run nope\nendef\nY := 1\n\tnot a recipe\n"
    )
    masked = mask_makefile(text)
    assert_is_mask(text, masked)
    assert visible(masked) == [
        "docker run --gpus all \\",
        "-v $$(pwd):/d \\",
        "$(IMAGE)",
        "echo done",
        "echo still recipe",
        "docker ps",
        "ruff .",
    ]


def test_makefile_variable_words_are_opaque() -> None:
    masked = mask_makefile("t:\n\t$(DOCKER) run -v $$(pwd):/d ${IMAGE} x\n")
    words = [w for c in commands(masked) for w in c.words if c.words[0].text.startswith("$(")]
    assert [(w.text, w.dynamic) for w in words] == [
        ("$(DOCKER)", True),
        ("run", False),
        ("-v", False),
        ("$$(pwd):/d", True),
        ("${IMAGE}", True),
        ("x", False),
    ]


def test_makefile_assignments_as_make_gives_them() -> None:
    text = (
        "A ?= x\nA := y\n\tB = z\nC = $(shell pwd)\nD = $(A)/${E} # a comment\nF += 1\nF += 2\nG != ls\n"
        "OPTS = \\\n\t-it \\\n\t--shm-size=1G \\\n\t--ipc=host\nifeq ($(X),1)\n  H = one\nelse\n  H = two\nendif\n"
        "J = 0\ndefine J :=\nK = 1\nendef\nL = a\\#b # c\nt:\n\tI=recipe docker run x\nt: M += --shm-size=8g\nM = -it\n"
    )
    assert make_assignments(text) == {
        "A": ("y",),  # ``?=`` gave it x, ``:=`` replaced it
        "B": ("z",),  # a tab-led line before any rule is make's, not a recipe
        "C": ("$(shell pwd)",),  # a function call stays what it is
        "D": (
            "y/${E}",
        ),  # expanded where used: A's last value; a name the file does not give stays, as the shell reads it
        "F": ("1 2",),
        "OPTS": ("-it --shm-size=1G --ipc=host",),
        "H": ("", "one", "two"),  # in branches: each may be what runs (and, read this simply, neither)
        "L": ("a#b",),  # an escaped ``#`` is the character
        "M": ("-it", "-it --shm-size=8g"),  # the target ``t`` adds to it, wherever it is written
    }  # G: ``!=``, a command's output; J: a ``define``; K: inside it


def test_makefile_assignments_expand_as_make_does() -> None:
    """Found (review): the first value was read as a reference's, so ``OPTS = --shm-size=$(SHM)`` with SHM set to
    32m, then 32g, read 32m (make uses 32g), and the fix added a smaller size after it."""
    assert make_assignments("SHM = 32m\nOPTS = --shm-size=$(SHM)\nSHM = 32g\n")["OPTS"] == ("--shm-size=32g",)
    assert make_assignments("A = 1\nB := $(A)\nA = 2\n")["B"] == ("1",)  # ``:=`` expands where it is read
    assert make_assignments("OPTS = -it\nOPTS = --shm-size=8g\n")["OPTS"] == ("--shm-size=8g",)
    # audit53a (packnet-sfm): ``:=`` expands a reference to a name ``?=`` gave a reference of its own
    nested = make_assignments("P = x\nW ?= /w/$(P)\nSHM ?= 444G\nO := -v ${PWD}:$(W) --shm-size=${SHM}\n")
    assert nested["O"] == ("-v ${PWD}:/w/x --shm-size=444G",)
    # found by the property test below: ``:=`` read ``$(A)`` before the file gave A, so what it holds is what A held
    # then (the environment's, or nothing), never the file's later ``x``; it is not known, nor what refers to it
    later = make_assignments("B := $(A)\nA = x\nOPTS = ${B}\nO2 := ${B}\n")
    assert "B" not in later and "O2" not in later and later["OPTS"] == ("${B}",)


#: assignments without conditionals, each name referring only to the names before it (make refuses a loop)
_MAKE_NAMES = ("A", "B", "OPTS")
_MAKE_LINES = st.tuples(
    st.integers(0, 2),
    st.sampled_from(("=", ":=", "?=", "+=")),
    st.lists(st.sampled_from(("x", "--shm-size=1g", "--ipc=host", "$(A)", "${B}", "y")), min_size=1, max_size=3),
).filter(lambda line: all(f"{_MAKE_NAMES[i]}" not in " ".join(line[2]) for i in range(line[0], 3)))


@settings(max_examples=60, deadline=None)
@given(st.lists(_MAKE_LINES, min_size=1, max_size=6))
def test_makefile_assignments_agree_with_make(lines: list[tuple[int, str, list[str]]]) -> None:
    """Every name of one value known in full is what GNU make gives it."""
    text = "".join(f"{_MAKE_NAMES[name]} {operator} {' '.join(words)}\n" for name, operator, words in lines)
    found = make_assignments(text)
    shown = "".join(f"$(info {name}=[$({name})])" for name in _MAKE_NAMES) + "\nall: ;\n"
    made = subprocess.run(
        ["make", "-s", "-f", "-"], input=text + shown, capture_output=True, text=True, check=True, timeout=30
    ).stdout
    given = dict(line.split("=", 1) for line in made.splitlines())
    for name, values in found.items():
        if len(values) == 1 and "$" not in values[0]:
            assert " ".join(given[name][1:-1].split()) == values[0], (text, name)


def test_makefile_assignments_are_bounded() -> None:
    long = "V = " + "x" * (MAX_VALUE + 1) + "\n"
    endless = "W = a \\\n" * (MAX_CONTINUED + 2) + "b\n"
    assert make_assignments(long + endless + "Y = 1\n") == {"Y": ("1",)}
    many = "".join(f"N{i} = {i}\n" for i in range(MAX_ASSIGNMENTS + 5))
    assert len(make_assignments(many)) == MAX_ASSIGNMENTS


_MAKE_PIECES_FOR_REFERENCES = st.sampled_from(["$(X)", "$$(X)", "$$", "$", "${X}", "$(shell pwd)", "(", "x", " ", "\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MAKE_PIECES_FOR_REFERENCES, max_size=30).map("".join))
def test_braced_references_keep_offsets_and_shell_substitutions(text: str) -> None:
    braced = braced_references(text)
    assert len(braced) == len(text)
    assert braced.count("$$(") == text.count("$$(")  # ``$$(cmd)`` is the recipe's shell's substitution
    assert "$$" in text or "$(X)" not in braced


# -- CI YAML -----------------------------------------------------------------------------------------------------


def ci(text: str) -> str | None:
    source = SourceText("ci.yml", text)
    return mask_ci_yaml(source, compose(source))


def test_github_actions_run_blocks() -> None:
    text = """on: push
jobs:
  train:
    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v4
      - name: Train
        run: |
          docker run --gpus all \\
            ${{ matrix.image }} python train.py
      - run: docker ps
      - run: "echo 'quoted'"
      - run: >
          docker run
          --shm-size 1g img
      - shell: pwsh
        run: docker run --gpus all x
"""
    masked = ci(text)
    assert masked is not None
    assert len(masked) == len(text)  # folded scalars turn line breaks into spaces, as YAML reads them
    assert [[w.text for w in c.words] for c in commands(masked)] == [
        ["docker", "run", "--gpus", "all", "${{ matrix.image }}", "python", "train.py"],
        ["docker", "ps"],
        ["echo", "quoted"],
        ["docker", "run", "--shm-size", "1g", "img"],
    ]


@pytest.mark.parametrize(("shell", "read"), [("ash {0}", True), ("/bin/dash -e {0}", True), ("python", False)])
def test_a_step_is_read_when_its_shell_is_a_posix_shell(shell: str, read: bool) -> None:
    masked = ci(f"jobs:\n  a:\n    runs-on: x\n    steps:\n      - shell: {shell}\n        run: docker run img\n")
    assert masked is not None
    assert ("docker run img" in masked) is read


def test_composite_action_steps() -> None:
    masked = ci("runs:\n  using: composite\n  steps:\n    - run: docker run a\n      shell: bash\n")
    assert masked is not None and visible(masked) == ["docker run a"]


def test_circleci_steps() -> None:
    """A CircleCI config's ``run`` steps, short and long form, in jobs and in reusable commands (audit59a:
    wav2letter's GPU ``docker run --ipc=host`` in ``commands.*.steps[].run.command`` was not read)."""
    text = """version: 2.1
commands:
  start:
    steps:
      - run:
          name: start
          command: |
            docker run --runtime=nvidia --ipc=host img
      - run:
          shell: python3
          command: print("not shell")
jobs:
  test:
    machine: true
    steps:
      - checkout
      - run: docker run a
      - start
      - when:
          condition: true
          steps:
            - run: docker run --gpus all b
"""
    masked = ci(text)
    assert masked is not None
    assert visible(masked) == ["docker run --runtime=nvidia --ipc=host img", "docker run a", "docker run --gpus all b"]
    assert ci("commands:\n  start:\n    steps:\n      - run: docker run a\n") is None  # no CircleCI version


def test_gitlab_scripts() -> None:
    text = """stages: [train]
.gpu: &gpu
  tags: [gpu]
default:
  before_script:
    - docker login -u x
train:
  <<: *gpu
  script:
    - docker run --gpus all img
    - - echo nested
    - >-
      docker run
      --ipc=host x
lint:
  script: docker run --rm y
variables:
  script: not a script
"""
    masked = ci(text)
    assert masked is not None and len(masked) == len(text)
    assert [[w.text for w in c.words] for c in commands(masked)] == [
        ["docker", "login", "-u", "x"],
        ["docker", "run", "--gpus", "all", "img"],
        ["echo", "nested"],
        ["docker", "run", "--ipc=host", "x"],
        ["docker", "run", "--rm", "y"],
    ]


def test_not_ci_yaml_is_none() -> None:
    assert ci("apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n") is None
    assert ci("services:\n  web:\n    image: x\n") is None


# -- invariants --------------------------------------------------------------------------------------------------

_MARKDOWN_PIECES = st.sampled_from(
    [
        "```",
        "~~~",
        "bash",
        "console",
        "python",
        "\n",
        "    ",
        "\t",
        "$ ",
        "# ",
        "> ",
        "- ",
        "1. ",
        "docker run x",
        "<a b>",
        "{{< v >}}",
        "\\",
        "`",
        "text",
        "\r\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MARKDOWN_PIECES, max_size=40).map("".join))
def test_markdown_mask_invariants(text: str) -> None:
    assert_is_mask(text, mask_markdown(text))


_MAKE_PIECES = st.sampled_from(
    ["all:", "x := 1", "\n", "\t", "@", "-", "+", "docker run", "\\", "$(X)", "$$", "define", "endef", "ifeq", "#", " "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MAKE_PIECES, max_size=40).map("".join))
def test_makefile_mask_invariants(text: str) -> None:
    assert_is_mask(text, mask_makefile(text))


def test_a_circleci_parameter_is_a_value_not_a_here_document() -> None:
    """``<< parameters.image >>`` is filled in by CircleCI before the shell runs: read as a variable in the same
    characters, it no longer opens a here-document that hid every later command (audit71a); a here-document
    appended to a file (``cat << EOF >> out``) stays one."""
    text = (
        "version: 2.1\njobs:\n  t:\n    machine: true\n    steps:\n      - run: |\n"
        "          docker pull << parameters.image >>\n          docker run --gpus all << pipeline.git.tag >>\n"
    )
    masked = ci(text)
    assert masked is not None and len(masked) == len(text)
    filled = "${_template}" + '""' * 5  # 22 characters, as ``<< parameters.image >>``
    assert visible(masked) == [f"docker pull {filled}", f"docker run --gpus all {filled}"]
    included = text.replace("docker pull << parameters.image >>", "<< include(scripts/setup.sh) >>")
    assert "docker run --gpus all" in (ci(included) or "")  # an included file's text: not a here-document either
    here = "version: 2.1\njobs:\n  t:\n    steps:\n      - run: |\n          cat << EOF >> out\n          x\n          EOF\n"
    assert "cat << EOF >> out" in (ci(here) or "")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_documents_sections_are_told_apart_whatever_its_line_breaks(newline: str) -> None:
    """A setext or ATX heading, and a reStructuredText underline, before a CR (audit72b: a CRLF guide)."""
    markdown = "Run\n===\n\n```bash\ndocker run -it img bash\n```\n\nTrain\n-----\n\n```bash\npython t.py\n```\n"
    rst = "Run\n===\n\n.. code-block:: bash\n\n   docker run -it img bash\n\nTrain\n-----\n\n::\n\n   python t.py\n"
    for blocks in (
        markdown_shell_blocks(markdown.replace("\n", newline))[1],
        rst_shell_blocks(rst.replace("\n", newline))[1],
    ):
        assert [block.section for block in blocks] == [1, 2]


def test_a_here_document_a_prompted_command_opens_is_its_input_not_output() -> None:
    """audit74c: ``$ cat <<EOF | kubectl apply -f -`` then a manifest, in a transcript: the manifest was taken for
    the command's output and never read."""
    text = "```bash\n$ cat <<'EOF' | kubectl apply -f -\nkind: Pod\nspec: {}\nEOF\n$ echo done\ndone\n```\n"
    masked, _ = markdown_shell_blocks(text)
    kept = [line for line in masked.splitlines() if line.strip()]
    assert kept[:4] == ["  cat <<'EOF' | kubectl apply -f -", "kind: Pod", "spec: {}", "EOF"]
    assert "done" not in [line.strip() for line in kept[5:]]  # the output after the document is still output
