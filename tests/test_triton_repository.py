"""A Triton server's model repository as evidence (``shmlint.project.triton``): the options that name it, the
Python-backend models whose batches cannot fit the default /dev/shm, and what is never evidence."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.project import triton

_BIG = """
name: "preprocess"
backend: "python"
max_batch_size: 256
input [ { name: "INPUT_0" data_type: TYPE_UINT8 dims: [ -1 ] } ]
output [
  {
    name: "OUTPUT_0"
    data_type: TYPE_FP32
    dims: [ 3, 224, 224 ]
    reshape: { shape: [ 1, 3, 224, 224 ] }
  }
]
"""


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["tritonserver", "--model-repository=/models"], ["/models"]),
        (["/opt/tritonserver/bin/tritonserver", "--model-store", "/m", "--model-repository=/n"], ["/m", "/n"]),
        (["tritonserver", "--model-repository"], []),
        (["tritonserver", "--model-repository=\x00$MODELS"], []),  # a value the text does not give
        (["python", "--model-repository=/models"], []),  # another program's option of the same name
        ([], []),
    ],
)
def test_repositories_named_on_the_command_line(argv: list[str], expected: list[str]) -> None:
    assert triton.repositories(argv) == expected


def test_python_model_batch_lower_bound() -> None:
    model = triton.python_model(_BIG)
    assert model is not None and model.line == 3 and model.max_batch == 256
    assert model.least_bytes == 256 * (1 + 3 * 224 * 224 * 4)  # the variable input counted as one element
    assert triton.needs(model)
    assert "OUTPUT_0 [3x224x224] FP32" in model.describe() and ">= 147 MiB" in model.describe()


@pytest.mark.parametrize(
    "text",
    [
        _BIG.replace('backend: "python"', 'backend: "onnxruntime"'),  # runs in the server's process
        _BIG.replace('backend: "python"', 'platform: "tensorrt_plan"'),
        _BIG.replace("max_batch_size: 256", "max_batch_size: 8"),  # 4.6 MiB a batch: fits
        _BIG.replace("TYPE_FP32", "TYPE_STRING"),  # strings: no size known, so no claim
        _BIG.replace("dims: [ 3, 224, 224 ]", "dims: [ -1, -1, 3 ]"),  # variable: at least 3 bytes an item
        _BIG.replace("dims: [ 3, 224, 224 ]", "dims: [ a, b ]"),  # not dims at all
        "",
    ],
)
def test_not_evidence(text: str) -> None:
    model = triton.python_model(text)
    assert model is None or not triton.needs(model)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='{}[]:,"-0123456789 \nabcdeiklmnoprstuyz_TYPEF', max_size=600))
def test_python_model_never_raises(text: str) -> None:
    model = triton.python_model('backend: "python"\n' + text)
    assert model is not None and model.least_bytes >= 0


def test_hostile_config_costs_linear_time() -> None:
    text = 'backend: "python"\nmax_batch_size: 999999999\n' + "{ data_type: TYPE_FP64 dims: [" + "9," * 10_000
    started = time.perf_counter()
    model = triton.python_model(text + "{" * 50_000 + "dims: [ 999999999, 999999999, 999999999 ] }")
    assert time.perf_counter() - started < 1.0
    assert model is not None


@pytest.mark.parametrize(
    ("dockerfile", "copies"),
    [
        ("FROM x\nCOPY model_repository /models\n", (("/models", "model_repository"),)),
        ("FROM x\nWORKDIR /opt/app\nCOPY repo/ models/\n", (("/opt/app/models", "repo/"),)),
        ('FROM x\nCOPY ["a b", "/m"]\n', (("/m", "a b"),)),
        ("FROM x\nCOPY --chown=1:1 . /app\n", (("/app", "."),)),
        ("FROM b AS build\nCOPY a /a\nFROM x\nCOPY --from=build /a /b\nADD https://h/x /y\nCOPY a b /c/\n", ()),
        ("FROM x\nCOPY *.pbtxt /m/\n", ()),  # a wildcard: not one folder
    ],
)
def test_dockerfile_copies_from_the_context(dockerfile: str, copies: tuple[tuple[str, str], ...]) -> None:
    from shmlint.parsers.dockerfile import run_facts

    assert run_facts(dockerfile).copies == copies
