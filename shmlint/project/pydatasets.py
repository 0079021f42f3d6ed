"""The batches a DataLoader moves when its dataset is one of torchvision's small fixed-size image sets, read with
``ast``: worker processes pass every batch through /dev/shm, but a tutorial's MNIST or CIFAR-10 batches are a few
MiB in all, far from the 64 MiB default, and a finding there would cry wolf.

Only what the text says for certain counts: the dataset built by a torchvision class (directly, or a name assigned
once), its transforms all known (a list given to ``Compose``, each a transform that keeps the image's size, or one
that sets it from a literal), the batch size a value ``pyvalues`` follows (1 when not given) and the worker count a
number. Image sizes are torchvision's (https://pytorch.org/vision/stable/datasets.html): MNIST and its kin are
28x28 grayscale, CIFAR-10/100 and SVHN 32x32 RGB, STL-10 96x96 RGB; a tensor's element is counted as float32
(``ToTensor``), whatever a later transform makes of it. Anything else (a custom dataset, ``Lambda``, an unknown
transform, a ``Subset`` or ``random_split``) leaves the loader as it was: workers, a need.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from shmlint.dataloader import estimate
from shmlint.model import DataLoaderHint
from shmlint.project.pysyntax import called, dotted
from shmlint.project.pyvalues import Context, value_of
from shmlint.sizes import MIB, human

#: torchvision dataset classes and their images: channels, height, width
SHAPES: Mapping[str, tuple[int, int, int]] = {
    "MNIST": (1, 28, 28),
    "FashionMNIST": (1, 28, 28),
    "KMNIST": (1, 28, 28),
    "EMNIST": (1, 28, 28),
    "QMNIST": (1, 28, 28),
    "CIFAR10": (3, 32, 32),
    "CIFAR100": (3, 32, 32),
    "SVHN": (3, 32, 32),
    "STL10": (3, 96, 96),
}
#: transforms that keep an image's size and channels (v1 and v2 names)
_KEEP = frozenset(
    {
        "ToTensor",
        "PILToTensor",
        "ToImage",
        "ToDtype",
        "ConvertImageDtype",
        "Normalize",
        "RandomHorizontalFlip",
        "RandomVerticalFlip",
        "RandomRotation",
        "RandomAffine",
        "RandomPerspective",
        "ColorJitter",
        "GaussianBlur",
        "RandomErasing",
        "RandomInvert",
        "RandomPosterize",
        "RandomSolarize",
        "RandomAutocontrast",
        "RandomEqualize",
        "RandomAdjustSharpness",
        "AutoAugment",
        "RandAugment",
        "TrivialAugmentWide",
        "AugMix",
    }
)
#: transforms whose first argument (or ``size``) is the image's new size
_RESIZE = frozenset({"Resize", "RandomCrop", "CenterCrop", "RandomResizedCrop"})
#: a loader's batches in flight below this are no risk: a quarter of the default /dev/shm, so another loader and
#: NCCL's own segments still fit beside it
SMALL_BYTES = 16 * MIB
#: the element of a transformed image (``ToTensor``: float32)
_ELEMENT_BYTES = 4


def small_batches(
    loader: ast.Call, workers: int, assigned: Mapping[str, ast.expr | None], context: Context
) -> str | None:
    """What the loader's batches come to when they are certainly small (``CIFAR10 batches of 128 (1.5 MiB),
    9.0 MiB in flight``), else None. ``assigned``: the file's names assigned exactly once."""
    dataset = _resolved(_argument(loader, 0, "dataset"), assigned)
    if not isinstance(dataset, ast.Call) or not _torchvision(dataset.func):
        return None
    shape = _transformed(SHAPES[called(dataset.func)], _argument(dataset, -1, "transform"), assigned, context)
    if shape is None:
        return None
    given_batch = _argument(loader, 1, "batch_size")
    batch = value_of(given_batch, context).number if given_batch is not None else 1
    given_prefetch = _argument(loader, -1, "prefetch_factor")
    prefetch = value_of(given_prefetch, context).number if given_prefetch is not None else 2
    if batch is None or batch < 1 or prefetch is None or prefetch < 1:
        return None
    channels, height, width = shape
    sample = channels * height * width * _ELEMENT_BYTES
    procs = max(1, context.devices or 1)  # one loader a local rank
    found = estimate(DataLoaderHint(workers, batch, sample, prefetch, procs))
    if found.estimate_bytes > SMALL_BYTES:
        return None
    name = called(dataset.func)
    return f"{name} batches of {batch} ({human(found.batch_bytes)}), {human(found.estimate_bytes)} in flight"


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """A call's argument by keyword, else by position (``-1``: by keyword only)."""
    given = next((k.value for k in call.keywords if k.arg == keyword), None)
    if given is None and 0 <= position < len(call.args):
        given = call.args[position]
    return given


def _resolved(node: ast.expr | None, assigned: Mapping[str, ast.expr | None]) -> ast.expr | None:
    """The expression itself, or what a name assigned once in the file holds."""
    if isinstance(node, ast.Name):
        return assigned.get(node.id)
    return node


def _torchvision(func: ast.expr) -> bool:
    """A torchvision dataset class, as code names it (``torchvision.datasets.CIFAR10``, ``datasets.MNIST``,
    ``CIFAR10`` imported from there)."""
    name = called(func)
    path = dotted(func)
    return name in SHAPES and path in (name, f"datasets.{name}", f"torchvision.datasets.{name}")


def _transformed(
    shape: tuple[int, int, int],
    transform: ast.expr | None,
    assigned: Mapping[str, ast.expr | None],
    context: Context,
) -> tuple[int, int, int] | None:
    """The image's shape after the transforms, or None when one of them is not known."""
    transform = _resolved(transform, assigned)
    if transform is None:
        return None  # a PIL image, which the default collate cannot batch: not what runs
    steps: list[ast.expr] = [transform]
    if isinstance(transform, ast.Call) and called(transform.func) == "Compose":
        listed = _resolved(_argument(transform, 0, "transforms"), assigned)
        if not isinstance(listed, (ast.List, ast.Tuple)):
            return None
        steps = list(listed.elts)
    channels, height, width = shape
    for step in steps:
        if not isinstance(step, ast.Call):
            return None
        name = called(step.func)
        if name in _RESIZE:
            size = value_of(_argument(step, 0, "size") or ast.Constant(None), context).number
            if size is None or size < 1:
                return None
            height = width = size  # an int resizes the shorter side; these sets' images are square
        elif name == "Grayscale":
            given = _argument(step, 0, "num_output_channels")
            number = value_of(given, context).number if given is not None else 1
            if number is None or number < 1:
                return None
            channels = number
        elif name not in _KEEP:
            return None
    return channels, height, width
