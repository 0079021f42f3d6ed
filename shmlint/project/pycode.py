"""What a Python file does with /dev/shm, read with ``ast`` (never imported or run): DataLoaders and their
``num_workers``, trainer arguments' ``dataloader_num_workers``, ``torch.multiprocessing`` and NCCL process groups.

A value is followed where the text says it for certain (``pyvalues``, through the options and config files of
``pyoptions``); anything else stays unknown, and unknown is never evidence either way.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.python_imports import FromImport, assignment_lines, from_imports
from shmlint.project.configs import THRESHOLDS, Setting
from shmlint.project.launchers import UNKNOWN as UNKNOWN_VALUE
from shmlint.project.pycommands import Command, commands
from shmlint.project.pydatasets import Names, names_of, small_batches, spread
from shmlint.project.pyhelpers import LoaderHelper, helper_calls, loader_helpers
from shmlint.project.pynnunet import (
    AUGMENTERS,
    augmenter,
    nnunet_names,
    nnunet_prediction,
    nnunet_training,
    single_threaded,
)
from shmlint.project.pyoptions import (
    Exported,
    Option,
    config_default,
    hydra_configs,
    on_command_line,
    opened_configs,
    options,
)
from shmlint.project.pyscopes import Scope, bound_names, scopes
from shmlint.project.pysyntax import called, dotted
from shmlint.project.pyvalues import Constant, Context, Value, exported_numbers, names, rebound, text_of, value_of

#: top-level packages that start processes or servers of their own: code importing them is never called free
BUSY_PACKAGES = frozenset(
    {
        "vllm",
        "sglang",
        "ray",
        "deepspeed",
        "accelerate",
        "lightning",
        "pytorch_lightning",
        "transformers",
        "trl",
        "multiprocessing",
        "concurrent",
        "tensorrt_llm",
        "megatron",
        "nemo",
        "composer",
        "detectron2",
        "ultralytics",
        "mmengine",
        "tritonclient",
    }
)
_BUSY_TORCH = ("torch.distributed", "torch.multiprocessing")
_MP_CALLS = frozenset({"spawn", "start_processes", "Pool", "Queue", "SimpleQueue"})
#: start methods that pickle a ``Process``'s arguments (tensors among them cross through /dev/shm); Linux's default,
#: fork, hands them over in the child's copy of memory
_PICKLING_STARTS = frozenset({"spawn", "forkserver"})
#: PyTorch Geometric's loaders that sample subgraphs: torch DataLoaders whose ``num_workers`` processes pass each
#: batch through /dev/shm as any loader's do (https://pytorch-geometric.readthedocs.io/en/latest/modules/loader.html)
_GRAPH_LOADERS = frozenset(
    {"NeighborLoader", "LinkNeighborLoader", "HGTLoader", "ClusterLoader", "ShaDowKHopSampler", "RandomNodeLoader"}
    | {"GraphSAINTNodeSampler", "GraphSAINTEdgeSampler", "GraphSAINTRandomWalkSampler"}
)
#: keyword arguments of any call that start processes past a threshold (TrainingArguments, vLLM's LLM...)
#: Ultralytics model classes whose ``train`` runs its trainer
_ULTRALYTICS_MODELS = frozenset({"YOLO", "RTDETR", "YOLOWorld", "YOLOE", "NAS"})
_KEYWORDS = frozenset(
    {"dataloader_num_workers", "num_loader_workers", "num_eval_loader_workers", "tensor_parallel_size"}
)
#: facts quoted from one file (and loaders whose workers are not known kept for ``pyhelpers``): the message shows
#: the first few, and quoting reads the file's text each time
MAX_FACTS = 16


class Fact(NamedTuple):
    line: int
    text: str


class PyFacts(NamedTuple):
    """What one file shows: code that uses /dev/shm, loaders made without workers, loaders whose workers are not
    known, local modules it imports, whether it imports software that starts processes of its own, and the
    launcher command lines it writes and the programs by name it runs (``pycommands``)."""

    needs: tuple[Fact, ...] = ()
    zero_loaders: tuple[Fact, ...] = ()
    unknown_loaders: int = 0
    imports: tuple[str, ...] = ()
    busy: bool = False
    launches: tuple[Command, ...] = ()
    options: tuple[Exported, ...] = ()  # the file's argparse options and dataclass fields, as others see them
    config_defaults: tuple[str, ...] = ()  # config files the code names (argparse defaults the command line leaves,
    # literal paths it opens), from the working directory
    beside_configs: tuple[str, ...] = ()  # config files named from the file's own folder (``@hydra.main``)
    by_name: tuple[Command, ...] = ()  # programs a run call starts by name (``["svc", "train", "-t"]``)
    helpers: tuple[LoaderHelper, ...] = ()  # functions that make a loader with the workers their callers give
    from_imports: tuple[FromImport, ...] = ()  # the module's own ``from module import name`` statements
    #: the last line the file assigns each name it assigns (``python_imports.assignment_lines``): a name assigned
    #: after its import is the file's own
    assigned: tuple[tuple[str, int], ...] = ()
    #: modules imported whole (``import m``, ``from m import *``, an import inside a function): all of them may run
    whole_imports: tuple[str, ...] = ()
    #: the names its own statements assign, with their numbers, for the modules that import them
    constants: tuple[Constant, ...] = ()
    #: worker and process counts passed as keywords (``dataloader_num_workers=...``) whose value is not known
    unknown_values: int = 0
    #: ``torch.multiprocessing.Process(...)`` calls: tensors among their arguments cross through /dev/shm only under
    #: a start method that pickles them, which any file of the program may set (``spawn_method``)
    processes: tuple[Fact, ...] = ()
    spawn_method: bool = False  # the file sets one (``mp.set_start_method("spawn")``, ``get_context("spawn")``)
    #: the worker counts its module sets on a config object (``config.DATASET.num_workers = 16``, yacs' and
    #: detectron2's ``_C.DATALOADER.NUM_WORKERS = 4``): (key, number, line), the defaults its loaders' ``cfg.X.key``
    #: read where nothing else sets them
    config_numbers: tuple[tuple[str, int, int], ...] = ()


def read(
    text: str,
    arguments: Sequence[str],
    config: Mapping[str, Setting],
    devices: int | None,
    imported: Mapping[str, Option] | None = None,
    env: Mapping[str, str] | None = None,
    imported_helpers: Mapping[str, LoaderHelper] | None = None,
    *,
    run_as_main: bool = True,
    only: frozenset[str] | None = None,
    imported_values: Mapping[str, Value] | None = None,
) -> PyFacts | None:
    """The file's facts, or None when it does not parse (or is too deeply nested to). ``imported``: argparse
    options defined in the local modules it imports (its own win); ``env``: the container's environment
    (``os.environ.get("WORKERS", 4)`` takes its value there, else the default); ``imported_helpers``: the loader
    helpers of those modules it imports by name, by the name it binds (``pyhelpers``); ``run_as_main``: the file is
    the program run, not a module it imports (then its ``__main__`` block runs); ``only``: the names a module
    imported by name gives its importer (``from animate import normalize_kp``), whose functions and classes, and
    those they use, are all of it that can run there (None: all of it); ``imported_values``: the numbers it imports
    from the repository's modules (``pyvalues.Context.imported``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    nodes = list(ast.walk(tree))
    unused = _unused_definitions(tree, only) if only is not None else frozenset()
    own = options(nodes)
    if imported_values:  # ``m.N`` only where ``m`` is the module the file imports
        heads = rebound(nodes)
        imported_values = {
            key: value for key, value in imported_values.items() if key.partition(".")[0] not in heads or "." not in key
        }
    context = Context(
        tuple(arguments),
        config,
        devices,
        names(nodes),
        {**(imported or {}), **own},
        env or {},
        imported=imported_values or {},
    )
    bound = functools.cache(functools.partial(names_of, nodes))  # read for a loader with workers only
    needs: list[Fact] = []
    zero: list[Fact] = []
    unknown = unknown_values = 0
    loaders: set[int] = set()  # every loader call, by ``id``, for ``pyhelpers``
    unknown_loaders: dict[int, tuple[ast.expr | None, str]] = {}  # those whose workers are not known
    mp_aliases = _mp_aliases(nodes)
    aliases = _loader_aliases(nodes) if "DataLoader if " in text else frozenset()
    ray_elsewhere = "ScalingConfig" in text and _ray_elsewhere(nodes)
    found = scopes(nodes)
    classes = _ultralytics_classes(nodes)
    library = _library_loaders(nodes) if "pcdet" in text else {}
    nnunet = nnunet_names(nodes) if "nnunet" in text or "nnUNet" in text else frozenset()
    nnunet = frozenset() if nnunet and single_threaded(nodes) else nnunet
    scope_of = functools.cache(lambda: {id(node): scope for scope in found for node in scope.nodes})  # when asked
    processes: list[Fact] = []
    #: the classes and functions the module defines, which take what their calls give as parameters of their own
    #: (audit90a: a trainer class given ``dataloader_num_workers=8`` kept it unused; a ``JSONLDataLoader`` class made
    #: its torch loader with none): their calls are read through what they do (``pyhelpers``), not by the names
    defined = _own_callables(tree)
    spawn_method = False
    switched_off = functools.cache(lambda: _switched_off(tree, context))  # the calls in branches the run does not
    # take, worked out the first time a process start asks
    for node in nodes:
        if not isinstance(node, ast.Call) or id(node) in unused:
            continue
        name = called(node.func)
        quoted = text if len(needs) + len(zero) + len(unknown_loaders) < MAX_FACTS else ""
        process = _process(node, mp_aliases, quoted, scope_of().get(id(node))) if name == "Process" else None
        if process is not None and id(node) not in switched_off():
            processes.append(process)
        ranks = _nccl_ranks(node, tree, context, quoted) if name == "Process" and "nccl" in text else None
        if ranks is not None and id(node) not in switched_off():
            needs.append(ranks)
        spawn_method = spawn_method or (name in ("set_start_method", "get_context") and _pickling_start(node))
        graphs = name in _GRAPH_LOADERS and "torch_geometric" in text  # PyG's sampling loaders
        loader = name.endswith("DataLoader") and not (isinstance(node.func, ast.Name) and name in defined)
        if loader or graphs or (name in aliases and isinstance(node.func, ast.Name)):
            loaders.add(id(node))
            call = spread(node, bound()) if any(k.arg is None for k in node.keywords) else node
            verdict = _loader(call, name, context, quoted, bound)
            if verdict is None:
                unknown += 1
                if quoted:
                    given = _workers_argument(call, name)[0]
                    unknown_loaders[id(node)] = (given, f"{name}(num_workers={_quote(text, given)})" if given else name)
            elif verdict[0]:
                needs.append(verdict[1])
            else:
                zero.append(verdict[1])
        for keyword in node.keywords if not (isinstance(node.func, ast.Name) and name in defined) else ():
            if keyword.arg in _KEYWORDS:
                value = value_of(keyword.value, context)
                least = THRESHOLDS[keyword.arg]
                if value.number >= least if value.number is not None else value.positive and least == 1:
                    shown = _quote(quoted, keyword.value)
                    needs.append(Fact(node.lineno, f"{name}({keyword.arg}={shown}){value.how}"))
                unknown_values += value.number is None and not value.positive
        fact = _nccl(node, name, context, quoted) or _lightning(node, name, context, quoted)
        fact = fact or _ray_train(node, name, context, quoted, ray_elsewhere)
        spawned = None if fact is not None else _multiprocessing(node, mp_aliases, quoted)
        if spawned is not None:
            fact = spawned if id(node) not in switched_off() else None
        fact = fact or _ultralytics(node, name, classes, scope_of().get(id(node)), context, quoted, nodes)
        if fact is None and name == "train" and classes and quoted:  # workers a helper's caller gives (``pyhelpers``)
            train = _ultralytics_train(node, name, classes, scope_of().get(id(node)), nodes)
            given = train[0] if train is not None else None
            if given is not None and value_of(given, context).number is None:
                loaders.add(id(node))
                unknown_loaders[id(node)] = (given, f"{_quote(text, node.func)}(workers={_quote(text, given)})")
        if fact is None and name in library and isinstance(node.func, ast.Name):
            fact = _library_loader(node, library[name], context, quoted)
        if fact is None and (name in AUGMENTERS or (nnunet and name in ("run_training", "predict_from_files"))):
            quote = functools.partial(_quote, quoted)
            scope = scope_of().get(id(node))
            said = (
                augmenter(node, name, context, quote)
                or nnunet_training(node, nnunet, scope, context, quote)
                or nnunet_prediction(node, nnunet, scope, quote)
            )
            fact = Fact(*said) if said is not None else None
        if fact is not None:
            needs.append(fact)
    helpers = loader_helpers(found, context, loaders, unknown_loaders) if unknown_loaders else ()
    if helpers or imported_helpers:
        calls = helper_calls(found, helpers, imported_helpers or {}, context, run_as_main=run_as_main)
        for call, name, helper, value in itertools.islice(calls, MAX_FACTS):
            needs.append(Fact(call.lineno, f"{name}(...) makes {helper.shown} at {helper.place}{value.how}"))
    imports, whole, busy = _imports(nodes, tree.body)
    exported = tuple(_exported(dest, option, context) for dest, option in own.items())
    defaults = tuple(
        default for option in own.values() if (default := config_default(option, context.arguments)) is not None
    )
    defaults = tuple(dict.fromkeys((*defaults, *opened_configs(nodes))))
    started = commands(nodes, found)
    return PyFacts(
        tuple(needs),
        tuple(zero),
        unknown,
        imports,
        busy,
        started.launches,
        exported,
        defaults,
        hydra_configs(nodes),
        started.by_name,
        helpers,
        from_imports(found[0].nodes if found else []),
        tuple(assignment_lines(nodes).items()),
        whole,
        exported_numbers(tree, nodes, context),
        unknown_values,
        tuple(processes),
        spawn_method,
        _config_numbers(tree),
    )


