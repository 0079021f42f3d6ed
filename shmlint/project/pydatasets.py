"""The batches a DataLoader moves when its dataset is one of torchvision's small fixed-size image sets, read with
``ast``: worker processes pass every batch through /dev/shm, but a tutorial's MNIST or CIFAR-10 batches are a few
MiB in all, far from the 64 MiB default, and a finding there would cry wolf.

Only what the text says for certain counts: the loader is torch's and takes no argument that shapes its batches
otherwise (a ``batch_sampler``, a ``collate_fn``); its dataset is built by a class torchvision's own import names
(directly, or a name bound once in the file and only read after, ``names_of``), with no ``target_transform``; its
transforms are torchvision's, all known (a list given to ``Compose``, each one that keeps the image's size, or sets
it from a certain number); the batch size is certain (``_certain``: 1 when not given) and the worker count a number.
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
from shmlint.project.pyscopes import bound_names
from shmlint.project.pysyntax import dotted
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
    """What a file's names stand for here: those bound once (``_assigned_once``), those the file may change
    (``names_of``), those it binds more than once or stores into (``T.ToTensor = Big``), and what its imports make of
    local names (``T`` -> ``torchvision.transforms``)."""

    assigned: Mapping[str, ast.expr | None]
    touched: frozenset[str]
    rebound: frozenset[str]
    imported: Mapping[str, str]


#: calls that only read what they are given, by the full name the file's imports give them: torch's loader and
#: samplers, torchvision's ``Compose``, serialisers (``pickle.dump``, ``torch.save``); and Python's own ``len``,
#: ``print`` and ``isinstance`` where the file binds no name of theirs
_READERS = frozenset(
    {
        "torch.utils.data.DataLoader",
        "torch.utils.data.dataloader.DataLoader",
        "torch.utils.data.DistributedSampler",
        "torch.utils.data.distributed.DistributedSampler",
        "torch.utils.data.RandomSampler",
        "torch.utils.data.SequentialSampler",
        "torchvision.transforms.Compose",
        "torchvision.transforms.v2.Compose",
        "pickle.dump",
        "pickle.dumps",
        "json.dump",
        "json.dumps",
        "torch.save",
    }
)
_BUILTIN_READERS = frozenset({"len", "print", "isinstance"})
_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


def _bindings(nodes: list[ast.AST]) -> Counter[str]:
    """How many times the file binds each name (``pyscopes.bound_names``, file-wide), a ``del`` as a binding too and
    a ``global``/``nonlocal`` twice: a name bound elsewhere is never bound once here."""
    bound: Counter[str] = Counter()
    for node in nodes:
        bound.update(bound_names(node))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
            bound[node.id] += 1
    return bound


def _assigned_once(nodes: list[ast.AST], bound: Counter[str]) -> dict[str, ast.expr | None]:
    """Names the file binds exactly once, with a plain ``name = value``, and what they hold; ``None`` for a name
    bound more than once or any other way (a parameter, a loop or ``with`` target, ``:=``, unpacking, an import,
    ``except ... as``, a ``def`` or ``class``, a ``global``): file-wide, so a name bound in two scopes is never
    taken for either. Stricter than value following's ``pyvalues.names``: this proves a loader small."""
    plain: dict[str, ast.expr] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            plain.setdefault(node.targets[0].id, node.value)
    return {name: plain.get(name) if count == 1 else None for name, count in bound.items()}


