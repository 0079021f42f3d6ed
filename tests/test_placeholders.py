"""Placeholders in documentation commands (``<path>``, ``</on/your/host>``, ``<your-image>``, ``[OPTIONS]``,
``...``) never change how the flags around them are read: a command with placeholders gets the findings of the
same command written with real values."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.source import SourceText

ENGINE = Engine(Settings(undecided="show"))
_NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}(-[a-z0-9]{1,5}){0,2}", fullmatch=True)
_WORDS = st.lists(_NAME, min_size=1, max_size=3).map(" ".join)
_PATH = st.lists(_NAME, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))

#: a placeholder for one value: quoted or not, a path, words, a leading ~ or $HOME
values = st.one_of(
    _NAME.map(lambda name: f"<{name}>"),
    _WORDS.map(lambda words: f"<{words}>"),
    _PATH.map(lambda path: f"<{path}>"),
    _NAME.map(lambda name: f"~/<{name}>"),
    _NAME.map(lambda name: f"$HOME/<{name}>"),
    st.tuples(_NAME, _NAME).map(lambda pair: f"<{pair[0]}>/<{pair[1]}>"),
)
#: a placeholder for more options, where a flag could be
more_options = st.sampled_from(
    ["...", "…", "[OPTIONS]", "[options]", "[...]", "<...>", "<options>", "<other flags>", "[docker options]",
     "[OPTIONS...]", "<extra args>"]
)  # fmt: skip
images = st.one_of(
    _NAME.map(lambda name: f"<{name}>"),
    st.tuples(_NAME, _NAME).map(lambda pair: f"<{pair[0]}>:<{pair[1]}>"),
    _NAME.map(lambda name: f"nvcr.io/<{name}>/pytorch:<tag>"),
)


def findings(command: str, prompt: str = "") -> list[tuple[str, int, int]]:
    text = f"Run it:\n\n```bash\n{prompt}{command}\n```\n"
    result = ENGINE.check_source(SourceText("README.md", text), FileKind.MARKDOWN, Path("README.md"))
    return [(f.code, f.span.line, f.span.column) for f in result.findings]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    value=values,
    image=images,
    before=st.lists(more_options, max_size=2),
    between=st.lists(more_options, max_size=1),
    prompt=st.sampled_from(["", "$ "]),
    gpus=st.sampled_from(["--gpus all", "--gpus=all", "--runtime=nvidia"]),
)
def test_placeholders_read_like_the_values_they_stand_for(
    value: str, image: str, before: list[str], between: list[str], prompt: str, gpus: str
) -> None:
    concrete = f"docker run -v /host/data:/data {gpus} pytorch/pytorch python train.py"
    written = f"docker run {' '.join(before)} -v {value}:/data {' '.join(between)} {gpus} {image} python train.py"
    expected = findings(concrete, prompt)
    assert [code for code, _, _ in expected] == ["SHM001"]
    assert findings(written, prompt) == expected, written


@pytest.mark.parametrize(
    "command",
    [
        "docker run ... -v </on/your/host>:/data --gpus all image",
        "docker run [OPTIONS] --gpus all <your-image>",
        "docker run -v <path to data>:/data <other flags> --gpus all image",
    ],
)
def test_commands_written_with_placeholders_are_reported(command: str) -> None:
    assert [code for code, _, _ in findings(command)] == ["SHM001"], command


@pytest.mark.parametrize(
    "command",
    [
        "if [ -f x ]; then docker run --gpus all --shm-size=8g img; fi",
        "docker run --gpus all --shm-size=8g img ${a[0]} [[ x ]]",
        "docker run --gpus all --shm-size=8g img </dev/null >/tmp/log",
    ],
)
def test_shell_that_is_not_a_placeholder_is_left_alone(command: str) -> None:
    assert findings(command) == []


@pytest.mark.parametrize(
    "command",
    [
        "docker run --gpus all --shm-size <AllocatedSharedMemorySize> -it img python t.py --num-workers 4",
        "docker run --gpus all --shm-size=<size> img python t.py --num-workers 4",
        "docker run --gpus all -m <memory> --shm-size <size> img python t.py --num-workers 4",
    ],
)
def test_a_size_written_as_a_placeholder_is_a_size_to_come_not_an_invalid_one(command: str) -> None:
    """audit74c: a usage line's ``--shm-size <AllocatedSharedMemorySize>`` was SHM011, an error docker would give
    only to a real command; here it is what the reader fills in."""
    assert [code for code, _, _ in findings(command)] == []