#: a config object's key for a loader's worker count, lower-cased (``num_workers``, ``NUM_WORKERS``, ``n_workers``)
_WORKERS_KEY = LazyRegex(r"[a-z0-9_]{0,32}workers?")


def _config_numbers(tree: ast.Module) -> tuple[tuple[str, int, int], ...]:
    """The worker counts the module's own statements set on a config object, an attribute of an attribute
    (``config.DATASET.num_workers = 16``): the config's defaults, as its YAML files' keys are."""
    found = []
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0], statement.value
        if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Attribute):
            continue
        if isinstance(value, ast.Constant) and type(value.value) is int and _WORKERS_KEY.fullmatch(target.attr.lower()):
            found.append((target.attr, value.value, statement.lineno))
    return tuple(found)


def _own_callables(tree: ast.Module) -> frozenset[str]:
    """The names of the module's own top-level functions and classes, but a class that derives from a loader
    (``class FastLoader(DataLoader)``: torch's loader takes its ``num_workers``)."""
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        or (isinstance(node, ast.ClassDef) and not any(dotted(b).endswith("DataLoader") for b in node.bases))
    )


def _exported(dest: str, option: Option, context: Context) -> Exported:
    """An option as another file sees it: its default worked out here, where its names are defined."""
    number = value_of(option.default, context._replace(options={}), 1).number if option.default is not None else None
    return dest, int(option.place.removeprefix("line ")), option.flags, number, option.field


