"""What a Python file does with /dev/shm, read with ``ast`` (never imported or run): DataLoaders and their
``num_workers``, trainer arguments' ``dataloader_num_workers``, ``torch.multiprocessing`` and NCCL process groups.

A value is followed where the text says it for certain: a literal, a name assigned one literal, an argparse option
(the command line's value, else its default), a key of a config file the command line names, ``os.cpu_count()``.
Anything else stays unknown, and unknown is never evidence either way.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence

from shmlint.named_tuple import NamedTuple
from shmlint.project.configs import CONFIG_SUFFIXES, THRESHOLDS, Setting
from shmlint.project.pycommands import Command, commands

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
_MP_CALLS = frozenset({"spawn", "start_processes", "Process", "Pool", "Queue", "SimpleQueue"})
#: keyword arguments of any call that start processes past a threshold (TrainingArguments, vLLM's LLM...)
_KEYWORDS = frozenset({"dataloader_num_workers", "tensor_parallel_size"})
_INTEGER = re.compile(r"-?[0-9]{1,6}")
#: config file names one program's code may name by a literal path (a training script reads a few)
MAX_OPENED_CONFIGS = 16
_CPU_COUNTS = frozenset({"cpu_count", "process_cpu_count", "sched_getaffinity"})


class Value(NamedTuple):
    """A followed number: ``number`` when known, ``positive`` when only known to be above zero; ``how`` says
    where it comes from, for the message."""

    number: int | None
    positive: bool
    how: str = ""


UNKNOWN = Value(None, False)


class Fact(NamedTuple):
    line: int
    text: str


class Option(NamedTuple):
    """An argparse option: its flags, its default expression and where it is written (``line 10`` in the file
    itself, ``opts.py:10`` for one defined in a module the program imports)."""

    flags: tuple[str, ...]
    default: ast.expr | None
    place: str
    field: bool = False  # a dataclass field (``HfArgumentParser``): a config file the command line names wins


#: an option as another file sees it: dest, line, flags, its default's number (None: not a known number), field
Exported = tuple[str, int, tuple[str, ...], int | None, bool]


class PyFacts(NamedTuple):
    """What one file shows: code that uses /dev/shm, loaders made without workers, loaders whose workers are not
    known, local modules it imports, whether it imports software that starts processes of its own, and the
    launcher command lines it writes (``pycommands``)."""

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


class _Context(NamedTuple):
    arguments: tuple[str, ...]  # the program's command line
    config: Mapping[str, Setting]
    devices: int | None
    names: Mapping[str, ast.expr | None]  # a name assigned once to a literal (None: assigned several ways)
    options: Mapping[str, Option]  # argparse dest -> its option
    env: Mapping[str, str]  # the container's environment, as its manifest sets it


def read(
    text: str,
    arguments: Sequence[str],
    config: Mapping[str, Setting],
    devices: int | None,
    imported: Mapping[str, Option] | None = None,
    env: Mapping[str, str] | None = None,
) -> PyFacts | None:
    """The file's facts, or None when it does not parse (or is too deeply nested to). ``imported``: argparse
    options defined in the local modules it imports (its own win); ``env``: the container's environment
    (``os.environ.get("WORKERS", 4)`` takes its value there, else the default)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    nodes = list(ast.walk(tree))
    own = _options(nodes)
    context = _Context(tuple(arguments), config, devices, _names(nodes), {**(imported or {}), **own}, env or {})
    needs: list[Fact] = []
    zero: list[Fact] = []
    unknown = 0
    mp_aliases = _mp_aliases(nodes)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = _called(node.func)
        if name.endswith("DataLoader"):
            verdict = _loader(node, name, context, text)
            if verdict is None:
                unknown += 1
            elif verdict[0]:
                needs.append(verdict[1])
            else:
                zero.append(verdict[1])
        for keyword in node.keywords:
            if keyword.arg in _KEYWORDS:
                value = _value(keyword.value, context)
                least = THRESHOLDS[keyword.arg]
                if value.number >= least if value.number is not None else value.positive and least == 1:
                    needs.append(Fact(node.lineno, f"{name}({keyword.arg}={_quote(text, keyword.value)}){value.how}"))
        fact = _nccl(node, name, context, text) or _lightning(node, name, context, text)
        fact = fact or _multiprocessing(node, mp_aliases, text)
        if fact is not None:
            needs.append(fact)
    imports, busy = _imports(nodes)
    exported = tuple(_exported(dest, option, context) for dest, option in own.items())
    defaults = tuple(
        default for option in own.values() if (default := _config_default(option, context.arguments)) is not None
    )
    defaults = tuple(dict.fromkeys((*defaults, *_opened_configs(nodes))))
    return PyFacts(
        tuple(needs), tuple(zero), unknown, imports, busy, commands(nodes), exported, defaults, _hydra_configs(nodes)
    )


