"""nnU-Net and batchgenerators in Python read with ``ast``: the augmenters that run their transforms in worker
processes, and nnU-Net's trainer, which feeds itself from them. Their batches are torch tensors that a
multiprocessing queue moves through /dev/shm (MIC-DKFZ/nnUNet#1411: "unable to write to file </torch_...>: No space
left on device (28)" in nondet_multi_threaded_augmenter; the data's ``nnunet-training`` entry for the commands)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from shmlint.project.pyscopes import Scope
from shmlint.project.pysyntax import called
from shmlint.project.pyvalues import Context, value_of

#: batchgenerators' augmenters with worker processes; ``num_processes`` is the third parameter of both
AUGMENTERS = frozenset({"MultiThreadedAugmenter", "NonDetMultiThreadedAugmenter"})
_PROCESSES_AT = 2
#: nnU-Net's packages (v2, and v1's)
_PACKAGES = frozenset({"nnunetv2", "nnunet"})
#: the variable that sets nnU-Net's augmentation processes (``nnUNet_n_proc_DA``; 0 trains single-threaded)
PROCESSES_VARIABLE = "nnUNet_n_proc_DA"


def augmenter(node: ast.Call, name: str, context: Context, quote: Callable[[ast.expr], str]) -> tuple[int, str] | None:
    """(line, fact) for an augmenter made with worker processes (``num_processes`` above zero as the code says
    it), or None."""
    if name not in AUGMENTERS or any(k.arg is None for k in node.keywords):
        return None
    given = next((k.value for k in node.keywords if k.arg == "num_processes"), None)
    if given is None and len(node.args) > _PROCESSES_AT and not any(isinstance(a, ast.Starred) for a in node.args):
        given = node.args[_PROCESSES_AT]
    if given is None:
        return None
    value = value_of(given, context)
    if not value.positive:
        return None
    return node.lineno, (
        f"{name}(num_processes={quote(given)}){value.how}: batchgenerators' worker processes hand torch batches "
        "over through a multiprocessing queue"
    )


def single_threaded(nodes: list[ast.AST]) -> bool:
    """Whether the file sets ``os.environ["nnUNet_n_proc_DA"] = "0"`` (the review: a training script that turns
    the augmentation processes off itself)."""
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and str(node.value.value).strip() == "0"
        and any(
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == PROCESSES_VARIABLE
            for target in node.targets
        )
        for node in nodes
    )


def nnunet_names(nodes: list[ast.AST]) -> frozenset[str]:
    """The names a file imports from nnU-Net's packages (``from nnunetv2.run.run_training import run_training``)."""
    return frozenset(
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in _PACKAGES
        for alias in node.names
    )


def nnunet_training(
    node: ast.Call,
    names: frozenset[str],
    scope: Scope | None,
    context: Context,
    quote: Callable[[ast.expr], str],
) -> tuple[int, str] | None:
    """(line, fact) for nnU-Net training run through its Python API, in a file that imports from nnU-Net: its
    ``run_training(...)`` function, or ``run_training()`` of a trainer the name holds on that line (a class
    whose name holds ``nnUNetTrainer``, a subclass's too, or a factory imported from nnU-Net). Not where the
    container's environment (its manifest's, or its image's ``ENV``) sets ``nnUNet_n_proc_DA`` to 0, nor where
    ``names`` is empty (``pycode`` gives none for a file that sets it to 0 itself: ``single_threaded``)."""
    if not names or called(node.func) != "run_training" or context.env.get(PROCESSES_VARIABLE, "").strip() == "0":
        return None
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if isinstance(node.func, ast.Name):
        made = node.func.id in names
    elif isinstance(receiver, ast.Name) and scope is not None:
        values = scope.values(receiver.id, before=node.lineno + 1)
        made = bool(values) and all(isinstance(v, ast.Call) and _a_trainer(called(v.func), names) for v in values)
    else:
        made = isinstance(receiver, ast.Call) and _a_trainer(called(receiver.func), names)
    if not made:
        return None
    return node.lineno, (
        f"{quote(node.func)}(...): nnU-Net's trainer feeds itself from {PROCESSES_VARIABLE} augmentation processes "
        "(12 by default) through a multiprocessing queue"
    )


def nnunet_prediction(
    node: ast.Call, names: frozenset[str], scope: Scope | None, quote: Callable[[ast.expr], str]
) -> tuple[int, str] | None:
    """(line, fact) for nnU-Net v2's predictor run through its Python API (audit84a: ``nnUNetPredictor(...)
    .predict_from_files(..., num_processes_preprocessing=8)``): it reads the cases through at least one
    preprocessing worker process (``max(1, ...)``) whose torch tensors a multiprocessing queue moves through
    /dev/shm, as ``nnUNetv2_predict`` does (the data's ``nnunet-prediction`` entry and its sources)."""
    if "nnUNetPredictor" not in names or called(node.func) != "predict_from_files":
        return None
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and scope is not None:
        values = scope.values(receiver.id, before=node.lineno + 1)
        made = bool(values) and all(isinstance(v, ast.Call) and called(v.func) == "nnUNetPredictor" for v in values)
    else:
        made = isinstance(receiver, ast.Call) and called(receiver.func) == "nnUNetPredictor"
    if not made:
        return None
    return node.lineno, (
        f"{quote(node.func)}(...): nnU-Net's predictor reads each case through preprocessing worker processes that "
        "hand torch tensors over through a multiprocessing queue"
    )


def _a_trainer(name: str, names: frozenset[str]) -> bool:
    return "nnUNetTrainer" in name or (name in names and name.startswith("get_trainer"))