def imported_option(where: str, exported: Exported) -> Option:
    """An option another module defines (``where``: that module), for ``read``'s ``imported``."""
    _, line, flags, number, field = exported
    return Option(flags, ast.Constant(number) if number is not None else None, f"{where}:{line}", field)


def _quote(text: str, node: ast.expr, limit: int = 60) -> str:
    """How the code writes ``node``, shortened; ``...`` without the text (past ``MAX_FACTS``: each quote reads the
    whole text again)."""
    segment = " ".join(((ast.get_source_segment(text, node) if text else None) or "...").split())
    return segment if len(segment) <= limit else segment[: limit - 3] + "..."


def _loader(
    node: ast.Call, name: str, context: Context, text: str, bound: Callable[[], Names]
) -> tuple[bool, Fact] | None:
    """(uses workers, the fact) for a DataLoader call; None when its workers cannot be known (``**kwargs``, a
    value not followed). Workers whose batches over a small torchvision image set stay under a quarter of the
    default /dev/shm (``pydatasets``) are no need, said with the arithmetic."""
    given, knowable = _workers_argument(node, name)
    if not knowable:
        return None
    if given is None:
        return False, Fact(node.lineno, f"{name}() without num_workers (no worker processes)")
    value = value_of(given, context)
    fact = Fact(node.lineno, f"{name}(num_workers={_quote(text, given)}){value.how}")
    if value.positive:
        small = small_batches(node, value.number, bound(), context) if value.number is not None else None
        return (False, fact._replace(text=f"{fact.text}: {small}")) if small else (True, fact)
    return (False, fact) if value.number == 0 else None


