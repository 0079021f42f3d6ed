"""A Triton server's model repository as evidence (``shmlint.project.triton``): the options that name it, the
Python-backend models whose batches cannot fit the default /dev/shm, and what is never evidence."""

from __future__ import annotations

from pathlib import Path

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
    said = model.describe("preprocess")
    assert said.startswith("model preprocess, >= 147 MiB a batch (python backend, max_batch_size 256 x ")
    assert "OUTPUT_0 [3x224x224] FP32" in said and "over the 64 MiB default" in said


#: an input of 12 MiB an item that a warmup sample repeats (``model_warmup``'s own ``data_type`` and ``dims``):
#: max_batch_size 4 makes 48 MiB a batch, under the default
_WARMED = """
backend: "python"
max_batch_size: 4
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 3, 1024, 1024 ] } ]
output [ { name: "OUT" data_type: TYPE_STRING dims: [ 1 ] } ]
model_warmup [
  {
    name: "warm"
    batch_size: 1
    inputs { key: "IN" value: { data_type: TYPE_FP32 dims: [ 3, 1024, 1024 ] zero_data: true } }
  }
]
"""
#: live tensors of strings only; the FP32 output (768 MiB a batch) is commented out
_COMMENTED = """
backend: "python"
max_batch_size: 64
input [ { name: "IN" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_STRING dims: [ 1 ] } ]
# output [ { name: "OLD" data_type: TYPE_FP32 dims: [ 3, 1024, 1024 ] } ]
"""


def test_only_the_top_level_input_and_output_tensors_count() -> None:
    text = """
backend: "python"  # a comment with [ { that nests nothing
max_batch_size: 2
input { name: "I#[{" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 2, 2 ] } }
input: { name: 'J' data_type: TYPE_UINT8 dims: [ 8 ] }
output: [ { name: "O" reshape { shape: [ 1 ] } data_type: TYPE_INT64 dims: [ 2 ] }, { name: "P", data_type: TYPE_FP16, dims: [ 3 ] } ]
# input [ { name: "X" data_type: TYPE_FP64 dims: [ 1000 ] } ]
sequence_batching { state [ { input_name: "S" output_name: "S2" data_type: TYPE_FP32 dims: [ 1000000 ] } ] }
"""
    model = triton.python_model(text)
    assert model is not None and model.line == 2 and model.max_batch == 2
    assert model.least_bytes == 2 * (4 * 4 + 8 + 2 * 8 + 3 * 2)
    assert model.largest == triton.Tensor("I#[{", "FP32", (4,))


@pytest.mark.parametrize(
    "text",
    [
        _BIG.replace('backend: "python"', 'backend: "onnxruntime"'),  # runs in the server's process
        _BIG.replace('backend: "python"', 'platform: "tensorrt_plan"'),
        _BIG.replace("max_batch_size: 256", "max_batch_size: 8"),  # 4.6 MiB a batch: fits
        _BIG.replace("TYPE_FP32", "TYPE_STRING"),  # strings: no size known, so no claim
        _BIG.replace("dims: [ 3, 224, 224 ]", "dims: [ -1, -1, 3 ]"),  # variable: at least 3 bytes an item
        _BIG.replace("dims: [ 3, 224, 224 ]", "dims: [ a, b ]"),  # not dims at all
        _WARMED,  # its warmup sample is the input again, not a second tensor of the batch: 48 MiB
        _COMMENTED,  # a commented-out tensor is no tensor
        _BIG.replace("output [", "# output ["),  # the list's opening commented out: its tensor is not an output
        "",
    ],
)
def test_not_evidence(text: str) -> None:
    model = triton.python_model(text)
    assert model is None or not triton.needs(model)


_COMPOSE = """\
services:
  triton:
    image: nvcr.io/nvidia/tritonserver:24.05-py3
    command: tritonserver --model-repository=/models
    volumes:
      - ./m:/models
    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}
"""


@pytest.mark.parametrize(("batch", "severity"), [(4, "info"), (8, "error")])
def test_a_repository_judged_by_its_models_own_tensors(tmp_path: Path, batch: int, severity: str) -> None:
    """The reviewer's tree: a warmup sample and a commented-out output are not counted, so 4 x 12 MiB is undecided;
    at max_batch_size 8 the input alone is 96 MiB, and the message names the model."""
    from shmlint.runner import check_paths
    from shmlint.settings import Settings

    (tmp_path / "compose.yaml").write_text(_COMPOSE)
    for name, text in (("a", _WARMED.replace("max_batch_size: 4", f"max_batch_size: {batch}")), ("b", _COMMENTED)):
        (tmp_path / "m" / name).mkdir(parents=True)
        (tmp_path / "m" / name / "config.pbtxt").write_text(text)
    (finding,) = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert finding.code == "SHM001" and finding.severity.label == severity
    if severity == "error":
        assert "(config.pbtxt:2 model a, >= 96 MiB a batch)" in finding.message
        assert "m/a/config.pbtxt:2 model a, >= 96 MiB a batch (python backend, max_batch_size 8 x IN" in finding.detail


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='{}[]:,"-0123456789 \nabcdeiklmnoprstuyz_TYPEF', max_size=600))
def test_python_model_never_raises(text: str) -> None:
    model = triton.python_model('backend: "python"\n' + text)
    assert model is not None and model.least_bytes >= 0


def test_hostile_config_is_read() -> None:
    """Deep braces, a long dims list and an unclosed string are read to an answer (how long they take is
    ``bench/bounds.py``'s to measure: under 0.2 s here, bound 1 s)."""
    text = 'backend: "python"\nmax_batch_size: 999999999\n' + "{ data_type: TYPE_FP64 dims: [" + "9," * 10_000
    model = triton.python_model(text + "{" * 50_000 + "dims: [ 999999999, 999999999, 999999999 ] }")
    unclosed = triton.python_model('backend: "python"\ninput [ { name: ' + '"\\"' * 100_000 + "'" * 100_000)
    assert model is not None and unclosed is not None and unclosed.least_bytes == 0


@pytest.mark.parametrize(
    ("dockerfile", "copies"),
    [
        ("FROM x\nCOPY model_repository /models\n", (("/models", "model_repository"),)),
        ("FROM x\nWORKDIR /opt/app\nCOPY repo/ models/\n", (("/opt/app/models", "repo/"),)),
        ('FROM x\nCOPY ["a b", "/m"]\n', (("/m", "a b"),)),
        ("FROM x\nCOPY --chown=1:1 . /app\n", (("/app", "."),)),
        # another stage's, a URL: not one of the context's, so the source is ""; several sources each land in the
        # folder, and a wildcard is kept for the walk to match against the context's files
        (
            "FROM b AS build\nCOPY a /a\nFROM x\nCOPY --from=build /a /b\nADD https://h/x /y\nCOPY a b /c/\n",
            (("/b", ""), ("/y", ""), ("/c", "a"), ("/c", "b")),
        ),
        ("FROM x\nCOPY *.pbtxt /m/\n", (("/m", "*.pbtxt"),)),
    ],
)
def test_dockerfile_copies_from_the_context(dockerfile: str, copies: tuple[tuple[str, str], ...]) -> None:
    from shmlint.parsers.dockerfile import run_facts

    assert run_facts(dockerfile).copies == copies
