"""The batches a DataLoader moves when its dataset is one of torchvision's small fixed-size image sets, read with
``ast``: worker processes pass every batch through /dev/shm, but a tutorial's MNIST or CIFAR-10 batches are a few
MiB in all, far from the 64 MiB default, and a finding there would cry wolf.

Only what the text says for certain counts: the loader takes no argument that shapes its batches otherwise (a
``batch_sampler``, a ``collate_fn``); its dataset is built by a class torchvision's own import names (directly, or a
name bound once in the file and never changed through an attribute or an index), with no ``target_transform``; its
transforms are torchvision's, all known (a list given to ``Compose``, each one that keeps the image's size, or sets
it from a literal); the batch size is a value ``pyvalues`` follows (1 when not given) and the worker count a number.
Image sizes are torchvision's (https://pytorch.org/vision/stable/datasets.html): MNIST and its kin are 28x28
grayscale, CIFAR-10/100 and SVHN 32x32 RGB, STL-10 96x96 RGB; an element is counted as float32 (``ToTensor``), and a
conversion to any wider type is not known. Anything else (a custom dataset, ``Lambda``, an unknown transform, a
``Subset`` or ``random_split``) leaves the loader as it was: workers, a need.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping

from shmlint.dataloader import estimate
from shmlint.model import DataLoaderHint
from shmlint.named_tuple import NamedTuple
from shmlint.project.pysyntax import called, dotted
from shmlint.project.pyvalues import Context, bindings, value_of
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
        "Normalize",
        "RandomHorizontalFlip",
        "RandomVerticalFlip",
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
#: conversions that keep the element within float32's four bytes when their type (first argument) is one of these
_CONVERT = frozenset({"ToDtype", "ConvertImageDtype"})
_NARROW_TYPES = frozenset({"float32", "float16", "bfloat16", "uint8", "half"})
#: DataLoader arguments that leave its batches as ``batch_size`` samples collated as they are
_PLAIN_ARGUMENTS = frozenset(
    {
        "dataset",
        "batch_size",
        "shuffle",
        "sampler",
        "num_workers",
        "pin_memory",
        "drop_last",
        "timeout",
        "worker_init_fn",
        "prefetch_factor",
        "persistent_workers",
        "generator",
        "pin_memory_device",
        "in_order",
    }
)
#: positional arguments of DataLoader up to ``sampler`` (the fifth is ``batch_sampler``)
_PLAIN_POSITIONS = 4
_DATASETS, _TRANSFORMS = "torchvision.datasets", ("torchvision.transforms", "torchvision.transforms.v2")


class Names(NamedTuple):
    """What a file's names stand for here: those bound once (``pyvalues.assigned_once``), those the file may change
    (``names_of``), those it binds more than once, and what its imports make of local names (``T`` ->
    ``torchvision.transforms``)."""

    assigned: Mapping[str, ast.expr | None]
    touched: frozenset[str]
    rebound: frozenset[str]
    imported: Mapping[str, str]


#: calls that only read a dataset or a list of transforms they are given (serialising one, ``pickle.dump``,
#: ``torch.save``, reads it too)
_READERS = frozenset(
    {
        "DataLoader",
        "len",
        "print",
        "isinstance",
        "Compose",
        "DistributedSampler",
        "RandomSampler",
        "SequentialSampler",
        "dump",
        "dumps",
        "save",
    }
)


def names_of(nodes: list[ast.AST], assigned: Mapping[str, ast.expr | None]) -> Names:
    """The file's names as ``small_batches`` reads them. A name is touched when the file uses it other than by
    reading: anything but an argument of a call that only reads it (``DataLoader``, ``len``...) or a plain
    attribute read (``trainset.classes``): an attribute set, a method called (``steps.insert``), the name passed to
    another function (``upscale(trainset)``, ``setattr``), put in a tuple or looped over."""
    calls = [node for node in nodes if isinstance(node, ast.Call)]
    # what is called, or taken an attribute or an index of, is not merely read (``t.transforms.insert(...)``)
    used = {id(call.func) for call in calls}
    used |= {id(node.value) for node in nodes if isinstance(node, (ast.Attribute, ast.Subscript))}
    reads: Counter[str] = Counter()
    for call in calls:
        if called(call.func) in _READERS or called(call.func) in SHAPES:  # a dataset class reads its transform
            reads.update(a.id for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Name))
    uses: Counter[str] = Counter()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            uses[node.id] += 1
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name)
            and id(node) not in used
        ):
            reads[node.value.id] += 1
    imported: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                imported[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    touched = frozenset(name for name, count in uses.items() if count > reads[name])
    rebound = frozenset(name for name, count in bindings(nodes).items() if count > 1)
    return Names(assigned, touched, rebound, imported)


#: a loader's batches in flight below this are no risk: a quarter of the default /dev/shm, so another loader and
#: NCCL's own segments still fit beside it
SMALL_BYTES = 16 * MIB
#: the element of a transformed image (``ToTensor``: float32)
_ELEMENT_BYTES = 4


def small_batches(loader: ast.Call, workers: int, names: Names, context: Context) -> str | None:
    """What the loader's batches come to when they are certainly small (``CIFAR10 batches of 128 (1.5 MiB),
    9.0 MiB in flight``), else None."""
    if len(loader.args) > _PLAIN_POSITIONS or any(k.arg not in _PLAIN_ARGUMENTS for k in loader.keywords):
        return None
    dataset = _resolved(_argument(loader, 0, "dataset"), names)
    name = _imported(dataset.func, names, (_DATASETS,)) if isinstance(dataset, ast.Call) else ""
    if not isinstance(dataset, ast.Call) or name not in SHAPES or _argument(dataset, -1, "target_transform"):
        return None
    shape = _transformed(SHAPES[name], _argument(dataset, -1, "transform"), names, context)
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
    return f"{name} batches of {batch} ({human(found.batch_bytes)}), {human(found.estimate_bytes)} in flight"


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """A call's argument by keyword, else by position (``-1``: by keyword only)."""
    given = next((k.value for k in call.keywords if k.arg == keyword), None)
    if given is None and 0 <= position < len(call.args):
        given = call.args[position]
    return given