def _workers_argument(node: ast.Call, name: str) -> tuple[ast.expr | None, bool]:
    """The expression a loader call gives its workers (None: none given, so no workers), and whether the call
    says it at all: not with ``**kwargs`` or ``*args``, nor for another class's sixth positional argument (torch's
    ``DataLoader`` takes ``num_workers`` sixth; another class's sixth parameter is its own)."""
    if any(keyword.arg is None for keyword in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return None, False
    given = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
    if given is None and len(node.args) > 5:
        if name != "DataLoader":
            return None, False
        given = node.args[5]
    return given, True


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _unused_definitions(tree: ast.Module, used: frozenset[str]) -> frozenset[int]:
    """The nodes of the module's top-level functions that neither the names its importer takes nor what runs on
    import reach, directly or through its other definitions (audit59a: ``from animate import normalize_kp`` counted
    the DataLoader of ``animate()``, never called). What runs on import: its statements (its ``__main__`` block
    aside), its classes' bodies (a class is read whole), its decorated functions (a decorator may register one in
    a table another module calls through) and its functions' default values."""
    definitions = {node.name: node for node in tree.body if isinstance(node, _DEFINITIONS)}
    run_on_import: list[ast.AST] = [
        node for node in tree.body if not isinstance(node, _DEFINITIONS) and not _main_block(node)
    ]
    for node in definitions.values():  # a definition's decorators and defaults run on import too
        if isinstance(node, ast.ClassDef) or node.decorator_list:
            run_on_import.append(node)  # a class's body runs; a decorator may register the function (a task table)
        else:
            run_on_import += [*node.args.defaults, *filter(None, node.args.kw_defaults)]
    todo = [name for name in used if name in definitions]
    todo += [node.name for node in definitions.values() if isinstance(node, ast.ClassDef) or node.decorator_list]
    todo += [n.id for statement in run_on_import for n in ast.walk(statement) if isinstance(n, ast.Name)]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached or name not in definitions:
            continue
        reached.add(name)
        todo += [n.id for n in ast.walk(definitions[name]) if isinstance(n, ast.Name) and n.id not in reached]
    return frozenset(
        id(node) for name, definition in definitions.items() if name not in reached for node in ast.walk(definition)
    )


def _main_block(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":``, which an import does not run."""
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _nccl(node: ast.Call, name: str, context: Context, text: str) -> Fact | None:
    """``init_process_group(backend="nccl")`` in a container with several GPUs: NCCL between local processes."""
    if name != "init_process_group" or context.devices is None or context.devices < 2:
        return None
    backend = _nccl_backend(node, context)
    if backend is not None:
        return Fact(node.lineno, f"init_process_group(backend={_quote(text, backend)}) with {context.devices} GPUs")
    return None


def _nccl_backend(node: ast.Call, context: Context) -> ast.expr | None:
    """The backend ``init_process_group`` is given, where it is NCCL (a literal, or a name assigned one)."""
    backend = next((k.value for k in node.keywords if k.arg == "backend"), node.args[0] if node.args else None)
    if isinstance(backend, ast.Name):
        backend = context.names.get(backend.id)
    if isinstance(backend, ast.Constant) and isinstance(backend.value, str) and "nccl" in backend.value.lower():
        return backend
    return None


def _nccl_ranks(node: ast.Call, tree: ast.Module, context: Context, text: str) -> Fact | None:
    """A ``Process`` (torch's or the standard library's) whose target, a function of the module, joins an NCCL group
    itself: the program starts its ranks in the container, and NCCL passes data between local ranks through
    /dev/shm, whatever the start method (audit84d: a GNN system's trainers, ``mp.Process(target=run_train, ...)``
    for each train worker, on an uncounted ``--gpus all``). Not with one counted GPU: the ranks would need one each."""
    target = next((k.value for k in node.keywords if k.arg == "target"), None)
    if not isinstance(target, ast.Name) or context.devices == 1:
        return None
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == target.id]
    if len(defined) != 1:
        return None
    count = _started_in_range(node, tree, context)
    if count is None or count.number is None or count.number < 2:
        return None  # one rank has no peer; a count the code does not say may be one (``--num-train-worker 1``)
    for inner in ast.walk(defined[0]):
        if isinstance(inner, ast.Call) and called(inner.func) == "init_process_group":
            backend = _nccl_backend(inner, context)
            if backend is not None:
                return Fact(
                    node.lineno,
                    f"{_quote(text, node.func)}(target={target.id}) starts ranks that join an NCCL group "
                    f"(init_process_group(backend={_quote(text, backend)}) at line {inner.lineno}): "
                    f"{count.number}{count.how}",
                )
    return None


def _started_in_range(node: ast.Call, tree: ast.Module, context: Context) -> Value | None:
    """How many times a call runs where it is made in a loop over ``range(n)`` (a ``for`` or a comprehension): n as
    the code gives it; None for a call in no such loop."""
    for loop in ast.walk(tree):
        if isinstance(loop, ast.For):
            parts: list[tuple[ast.expr, list[ast.stmt] | list[ast.expr]]] = [(loop.iter, loop.body)]
        elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            parts = [(generator.iter, [loop.elt]) for generator in loop.generators]
        else:
            continue
        for iterated, body in parts:
            if any(inner is node for part in body for inner in ast.walk(part)):
                ranged = isinstance(iterated, ast.Call) and called(iterated.func) == "range" and len(iterated.args) == 1
                return value_of(iterated.args[0], context) if isinstance(iterated, ast.Call) and ranged else None
    return None


def _lightning(node: ast.Call, name: str, context: Context, text: str) -> Fact | None:
    """A Lightning ``Trainer`` or ``Fabric`` that starts one process per device (a DDP, FSDP or DeepSpeed strategy,
    or several devices, whose default strategy is DDP; Fabric's ``launch()`` starts them as the Trainer does) in a
    container with several GPUs: NCCL between local processes (audit82a: an FSDP trainer on Fabric). The strategy
    is read as ``pyvalues.text_of`` follows a string (``strategy=os.getenv("STRATEGY", "ddp")``), or by the
    class a call makes (``DDPStrategy(find_unused_parameters=False)``). The Hugging Face
    ``Trainer`` takes neither keyword."""
    if name not in ("Trainer", "Fabric") or context.devices is None or context.devices < 2:
        return None
    devices = next((k.value for k in node.keywords if k.arg == "devices"), None)
    if devices is not None and (value_of(devices, context).number or 2) < 2:
        return None  # one device (the review: ``devices=1`` with a DeepSpeed strategy is one process)
    for keyword in node.keywords:
        value = keyword.value
        given = text_of(value, context) if keyword.arg == "strategy" else None
        if given is None and keyword.arg == "strategy" and isinstance(value, ast.Call):  # ``DDPStrategy(...)``
            given = called(value.func), ""
        strategy, how = (given[0].lower(), given[1]) if given is not None else ("", "")
        if any(word in strategy for word in ("ddp", "fsdp", "deepspeed")):
            return Fact(node.lineno, f"{name}(strategy={_quote(text, value)}){how} with {context.devices} GPUs")
        if keyword.arg == "devices" and (value_of(value, context).number or 0) >= 2:
            return Fact(node.lineno, f"{name}(devices={_quote(text, value)}) with {context.devices} GPUs")
    return None


def _ray_train(node: ast.Call, name: str, context: Context, text: str, elsewhere: bool) -> Fact | None:
    """Ray Train's ``ScalingConfig(num_workers=N, use_gpu=True)`` with N of 2 or more in a container with several
    GPUs: a worker process per GPU, whose torch process group is NCCL's (Ray Train's TorchConfig backend on GPUs),
    side by side in this container. One worker, the CPU, a container of one GPU (its peers are elsewhere), or a
    file that connects to a remote cluster or names another backend (``elsewhere``: ``_ray_elsewhere``) is not
    evidence."""
    if name != "ScalingConfig" or elsewhere or context.devices is None or context.devices < 2:
        return None
    keywords = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
    gpu = keywords.get("use_gpu")
    workers = keywords.get("num_workers")
    if not (isinstance(gpu, ast.Constant) and gpu.value is True) or workers is None:
        return None
    if (value_of(workers, context).number or 0) < 2:
        return None
    shown = f"ScalingConfig(num_workers={_quote(text, workers)}, use_gpu=True)"
    return Fact(node.lineno, f"{shown} with {context.devices} GPUs: Ray Train workers with NCCL")


def _ray_elsewhere(nodes: list[ast.AST]) -> bool:
    """Whether the file's Ray Train workers may not be this container's NCCL ranks: it connects to a cluster
    through Ray Client (``ray.init("ray://head:10001")``: the workers run there) or gives its trainer a backend
    other than NCCL (``TorchConfig(backend="gloo")``)."""
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = called(node.func)
        given = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("address", "backend"))]
        texts = [v.value for v in given if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if name == "init" and any(t.startswith("ray://") for t in texts):
            return True
        if name == "TorchConfig" and any(t.lower() != "nccl" for t in texts):
            return True
    return False


def _loader_aliases(nodes: list[ast.AST]) -> frozenset[str]:
    """Names bound only to loader classes, one or the other by a condition (YOLO's ``loader =
    torch.utils.data.DataLoader if image_weights else InfiniteDataLoader``): a call of one makes a DataLoader."""
    bindings = _bindings(nodes)
    classes: dict[str, int] = {}
    for node in nodes:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        if _loader_class(node.value):
            classes[node.targets[0].id] = classes.get(node.targets[0].id, 0) + 1
    return frozenset(name for name, count in classes.items() if bindings[name] == count)


def _loader_class(node: ast.expr) -> bool:
    """A DataLoader class by name (``DataLoader``, ``torch.utils.data.DataLoader``, ``InfiniteDataLoader``), or one
    of two by a condition."""
    if isinstance(node, ast.IfExp):
        return _loader_class(node.body) and _loader_class(node.orelse)
    return isinstance(node, (ast.Name, ast.Attribute)) and dotted(node).endswith("DataLoader")


def _mp_aliases(nodes: list[ast.AST]) -> frozenset[str]:
    """The names ``torch.multiprocessing`` is imported as."""
    aliases = {"torch.multiprocessing"}
    for node in nodes:
        if isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == "torch.multiprocessing" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            aliases |= {a.asname or a.name for a in node.names if a.name == "multiprocessing"}
    return frozenset(aliases)


def _process(node: ast.Call, aliases: frozenset[str], text: str, scope: Scope | None) -> Fact | None:
    """``mp.Process(...)`` of ``torch.multiprocessing``: its arguments cross through /dev/shm where the program sets
    a start method that pickles them (``_pickling_start``; audit80d: ``mp.Process`` ranks given numpy states under
    fork were an error in a container with no GPU). One given only what holds no tensor (numbers, strings, a
    ``range`` loop's counter, the options' object ``parse_args`` makes: audit89c's probe, ranks given ``(i, n,
    args)`` that join a gloo group) passes nothing through it."""
    if not isinstance(node.func, ast.Attribute) or dotted(node.func.value) not in aliases:
        return None
    given = next((k.value for k in node.keywords if k.arg == "args"), node.args[3] if len(node.args) > 3 else None)
    others = (
        any(k.arg in ("kwargs", None) for k in node.keywords)
        or len(node.args) > 4
        or any(isinstance(a, ast.Starred) for a in node.args)
    )
    items = given.elts if isinstance(given, (ast.Tuple, ast.List)) else None if given is not None else []
    if not others and items is not None and all(_holds_no_tensor(item, scope) for item in items):
        return None
    return Fact(node.lineno, f"{_quote(text, node.func)}(...) shares tensors between processes")


def _holds_no_tensor(node: ast.expr, scope: Scope | None) -> bool:
    """A value that cannot be a tensor where ``scope`` uses it: a literal, arithmetic or an attribute of such
    values (an option's value), or a name its binding scope binds once, and only as the options' object (``args =
    parser.parse_args()``) or a ``for`` loop's counter over ``range(...)``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return _holds_no_tensor(node.value, scope)
    if isinstance(node, ast.BinOp):
        return _holds_no_tensor(node.left, scope) and _holds_no_tensor(node.right, scope)
    binding = scope.binding(node.id) if isinstance(node, ast.Name) and scope is not None else None
    if binding is None or not isinstance(node, ast.Name) or binding.bound.get(node.id) != 1:
        return False
    values = binding.values(node.id)
    if values:
        return all(isinstance(v, ast.Call) and called(v.func) in ("parse_args", "parse_known_args") for v in values)
    return any(
        isinstance(loop, ast.For)
        and isinstance(loop.target, ast.Name)
        and loop.target.id == node.id
        and isinstance(loop.iter, ast.Call)
        and called(loop.iter.func) == "range"
        for loop in binding.nodes
    )


def _pickling_start(node: ast.Call) -> bool:
    """Whether ``set_start_method``/``get_context`` names a start method that pickles what a process is given, by
    any receiver or none (``from torch.multiprocessing import set_start_method``, the standard library's under an
    alias, which torch's re-exports): a start method is one for the whole program (the review)."""
    first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "method"), None)
    return isinstance(first, ast.Constant) and first.value in _PICKLING_STARTS