def _exported(dest: str, option: Option, context: _Context) -> Exported:
    """An option as another file sees it: its default worked out here, where its names are defined."""
    number = _value(option.default, context._replace(options={}), 1).number if option.default is not None else None
    return dest, int(option.place.removeprefix("line ")), option.flags, number, option.field


def imported_option(where: str, exported: Exported) -> Option:
    """An option another module defines (``where``: that module), for ``read``'s ``imported``."""
    _, line, flags, number, field = exported
    return Option(flags, ast.Constant(number) if number is not None else None, f"{where}:{line}", field)


#: calls whose first argument, a literal path, is a config file the program reads
_CONFIG_READERS = frozenset(
    {"open", "load", "safe_load", "full_load", "load_config", "parse_yaml_file", "parse_json_file", "from_yaml_file"}
)


def _opened_configs(nodes: list[ast.AST]) -> list[str]:
    """Config files the code reads by a literal path (``yaml.safe_load(open("configs/train.yaml"))``,
    ``OmegaConf.load("conf.yaml")``)."""
    found: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, ast.Call) and node.args and _called(node.func) in _CONFIG_READERS:
            first = node.args[0]
            name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            if name.lower().endswith(CONFIG_SUFFIXES):
                found[name] = None
                if len(found) == MAX_OPENED_CONFIGS:  # a program reads a few; more is not a training script's
                    break
    return list(found)


def _hydra_configs(nodes: list[ast.AST]) -> tuple[str, ...]:
    """The primary config of a Hydra app (``@hydra.main(config_path="conf", config_name="train")``: conf/train.yaml
    beside the file)."""
    found = []
    for node in nodes:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and _dotted(decorator.func) in ("hydra.main", "main")):
                continue
            given = {k.arg: k.value.value for k in decorator.keywords if isinstance(k.value, ast.Constant)}
            name, folder = given.get("config_name"), given.get("config_path") or "."
            if isinstance(name, str) and isinstance(folder, str) and name:
                found.append(f"{folder}/{name if name.endswith(CONFIG_SUFFIXES) else name + '.yaml'}")
    return tuple(found)


def _config_default(option: Option, arguments: tuple[str, ...]) -> str | None:
    """The config file an option names by default (``--config``, default ``configs/train.yaml``), when the command
    line gives the option no value."""
    default = option.default
    if not (isinstance(default, ast.Constant) and isinstance(default.value, str)):
        return None
    if not default.value.lower().endswith(CONFIG_SUFFIXES) or _on_command_line(option.flags, arguments) is not None:
        return None
    return default.value


