"""The settings a Python program takes from outside, read with ``ast``: argparse options and dataclass fields
(``HfArgumentParser``), the value a command line gives them (``--workers 8``, Hydra's ``data.num_workers=0``), and
the config files the code names (an option's default path, a literal path it opens, ``@hydra.main``).
"""

from __future__ import annotations

import ast

from shmlint.named_tuple import NamedTuple
from shmlint.project.configs import CONFIG_SUFFIXES
from shmlint.project.pysyntax import called, dotted

#: config file names one program's code may name by a literal path (a training script reads a few)
MAX_OPENED_CONFIGS = 16


class Option(NamedTuple):
    """An argparse option: its flags, its default expression and where it is written (``line 10`` in the file
    itself, ``opts.py:10`` for one defined in a module the program imports)."""

    flags: tuple[str, ...]
    default: ast.expr | None
    place: str
    field: bool = False  # a dataclass field (``HfArgumentParser``): a config file the command line names wins


#: an option as another file sees it: dest, line, flags, its default's number (None: not a known number), field
Exported = tuple[str, int, tuple[str, ...], int | None, bool]


def options(nodes: list[ast.AST]) -> dict[str, Option]:
    """argparse options (and absl flags) by dest."""
    found = {}
    reset: set[str] = set()
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        call = called(node.func)
        if call in _ABSL_DEFINES:
            found.update(_absl_flag(node))
        elif call == "set_default" and node.args and isinstance(node.args[0], ast.Constant):
            reset.add(str(node.args[0].value))  # ``FLAGS.set_default("num_workers", 0)``: not the written default
        elif call == "set_defaults":  # argparse's ``parser.set_defaults(num_workers=0)`` alike
            reset.update(k.arg for k in node.keywords if k.arg is not None)
        if call != "add_argument":
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
        if isinstance(node, ast.ClassDef) and any(called(_bare(d)) == "dataclass" for d in node.decorator_list):
            for field in node.body:
                if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and field.value:
                    name = field.target.id
                    flag = f"--{name}"
                    default = _field_default(field.value)
                    found.setdefault(name, Option((flag,), default, f"line {field.lineno}", field=True))
    for name in reset & found.keys():
        found[name] = found[name]._replace(default=None)
    return found


#: absl's (and ``tf.app.flags``') definitions of a flag read as ``FLAGS.name``, given as ``--name=value`` or
#: ``--name value``
_ABSL_DEFINES = frozenset({"DEFINE_integer", "DEFINE_string", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool"})


def _absl_flag(node: ast.Call) -> dict[str, Option]:
    """``flags.DEFINE_integer("num_workers", 8, "...")`` (or by keywords) as the option ``--num_workers``."""
    given = {k.arg: k.value for k in node.keywords if k.arg in ("name", "default")}
    name = node.args[0] if node.args else given.get("name")
    default = node.args[1] if len(node.args) > 1 else given.get("default")
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
        return {}
    return {name.value: Option((f"--{name.value}", f"-{name.value}"), default, f"line {node.lineno}")}


def _bare(decorator: ast.expr) -> ast.expr:
    """``dataclass`` for ``@dataclass`` and ``@dataclasses.dataclass(frozen=True)``."""
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _field_default(value: ast.expr) -> ast.expr | None:
    """A dataclass field's default: the value, or ``field(default=...)``'s."""
    if isinstance(value, ast.Call) and called(value.func) == "field":
        return next((k.value for k in value.keywords if k.arg == "default"), None)
    return value


#: calls whose first argument, a literal path, is a config file the program reads
_CONFIG_READERS = frozenset(
    {
        *("open", "load", "safe_load", "full_load", "load_config", "parse_yaml_file", "parse_json_file"),
        # a project's own reader of its config (audit83c: ``cfg = read_config("../cfg/train.yaml")``)
        *("from_yaml_file", "read_config", "read_yaml", "load_yaml", "load_cfg", "get_config", "parse_config"),
    }
)


def opened_configs(nodes: list[ast.AST]) -> list[str]:
    """Config files the code reads by a literal path (``yaml.safe_load(open("configs/train.yaml"))``,
    ``OmegaConf.load("conf.yaml")``)."""
    found: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, ast.Call) and node.args and called(node.func) in _CONFIG_READERS:
            first = node.args[0]
            name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            if name.lower().endswith(CONFIG_SUFFIXES):
                found[name] = None
                if len(found) == MAX_OPENED_CONFIGS:  # a program reads a few; more is not a training script's
                    break
    return list(found)


def hydra_configs(nodes: list[ast.AST]) -> tuple[str, ...]:
    """The primary config of a Hydra app (``@hydra.main(config_path="conf", config_name="train")``: conf/train.yaml
    beside the file)."""
    found = []
    for node in nodes:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and dotted(decorator.func) in ("hydra.main", "main")):
                continue
            given = {k.arg: k.value.value for k in decorator.keywords if isinstance(k.value, ast.Constant)}
            name, folder = given.get("config_name"), given.get("config_path") or "."
            if isinstance(name, str) and isinstance(folder, str) and name:
                found.append(f"{folder}/{name if name.endswith(CONFIG_SUFFIXES) else name + '.yaml'}")
    return tuple(found)


def config_default(option: Option, arguments: tuple[str, ...]) -> str | None:
    """The config file an option names by default (``--config``, default ``configs/train.yaml``), when the command
    line gives the option no value."""
    default = option.default
    if not (isinstance(default, ast.Constant) and isinstance(default.value, str)):
        return None
    if not default.value.lower().endswith(CONFIG_SUFFIXES) or on_command_line(option.flags, arguments) is not None:
        return None
    return default.value


def reads_flag_file(arguments: tuple[str, ...]) -> bool:
    """Whether the command line takes more of its options from a file (absl's ``--flagfile=flags.cfg``): what the
    options are set to there is not read, so no option's default is known to hold (the review)."""
    return any(word.lstrip("-").startswith("flagfile") and word.startswith("-") for word in arguments)


def on_command_line(flags: tuple[str, ...], arguments: tuple[str, ...]) -> str | None:
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


def override(key: str, arguments: tuple[str, ...]) -> str | None:
    """The last value a command line gives a config key: Hydra's ``key=value`` (also ``+key=``, ``++group.key=``)
    and LightningCLI's (jsonargparse) ``--data.key value`` or ``--data.key=value``, whose dotted path a ``--config``
    file's keys take after it (audit86a: ``--data.num_workers 0`` after a config of ten workers). Config settings
    are known by their last part, so two different paths ending in it (``train.num_workers=8 val.num_workers=0``)
    leave it unknown (an empty value, no number) rather than give one of them to every loader."""
    found: dict[str, str] = {}
    for index, word in enumerate(arguments):
        name, equals, value = word.partition("=")
        dotted_option = name.startswith("--") and "." in name
        path = name.removeprefix("--") if dotted_option else name.lstrip("+")
        if dotted_option and not equals:
            value = arguments[index + 1] if index + 1 < len(arguments) else ""
        if (equals or dotted_option) and (dotted_option or not name.startswith("-")) and path.rpartition(".")[2] == key:
            found[path] = value
    if len(set(found.values())) > 1:
        return ""
    return next(reversed(found.values()), None)