def _switched_off(tree: ast.Module, context: Context) -> frozenset[int]:
    """The calls in a branch the run does not take: under an ``if`` whose test compares a number the command line or
    an argparse default gives with a whole number and is false (or in its ``else`` where it is true). audit80d: ranks
    started under ``if args.num_proc > 1`` by a launch that passes ``--num_proc=1`` were an error. A setting the code
    assigns itself (``args.num_proc = torch.cuda.device_count()``) is not read so. Worked out once a file."""
    stored = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    if any(isinstance(n, ast.Call) and called(n.func) in _SETS_ATTRIBUTES for n in ast.walk(tree)):
        return frozenset()  # ``setattr(args, k, v)`` from a config, ``vars(args).update(...)``: any may be set
    arms: set[int] = set()  # the statements of the arms not taken
    for branch in ast.walk(tree):
        if isinstance(branch, ast.If) and (taken := _compared(branch.test, context, stored)) is not None:
            arms.update(id(statement) for statement in (branch.orelse if taken else branch.body))
    off: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:  # one walk of the tree, each node under an arm not taken marked once (an ``elif`` chain's arms
        node, inside = stack.pop()  # hold each other: walking each arm anew was quadratic, the review)
        inside = inside or id(node) in arms
        if inside:
            off.add(id(node))
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))
    return frozenset(off)


