"""A Triton server's model repository, read for models that pass large tensors through /dev/shm: Triton's Python
backend runs each model instance in a stub process that exchanges its inputs and outputs with the server through a
shared-memory region (``triton_model_repositories`` in shmlint/data/shm_need.yaml, with its source).

A model is evidence only when its ``config.pbtxt`` says ``backend: "python"`` and the tensors of one batch at its
``max_batch_size`` are certain to be larger than the container's default /dev/shm (each variable dimension counted
as 1, strings as nothing: a lower bound). Only the tensors of the top-level ``input`` and ``output`` lists count:
``# comments`` are dropped, and tensors written elsewhere are not a batch's own (``model_warmup`` samples repeat
the inputs; ``sequence_batching``'s implicit ``state`` is kept by the server between requests, usually with
variable dims, and leaving it out keeps the bound a lower bound). Models of other backends (ONNX Runtime,
TensorRT, PyTorch, TensorFlow) run in the server's process and are never evidence. Reading is bounded: the model
folders listed, the files read (the walk's budget) and the bytes scanned (one pass of a regular expression).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from shmlint.model import CodeFact
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.argv import option_values
from shmlint.project.launchers import known
from shmlint.sizes import DEFAULT_SHM_BYTES, human
from shmlint.visible import visible

if TYPE_CHECKING:
    from shmlint.project.index import Reader

#: the options that name the model repository (``--model-store`` is the older spelling; both may repeat)
REPOSITORY_OPTIONS = ("--model-repository", "--model-store")
#: model folders looked at in one repository (listed entries, not a walk)
MAX_MODELS = 32
#: model repositories of one Triton command read
MAX_REPOSITORIES = 4
#: bytes of one element of each Triton data type (model_config.proto); strings are variable and counted as 0
_TYPE_BYTES = {
    "BOOL": 1,
    "UINT8": 1,
    "INT8": 1,
    "UINT16": 2,
    "INT16": 2,
    "FP16": 2,
    "BF16": 2,
    "UINT32": 4,
    "INT32": 4,
    "FP32": 4,
    "UINT64": 8,
    "INT64": 8,
    "FP64": 8,
}
_BACKEND = re.compile(r'^[ \t]*backend[ \t]*:[ \t]*"(?P<name>[A-Za-z0-9_.-]{1,64})"', re.MULTILINE)
_MAX_BATCH = re.compile(r"^[ \t]*max_batch_size[ \t]*:[ \t]*(?P<value>[0-9]{1,9})\b", re.MULTILINE)
#: a string literal (either quote, escapes inside) or a ``#`` comment, which runs to the end of its line
_STRING = r'"(?:[^"\\\n]|\\.)*"?|\'(?:[^\'\\\n]|\\.)*\'?'  # unclosed: to the end of the line, never failing
_COMMENT = re.compile(rf"(?P<string>{_STRING})|#[^\n]*")
#: what nests: strings (skipped whole), brackets and braces, and the names of the two lists whose tensors count
_TOKEN = re.compile(rf"{_STRING}|\b(?P<list>input|output)(?=[ \t\r\n]*(?::[ \t\r\n]*)?[\[{{])|[\[\]{{}}]")
_DATA_TYPE = re.compile(r"\bdata_type[ \t]*:[ \t]*TYPE_(?P<type>[A-Z0-9]{1,8})\b")
_DIMS = re.compile(r"\bdims[ \t]*:[ \t]*\[(?P<dims>[-0-9, \t\r\n]{0,256})\]")
_NAME = re.compile(r'\bname[ \t]*:[ \t]*"(?P<name>[^"\n]{1,64})"')
#: more elements than any tensor has: a larger product is not read (a hostile ``dims: [999999999, ...]``)
MAX_ELEMENTS = 1 << 40


class Tensor(NamedTuple):
    name: str
    type: str
    dims: tuple[int, ...]

    @property
    def elements(self) -> int:
        count = 1
        for dim in self.dims:
            count *= max(dim, 1)  # a variable dimension (-1) holds at least one element
        return min(count, MAX_ELEMENTS)

    @property
    def least_bytes(self) -> int:
        return self.elements * _TYPE_BYTES.get(self.type, 0)


class PythonModel(NamedTuple):
    """A Python-backend model and the least bytes one batch of its tensors takes."""

    line: int  # of ``backend: "python"``
    max_batch: int
    largest: Tensor | None
    least_bytes: int

    def describe(self, name: str) -> str:
        """How the message quotes the model of folder ``name``: the model and the lower bound first (a short
        message keeps what comes before the parenthesis), then the backend, the batch and the largest tensor."""
        batch = f"max_batch_size {self.max_batch} x " if self.max_batch > 1 else ""
        tensor = self.largest
        shape = "x".join(str(d) for d in tensor.dims) if tensor is not None else "?"
        what = f"{tensor.name} [{shape}] {tensor.type}" if tensor is not None else "its tensors"
        return (
            f"model {visible(name)}, >= {self.least_bytes // (1024 * 1024)} MiB a batch (python backend, {batch}"
            f"{what}) in its shared memory, over the {human(DEFAULT_SHM_BYTES)} default"
        )


def repositories(argv: Sequence[str]) -> list[str]:
    """The model repositories a ``tritonserver`` command line names (``--model-repository=X``, ``--model-store X``);
    none for any other program."""
    if not argv or os.path.basename(argv[0]) != "tritonserver":
        return []
    return [value for value in option_values(argv[1:], REPOSITORY_OPTIONS) if value and "\x00" not in value]


def python_model(text: str) -> PythonModel | None:
    """The config's Python-backend model and its least batch size in bytes, or None for any other backend."""
    text = _COMMENT.sub(lambda found: found.group("string") or "", text)  # lines stay where they were
    backend = _BACKEND.search(text)
    if backend is None or backend.group("name") != "python":
        return None
    batch = _MAX_BATCH.search(text)
    max_batch = int(batch.group("value")) if batch is not None else 0
    tensors = list(_tensors(text))
    per_item = sum(tensor.least_bytes for tensor in tensors)
    largest = max(tensors, key=lambda t: t.least_bytes) if tensors else None
    line = text.count("\n", 0, backend.start()) + 1
    return PythonModel(line, max_batch, largest, per_item * max(max_batch, 1))