def _called(func: ast.expr) -> str:
    """``DataLoader`` for ``DataLoader(...)`` and ``torch.utils.data.DataLoader(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _quote(text: str, node: ast.expr, limit: int = 60) -> str:
    segment = " ".join((ast.get_source_segment(text, node) or "...").split())
    return segment if len(segment) <= limit else segment[: limit - 3] + "..."


def _loader(node: ast.Call, name: str, context: _Context, text: str) -> tuple[bool, Fact] | None:
    """(uses workers, the fact) for a DataLoader call; None when its workers cannot be known (``**kwargs``, a
    value not followed)."""
    if any(keyword.arg is None for keyword in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    given = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
    if given is None and len(node.args) > 5:  # num_workers is torch's DataLoader's sixth parameter
        if name != "DataLoader":
            return None  # another class's sixth parameter is its own
        given = node.args[5]
    if given is None:
        return False, Fact(node.lineno, f"{name}() without num_workers (no worker processes)")
    value = _value(given, context)
    fact = Fact(node.lineno, f"{name}(num_workers={_quote(text, given)}){value.how}")
    if value.positive:
        return True, fact
    return (False, fact) if value.number == 0 else None


def _value(node: ast.expr, context: _Context, depth: int = 0) -> Value:
    if depth > 4:
        return UNKNOWN
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _number(node.value, "")
    if isinstance(node, ast.Name):
        assigned = context.names.get(node.id)
        if assigned is not None:
            found = _value(assigned, context, depth + 1)
            return found._replace(how=found.how or f", {node.id} = {found.number} at line {assigned.lineno}")
        return UNKNOWN
    if isinstance(node, ast.Attribute):
        return _setting(node.attr, context)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        if _dotted(node.value).endswith("environ"):
            return _environment(node.slice.value, None, context, depth)
        return _setting(node.slice.value, context)
    if isinstance(node, ast.Call):
        return _call_value(node, context, depth)
    return UNKNOWN


def _call_value(node: ast.Call, context: _Context, depth: int) -> Value:
    name = _called(node.func)
    if name in _CPU_COUNTS:
        return Value(None, True, f", {name}() is at least 1")
    if name in ("min", "max") and node.args and not node.keywords:
        values = [_value(arg, context, depth + 1) for arg in node.args]
        how = next((v.how for v in values if v.how), "")
        if name == "min":
            if all(v.positive for v in values):
                return Value(None, True, how)
            if any(v.number == 0 for v in values):
                return Value(0, False, how)
        elif any(v.positive for v in values):
            return Value(None, True, how)
        return UNKNOWN
    key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
    if isinstance(key, str) and (name == "getenv" or _dotted(node.func).endswith("environ.get")):
        return _environment(key, node.args[1] if len(node.args) > 1 else None, context, depth)
    if name == "get" and isinstance(key, str):
        found = _setting(key, context)
        if found.number is None and not found.positive and len(node.args) > 1:
            return _value(node.args[1], context, depth + 1)
        return found
    if name == "int" and len(node.args) == 1:
        return _value(node.args[0], context, depth + 1)
    return UNKNOWN


def _environment(key: str, default: ast.expr | None, context: _Context, depth: int) -> Value:
    """An environment variable: the container's value, else the code's default (a number, or a number's text)."""
    given = context.env.get(key)
    if given is not None:
        number = _int(given)
        return UNKNOWN if number is None else _number(number, f", {key}={number} in the environment")
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        number = _int(default.value)
        return UNKNOWN if number is None else _number(number, f", {key} default {number}")
    if default is not None:
        found = _value(default, context, depth + 1)
        return found._replace(how=found.how or f", {key} default {found.number}")
    return UNKNOWN


def _setting(key: str, context: _Context) -> Value:
    """An option or config key named ``key``: the command line's value, the argparse default, the config's."""
    option = context.options.get(key)
    if option is not None and option.field and key in context.config:
        option = None
    if option is not None:
        flags, default, place, _ = option
        given = _on_command_line(flags, context.arguments)
        if given is not None:
            number = _int(given)
            return UNKNOWN if number is None else _number(number, f", {flags[0]} {number} on the command line")
        if default is not None:
            found = _value(default, context._replace(options={}), 1)
            name = f"field {key}" if option.field else flags[0]
            return found._replace(
                how=f", {name} default {found.number if found.number is not None else ''}"
                f"{found.how} at {place}".replace("default  ", "default ")
            )
        return UNKNOWN
    setting = context.config.get(key)
    if setting is not None:
        override = _override(key, context.arguments)
        if override is not None:  # Hydra / OmegaConf: ``data.num_workers=0`` on the command line wins
            number = _int(override)
            return UNKNOWN if number is None else _number(number, f", {key}={number} on the command line")
        return _number(setting.value, f", {key}: {setting.value} in the config")
    return UNKNOWN


def _override(key: str, arguments: tuple[str, ...]) -> str | None:
    """The last ``key=value`` (also ``+key=``, ``++group.key=``) a command line gives a config key. Config settings
    are known by their last part, so two different paths ending in it (``train.num_workers=8 val.num_workers=0``)
    leave it unknown (an empty value, no number) rather than give one of them to every loader."""
    found: dict[str, str] = {}
    for word in arguments:
        name, equals, value = word.partition("=")
        path = name.lstrip("+")
        if equals and not name.startswith("-") and path.rpartition(".")[2] == key:
            found[path] = value
    if len(set(found.values())) > 1:
        return ""
    return next(reversed(found.values()), None)


def _number(number: int, how: str) -> Value:
    return Value(number, number > 0, how)


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if _INTEGER.fullmatch(text) else None


def _on_command_line(flags: tuple[str, ...], arguments: tuple[str, ...]) -> str | None:
    """The last value a command line gives one of ``flags`` (``--workers 8``, ``--workers=8``)."""
    found = None
    spellings = {
        dashes + flag.lstrip("-").replace(a, b)
        for flag in flags
        for dashes in [flag[: len(flag) - len(flag.lstrip("-"))]]
        for a, b in (("_", "-"), ("-", "_"))
    }
    for index, word in enumerate(arguments):
        name, equals, value = word.partition("=")
        if name in spellings:
            if equals:
                found = value
            elif index + 1 < len(arguments):
                found = arguments[index + 1]
    return found


def _names(nodes: list[ast.AST]) -> dict[str, ast.expr | None]:
    """Names assigned a literal number or string exactly once in the file (``None`` for any other assignment)."""
    found: dict[str, ast.expr | None] = {}
    for node in nodes:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name):
                literal = isinstance(node, ast.Assign) and isinstance(value, ast.Constant)
                found[target.id] = value if literal and target.id not in found else None
    return found