#: calls that may set any of the parsed options' values after parsing
_SETS_ATTRIBUTES = frozenset({"setattr", "vars", "set_defaults", "__setattr__"})
#: comparisons of a setting with a whole number that ``_compared`` works out
_COMPARISONS: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Gt: int.__gt__,
    ast.GtE: int.__ge__,
    ast.Lt: int.__lt__,
    ast.LtE: int.__le__,
    ast.Eq: int.__eq__,
    ast.NotEq: int.__ne__,
}


def _compared(test: ast.expr, context: Context, stored: set[str]) -> bool | None:
    """What ``args.x > 1`` (one comparison of an argparse option with a whole number) is in this run, where the
    command line gives the option a number and none of its words is left to run time (``"$@"``); None when not known:
    a default is not taken (a caller, a config merged in or another file may set the value the code reads)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Attribute)):
        return None
    right, compare = test.comparators[0], _COMPARISONS.get(type(test.ops[0]))
    if compare is None or not (isinstance(right, ast.Constant) and type(right.value) is int):
        return None
    option = context.options.get(test.left.attr)
    if test.left.attr in stored or option is None or option.field:
        return None
    given = on_command_line(option.flags, context.arguments)
    if given is None or not given.isascii() or not given.isdigit():
        return None
    if any("$" in word or UNKNOWN_VALUE in word for word in context.arguments):
        return None  # a caller's arguments (``"$@"``) may give the option again
    return compare(int(given), right.value)


def _multiprocessing(node: ast.Call, aliases: frozenset[str], text: str) -> Fact | None:
    """``torch.multiprocessing.spawn(...)`` and its kin: tensors cross to the processes through /dev/shm."""
    if isinstance(node.func, ast.Attribute) and node.func.attr in _MP_CALLS and dotted(node.func.value) in aliases:
        return Fact(node.lineno, f"{_quote(text, node.func)}(...) shares tensors between processes")
    return None


class LibraryLoader(NamedTuple):
    """A library function that makes a DataLoader with the workers one of its parameters gives: that parameter, its
    position, its default, and the library as messages name it."""

    parameter: str
    position: int
    default: int
    library: str


#: (module, function) -> how it makes its loader, each read in the library's own code. OpenPCDet's
#: ``pcdet/datasets/__init__.py``: ``build_dataloader(dataset_cfg, class_names, batch_size, dist, root_path=None,
#: workers=4, ...)`` returns ``DataLoader(..., num_workers=workers)`` (audit82c: its trainers in dev containers)
_LIBRARY_LOADERS = {("pcdet.datasets", "build_dataloader"): LibraryLoader("workers", 5, 4, "OpenPCDet")}


def _library_loaders(nodes: list[ast.AST]) -> dict[str, LibraryLoader]:
    """The names the file imports the known library loader functions under (``from pcdet.datasets import
    build_dataloader``); a name the file also binds otherwise (its own ``def``) is not one."""
    found: dict[str, LibraryLoader] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            for alias in node.names:
                loader = _LIBRARY_LOADERS.get((node.module, alias.name))
                if loader is not None:
                    found[alias.asname or alias.name] = loader
    if not found:
        return found
    bound = _bindings(nodes)
    return {name: loader for name, loader in found.items() if bound[name] <= 1}


def _bindings(nodes: list[ast.AST]) -> Counter[str]:
    """How many times the file binds each name (assignments, imports, definitions, loop targets...)."""
    return Counter(name for node in nodes for name in bound_names(node))


def _library_loader(node: ast.Call, loader: LibraryLoader, context: Context, text: str) -> Fact | None:
    """A call of a library's loader function: its workers as the call gives them (by name or position), else the
    function's default; none for ``workers=0``, a number the code does not say, or arguments bound at run time."""
    if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    given = next((k.value for k in node.keywords if k.arg == loader.parameter), None)
    if given is None and len(node.args) > loader.position:
        given = node.args[loader.position]
    shown = f"{_quote(text, node.func)}(...)"
    if given is None:
        return Fact(node.lineno, f"{shown}: {loader.library}'s DataLoader workers default to {loader.default}")
    value = value_of(given, context)
    if value.number == 0 or (value.number is None and not value.positive):
        return None
    said = f"{loader.library}'s DataLoader with {loader.parameter}={_quote(text, given)}"
    return Fact(node.lineno, f"{shown}: {said}{value.how}")