def names_of(nodes: list[ast.AST]) -> Names:
    """The file's names as ``small_batches`` reads them. A name is touched when the file uses it other than by
    reading: anything but an argument of a call that only reads it (``DataLoader``, ``len``...) or an attribute read
    inside such a call (``print(trainset.classes)``): an attribute set or kept (``aug = ds.transform``), a method
    called (``steps.insert``), the name passed to another function (``upscale(trainset)``, ``setattr``), put in a
    tuple or looped over."""
    imported: dict[str, str] = {}
    targets: dict[str, set[str]] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                imported[local] = alias.name if alias.asname else local
                targets.setdefault(local, set()).add(imported[local])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                targets.setdefault(alias.asname or alias.name, set()).add(imported[alias.asname or alias.name])
    counts = _bindings(nodes)
    assigned = _assigned_once(nodes, counts)
    stored = {
        node.value.id
        for node in nodes
        if isinstance(node, (ast.Attribute, ast.Subscript))
        and not isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
    }
    # two imports of one module bind it once (``import torchvision`` and ``import torchvision.transforms``)
    aliases = Counter((node.asname or node.name.split(".")[0]) for node in nodes if isinstance(node, ast.alias))
    once = {name: count - aliases[name] + len(targets.get(name, ())) for name, count in counts.items()}
    rebound = frozenset(name for name, count in once.items() if count > 1) | frozenset(stored)
    names = Names(assigned, frozenset(), rebound, imported)
    readers = [node for node in nodes if isinstance(node, ast.Call) and _reads(node, names)]
    inside = {id(part) for call in readers for given in _given(call) for part in ast.walk(given)}
    used = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    used |= {id(node.value) for node in nodes if isinstance(node, (ast.Attribute, ast.Subscript))}
    reads: Counter[str] = Counter(a.id for call in readers for a in _given(call) if isinstance(a, ast.Name))
    uses: Counter[str] = Counter()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            uses[node.id] += 1
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and id(node) in inside:
            reads[node.value.id] += int(id(node) not in used and isinstance(node.ctx, ast.Load))
    touched = frozenset(name for name, count in uses.items() if count > reads[name])
    return names._replace(touched=touched)