def _options(nodes: list[ast.AST]) -> dict[str, Option]:
    """argparse options by dest."""
    found = {}
    for node in nodes:
        if not (isinstance(node, ast.Call) and _called(node.func) == "add_argument"):
            continue
        flags = tuple(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
        if not flags:
            continue
        long = next((f for f in flags if f.startswith("--")), flags[0])
        dest = long.lstrip("-").replace("-", "_")
        for keyword in node.keywords:
            if (
                keyword.arg == "dest"
                and isinstance(keyword.value, ast.Constant)
                and isinstance(keyword.value.value, str)
            ):
                dest = keyword.value.value
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        found[dest] = Option(flags, default, f"line {node.lineno}")
    for node in nodes:
        if isinstance(node, ast.ClassDef) and any(_called(_bare(d)) == "dataclass" for d in node.decorator_list):
            for field in node.body:
                if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and field.value:
                    name = field.target.id
                    flag = f"--{name}"
                    default = _field_default(field.value)
                    found.setdefault(name, Option((flag,), default, f"line {field.lineno}", field=True))
    return found


def _bare(decorator: ast.expr) -> ast.expr:
    """``dataclass`` for ``@dataclass`` and ``@dataclasses.dataclass(frozen=True)``."""
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _field_default(value: ast.expr) -> ast.expr | None:
    """A dataclass field's default: the value, or ``field(default=...)``'s."""
    if isinstance(value, ast.Call) and _called(value.func) == "field":
        return next((k.value for k in value.keywords if k.arg == "default"), None)
    return value


def _nccl(node: ast.Call, name: str, context: _Context, text: str) -> Fact | None:
    """``init_process_group(backend="nccl")`` in a container with several GPUs: NCCL between local processes."""
    if name != "init_process_group" or context.devices is None or context.devices < 2:
        return None
    backend = next((k.value for k in node.keywords if k.arg == "backend"), node.args[0] if node.args else None)
    if isinstance(backend, ast.Name):
        backend = context.names.get(backend.id)
    if isinstance(backend, ast.Constant) and isinstance(backend.value, str) and "nccl" in backend.value.lower():
        return Fact(node.lineno, f"init_process_group(backend={_quote(text, backend)}) with {context.devices} GPUs")
    return None


def _lightning(node: ast.Call, name: str, context: _Context, text: str) -> Fact | None:
    """A Lightning ``Trainer`` that starts one process per device (a DDP, FSDP or DeepSpeed strategy, or several
    devices, whose default strategy is DDP) in a container with several GPUs: NCCL between local processes. The
    Hugging Face ``Trainer`` takes neither keyword."""
    if name != "Trainer" or context.devices is None or context.devices < 2:
        return None
    for keyword in node.keywords:
        value = keyword.value
        strategy = value.value.lower() if isinstance(value, ast.Constant) and isinstance(value.value, str) else ""
        if keyword.arg == "strategy" and any(word in strategy for word in ("ddp", "fsdp", "deepspeed")):
            return Fact(node.lineno, f"Trainer(strategy={_quote(text, value)}) with {context.devices} GPUs")
        if keyword.arg == "devices" and (_value(value, context).number or 0) >= 2:
            return Fact(node.lineno, f"Trainer(devices={_quote(text, value)}) with {context.devices} GPUs")
    return None


def _mp_aliases(nodes: list[ast.AST]) -> frozenset[str]:
    """The names ``torch.multiprocessing`` is imported as."""
    aliases = {"torch.multiprocessing"}
    for node in nodes:
        if isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == "torch.multiprocessing" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            aliases |= {a.asname or a.name for a in node.names if a.name == "multiprocessing"}
    return frozenset(aliases)


def _multiprocessing(node: ast.Call, aliases: frozenset[str], text: str) -> Fact | None:
    """``torch.multiprocessing.spawn(...)`` and its kin: tensors cross to the processes through /dev/shm."""
    if isinstance(node.func, ast.Attribute) and node.func.attr in _MP_CALLS and _dotted(node.func.value) in aliases:
        return Fact(node.lineno, f"{_quote(text, node.func)}(...) shares tensors between processes")
    return None


def _imports(nodes: list[ast.AST]) -> tuple[tuple[str, ...], bool]:
    """Modules imported (dotted, ``.`` prefixed for relative ones), and whether any starts processes of its own."""
    modules: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            modules += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            modules.append(base)
            modules += [f"{base}.{a.name}" if node.module else base + a.name for a in node.names if a.name != "*"]
    busy = any(
        m.split(".")[0] in BUSY_PACKAGES or m.startswith(_BUSY_TORCH) or m == "torch.multiprocessing" for m in modules
    )
    return tuple(dict.fromkeys(modules)), busy