def _ultralytics_classes(nodes: list[ast.AST]) -> frozenset[str]:
    """The names the file imports Ultralytics' model classes under (``from ultralytics import YOLO``)."""
    return frozenset(
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "ultralytics"
        for alias in node.names
        if alias.name in _ULTRALYTICS_MODELS
    )


def _ultralytics(
    node: ast.Call,
    name: str,
    classes: frozenset[str],
    scope: Scope | None,
    context: Context,
    text: str,
    nodes: list[ast.AST],
) -> Fact | None:
    """``model.train(...)`` of an Ultralytics model: its trainer builds DataLoaders with ``workers`` processes,
    8 by default per rank (``ultralytics/cfg/default.yaml``: "workers: 8"; the Docker quickstart runs every
    container with ``--ipc=host``). A call whose workers the code does not say (``**args``, a ``cfg=`` file, torch's
    ``train(mode)``; ``_ultralytics_train``) is no fact, nor is ``workers=0``."""
    train = _ultralytics_train(node, name, classes, scope, nodes)
    if train is None:
        return None
    workers, through = train
    if workers is None:
        passed = f" (no call of {through} gives it workers)" if through else ""
        return Fact(node.lineno, f"{_quote(text, node.func)}(...): Ultralytics DataLoader workers default to 8{passed}")
    value = value_of(workers, context)
    if value.number == 0 or (value.number is None and not value.positive):
        return None  # none, or a number the code does not say (a helper's parameter: ``pyhelpers``, at its calls)
    return Fact(node.lineno, f"{_quote(text, node.func)}(workers={_quote(text, workers)}){value.how}")