def _given(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _reads(call: ast.Call, names: Names) -> bool:
    """Whether a call only reads what it is given: a reader by its full name, Python's own, or a dataset class (which
    reads its transform)."""
    if isinstance(call.func, ast.Name) and call.func.id in _BUILTIN_READERS:
        return call.func.id not in names.rebound and call.func.id not in names.assigned
    full = _full(call.func, names)
    return full in _READERS or (full.rpartition(".")[0] == _DATASETS and full.rpartition(".")[2] in SHAPES)


def _full(func: ast.expr, names: Names) -> str:
    """The full dotted name of what the file calls, through its imports (``T.Resize`` ->
    ``torchvision.transforms.Resize``); "" for a name not imported, or bound or stored into again."""
    first, _, rest = dotted(func).partition(".")
    if first not in names.imported or first in names.rebound:
        return ""
    return f"{names.imported[first]}.{rest}".rstrip(".")


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
    if _full(loader.func, names) not in _LOADERS:  # a subclass of the file's own, another package's loader
        return None
    dataset = _resolved(_argument(loader, 0, "dataset"), names)
    name = _imported(dataset.func, names, (_DATASETS,)) if isinstance(dataset, ast.Call) else ""
    if not isinstance(dataset, ast.Call) or name not in SHAPES or _argument(dataset, -1, "target_transform"):
        return None
    shape = _transformed(SHAPES[name], _argument(dataset, -1, "transform"), names, context)
    if shape is None:
        return None
    given_batch = _argument(loader, 1, "batch_size")
    batch = _certain(given_batch, names, context) if given_batch is not None else 1
    given_prefetch = _argument(loader, -1, "prefetch_factor")
    prefetch = _certain(given_prefetch, names, context) if given_prefetch is not None else 2
    if batch is None or batch < 1 or prefetch is None or prefetch < 1:
        return None
    channels, height, width = shape
    sample = channels * height * width * _ELEMENT_BYTES
    procs = max(1, context.devices or 1)  # one loader a local rank
    found = estimate(DataLoaderHint(workers, batch, sample, prefetch, procs))
    if found.estimate_bytes > SMALL_BYTES:
        return None
    return f"{name} batches of {batch} ({human(found.batch_bytes)}), {human(found.estimate_bytes)} in flight"


def _certain(node: ast.expr, names: Names, context: Context) -> int | None:
    """A number the text gives for certain: a literal, a name bound once to one, an argparse option or a config key
    (``args.batch_size``, as ``pyvalues`` follows it) unless the command line may abbreviate the option (argparse
    takes ``--batch`` for ``--batch-size``); never an environment variable's default (the container may set it where
    the linter cannot see: an ``env_file``, the image) or anything computed."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        held = names.assigned.get(node.id)
        return _certain(held, names, context) if isinstance(held, ast.Constant) else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in ("os", "environ"):
        option = context.options.get(node.attr)
        if option is not None and _abbreviated(option.flags, context.arguments):
            return None
        return value_of(node, context).number
    return None


def _abbreviated(flags: tuple[str, ...], arguments: tuple[str, ...]) -> bool:
    """Whether a command line word may be an abbreviation of one of the option's long flags."""
    words = [word.partition("=")[0] for word in arguments if word.startswith("--")]
    return any(flag.startswith(word) and flag != word for flag in flags if flag.startswith("--") for word in words)


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """A call's argument by keyword, else by position (``-1``: by keyword only)."""
    given = next((k.value for k in call.keywords if k.arg == keyword), None)
    if given is None and 0 <= position < len(call.args):
        given = call.args[position]
    return given


def spread(call: ast.Call, names: Names) -> ast.Call:
    """The call with each ``**name`` it is given replaced by the keywords of the dict the file binds that name to
    once and never changes (``kw = dict(num_workers=8, pin_memory=True)``, ``kw = {"num_workers": 8}``), so a
    loader's workers given so are read as written out; the call itself when any cannot be."""
    keywords: list[ast.keyword] = []
    for keyword in call.keywords:
        if keyword.arg is not None:
            keywords.append(keyword)
            continue
        held = _resolved(keyword.value, names) if isinstance(keyword.value, ast.Name) else None
        given = _dict_keywords(held, names) if held is not None else None
        if given is None:
            return call
        keywords += given
    return ast.copy_location(ast.Call(call.func, call.args, keywords), call)


def _dict_keywords(node: ast.expr, names: Names) -> list[ast.keyword] | None:
    """The keywords a dict written out gives: ``{"a": 1}`` with string keys, or ``dict(a=1)`` (Python's own
    ``dict``); None for anything else (a key computed, a ``**`` inside)."""
    if isinstance(node, ast.Dict):
        keys = [
            key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None for key in node.keys
        ]
        if None in keys:
            return None
        return [ast.copy_location(ast.keyword(key, value), value) for key, value in zip(keys, node.values, strict=True)]
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id != "dict":
        return None
    if "dict" in names.assigned or node.args or not all(k.arg for k in node.keywords):
        return None
    return list(node.keywords)


def _resolved(node: ast.expr | None, names: Names) -> ast.expr | None:
    """The expression itself, or what a name bound once in the file holds, when nothing changes it later through
    an attribute or an index (``ds.transform = ...``, ``steps.insert(...)``)."""
    if isinstance(node, ast.Name):
        return None if node.id in names.touched else names.assigned.get(node.id)
    return node


def _imported(func: ast.expr, names: Names, modules: tuple[str, ...]) -> str:
    """The name a call's class has in one of ``modules`` as the file's imports spell it (``T.Resize`` with
    ``from torchvision import transforms as T``, ``CIFAR10`` imported from ``torchvision.datasets``); "" for
    anything else (a class of the same name from another package, ``class CIFAR10(CIFAR10)``)."""
    module, _, name = _full(func, names).rpartition(".")
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
            given = _argument(step, 0, "size")
            size = _certain(given, names, context) if given is not None else None
            if size is None or size < 1:
                return None
            height = width = size  # an int resizes the shorter side; these sets' images are square
        elif name == "Grayscale":
            given = _argument(step, 0, "num_output_channels")
            number = _certain(given, names, context) if given is not None else 1
            if number is None or number < 1:
                return None
            channels = number
        elif name not in _KEEP:
            return None
    return channels, height, width