def _resolved(node: ast.expr | None, names: Names) -> ast.expr | None:
    """The expression itself, or what a name bound once in the file holds, when nothing changes it later through
    an attribute or an index (``ds.transform = ...``, ``steps.insert(...)``)."""
    if isinstance(node, ast.Name):
        return None if node.id in names.touched else names.assigned.get(node.id)
    return node


def _imported(func: ast.expr, names: Names, modules: tuple[str, ...]) -> str:
    """The name a call's class has in one of ``modules`` as the file's imports spell it (``T.Resize`` with
    ``from torchvision import transforms as T``, ``CIFAR10`` imported from ``torchvision.datasets``); "" for
    anything else (a class of the same name from another package)."""
    path = dotted(func)
    first, _, rest = path.partition(".")
    known = first in names.imported and first not in names.rebound  # ``class CIFAR10(CIFAR10)`` is another class
    full = f"{names.imported[first]}.{rest}".rstrip(".") if known else ""
    module, _, name = full.rpartition(".")
    return name if module in modules else ""


def _transformed(
    shape: tuple[int, int, int], transform: ast.expr | None, names: Names, context: Context
) -> tuple[int, int, int] | None:
    """The image's shape after the transforms, or None when one of them is not known."""
    transform = _resolved(transform, names)
    if transform is None:
        return None  # a PIL image, which the default collate cannot batch: not what runs
    steps: list[ast.expr] = [transform]
    if isinstance(transform, ast.Call) and _imported(transform.func, names, _TRANSFORMS) == "Compose":
        listed = _resolved(_argument(transform, 0, "transforms"), names)
        if not isinstance(listed, (ast.List, ast.Tuple)):
            return None
        steps = list(listed.elts)
    channels, height, width = shape
    for step in steps:
        if not isinstance(step, ast.Call):
            return None
        name = _imported(step.func, names, _TRANSFORMS)
        if name in _CONVERT:
            given = _argument(step, 0, "dtype")
            if given is None or dotted(given).rpartition(".")[2] not in _NARROW_TYPES:
                return None
        elif name in _RESIZE:
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