def _ultralytics_train(
    node: ast.Call, name: str, classes: frozenset[str], scope: Scope | None, nodes: list[ast.AST]
) -> tuple[ast.expr | None, str] | None:
    """The ``workers`` a ``model.train(...)`` of an Ultralytics model gives (None: none, its default) and the
    function whose own ``**`` it passes on (``_passed_on``), or None for another call. The model is what the name
    holds on that line in its scope (a torch module's ``model.train()`` elsewhere in the file is not one); a call
    with a ``cfg=`` file, torch's ``train(mode)`` or a ``**`` of anything but its function's own is not read. A
    ``**`` that only passes on the enclosing function's own keywords says nothing of workers where the file's calls
    of that function give none."""
    if name != "train" or not classes or scope is None or not isinstance(node.func, ast.Attribute):
        return None
    through = _passed_on(node, scope, nodes)
    if node.args or any(k.arg in ("cfg", "mode") or (k.arg is None and not through) for k in node.keywords):
        return None
    receiver = node.func.value
    if isinstance(receiver, ast.Name):
        models = scope.values(receiver.id, before=node.lineno + 1)
    elif isinstance(receiver, ast.Call):
        models = [receiver]  # YOLO("yolov8n.pt").train(...)
    else:
        return None
    if not models or not all(isinstance(model, ast.Call) and called(model.func) in classes for model in models):
        return None
    return next((k.value for k in node.keywords if k.arg == "workers"), None), through


def _passed_on(node: ast.Call, scope: Scope, nodes: list[ast.AST]) -> str:
    """The enclosing function's name when the call's one ``**`` is that function's own ``**`` parameter, untouched
    in between (``def train(self, data, **kwargs): model.train(data=data, **kwargs)``: no other use of
    ``kwargs``, no decorator), the file calls the function, and no call of that name gives a ``workers`` or
    ``cfg`` keyword or a ``**`` of its own (then no ``workers`` reaches the call from the file); "" otherwise. A
    call of a method counts when it names one of its parameters (``service.train(data=...)``; ``scaler.fit(X)`` of
    another class does not); a caller in another file is not seen."""
    spread = [keyword.value for keyword in node.keywords if keyword.arg is None]
    function = scope.root
    if (
        len(spread) != 1
        or not isinstance(spread[0], ast.Name)
        or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        or function.decorator_list
        or function.args.kwarg is None
        or function.args.kwarg.arg != spread[0].id
    ):
        return ""
    own = spread[0].id
    if sum(isinstance(used, ast.Name) and used.id == own for used in scope.nodes) != 1:
        return ""  # changed or read before the call (``kwargs.setdefault("workers", 0)``, ``kwargs = load()``)
    calls = [c for c in nodes if isinstance(c, ast.Call) and c is not node and called(c.func) == function.name]
    if any(keyword.arg in (None, "workers", "cfg") for call in calls for keyword in call.keywords):
        return ""
    arguments = function.args
    named = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)} - {"self", "cls"}
    method = isinstance(scope.outer.root, ast.ClassDef) if scope.outer is not None else False
    counted = [
        call
        for call in calls
        if (isinstance(call.func, ast.Attribute) and any(keyword.arg in named for keyword in call.keywords))
        or (not method and isinstance(call.func, ast.Name))
    ]
    return function.name if counted else ""


def _imports(nodes: list[ast.AST], top: list[ast.stmt]) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """Modules imported (dotted, ``.`` prefixed for relative ones); of them, those imported whole (by ``import``,
    with ``*``, or by an import statement inside a function or class, not followed by name: all of it may run);
    and whether any starts processes of its own. ``top``: the module's own statements."""
    at_top = {id(node) for node in top}
    modules: list[str] = []
    whole: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            modules += [a.name for a in node.names]
            whole += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            modules.append(base)
            modules += [f"{base}.{a.name}" if node.module else base + a.name for a in node.names if a.name != "*"]
            if id(node) not in at_top or any(a.name == "*" for a in node.names):
                whole.append(base)
    busy = any(
        m.split(".")[0] in BUSY_PACKAGES or m.startswith(_BUSY_TORCH) or m == "torch.multiprocessing" for m in modules
    )
    return tuple(dict.fromkeys(modules)), tuple(dict.fromkeys(whole)), busy