def _tensors(text: str) -> Iterator[Tensor]:
    """The tensors of the top-level ``input`` and ``output`` lists of ``text`` (its comments dropped), each read
    from its own fields."""
    for body in _tensor_bodies(text):
        data_type, dims = _DATA_TYPE.search(body), _DIMS.search(body)
        if data_type is None or dims is None:
            continue
        name = _NAME.search(body)
        values = [part.strip() for part in dims.group("dims").split(",") if part.strip()]
        if not all(re.fullmatch(r"-?[0-9]{1,9}", value) for value in values):
            continue
        yield Tensor(name.group("name") if name else "?", data_type.group("type"), tuple(int(v) for v in values))


def _tensor_bodies(text: str) -> Iterator[str]:
    """Each tensor's own text: the braces of a top-level ``input [ {...} ]`` (or ``input {...}``, repeated), with
    the blocks nested in it (a ``reshape``) left out, so that only its own ``name``, ``data_type`` and ``dims``
    are read. Brackets inside strings do not nest; unbalanced ones end nothing past the file's end."""
    stack: list[str] = []  # the open brackets and braces
    listed = False  # a top-level ``input``/``output`` was just named: the bracket that follows opens its list
    counted = False  # inside a top-level ``input``/``output`` list
    tensor = 0  # the depth of the open tensor's brace, 0 outside a tensor
    own: list[str] = []  # the open tensor's own text so far
    mark = 0  # where its own text goes on
    for token in _TOKEN.finditer(text):
        word = token.group()
        if token.group("list"):
            listed = not stack
        elif word in ("[", "{"):
            if tensor and word == "{" and "{" not in stack[tensor:]:
                own.append(text[mark : token.start()])  # a nested block starts: not the tensor's own
            stack.append(word)
            if len(stack) == 1:
                counted, listed = listed, False
            if counted and not tensor and word == "{" and (len(stack) == 1 or stack[:2] == ["[", "{"]):
                tensor, own, mark = len(stack), [], token.end()
        elif word in ("]", "}") and stack:
            if tensor and len(stack) == tensor:
                own.append(text[mark : token.start()])
                yield "".join(own)
                tensor = 0
            elif tensor and stack[-1] == "{" and "{" not in stack[tensor:-1]:
                mark = token.end()  # the nested block ends: the tensor's own text goes on
            stack.pop()


def needs(model: PythonModel) -> bool:
    return model.least_bytes > DEFAULT_SHM_BYTES


class Walk(Protocol):
    """What ``shmlint.project.follow``'s walk of one workload gives this reading: its bounded reads, the folders the
    container's paths resolve against, and where facts go."""

    reader: Reader
    bases: list[str]
    mounts: list[tuple[str, str]]  # bind mounts: (container path, repository folder)
    needs: list[CodeFact]
    doubt: bool

    def read(self, path: str) -> str | None: ...

    def locate(self, name: str) -> str | None: ...


def follow(walk: Walk, argv: Sequence[str]) -> None:
    """A ``tritonserver`` command's model repositories: the Python-backend models whose batches cannot fit the
    default /dev/shm are facts; a repository that is not found in the tree leaves the walk in doubt."""
    for named in repositories(argv)[:MAX_REPOSITORIES]:
        folder = container_folder(walk, named)
        if folder is None:
            walk.doubt = True
            continue
        for model in walk.reader.folders(folder)[:MAX_MODELS]:
            path = walk.reader.inside(os.path.join(folder, model, "config.pbtxt"))
            text = walk.read(path) if path is not None else None
            found = python_model(text) if text is not None else None
            if path is not None and found is not None and needs(found):
                walk.needs.append(CodeFact(f"{walk.reader.display(path)}:{found.line}", found.describe(model)))


def container_folder(walk: Walk, path: str) -> str | None:
    """The repository folder a container path stands for: through a bind mount (the most specific), else (an image
    that copies the repository) its tails below the walk's bases (``Reader.locate``)."""
    if not known(path):
        return None
    if path.startswith("/"):
        most_specific_first = sorted(walk.mounts, key=lambda bind: -len(bind[0]))
        for mapped in walk.reader.through_binds(most_specific_first, path):
            return mapped
    if ".." in path.split("/"):
        return None
    return walk.reader.locate(walk.bases, path, folder=True)
