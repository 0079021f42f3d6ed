"""The kustomization graph: every kustomization a build would read, and whatever in it would make kustomize reach
the network.

kustomize fetches a reference that is a URL or a git repository wherever it takes a path (resources, bases,
components, patch and replacement files, generator files, openapi, crds, helm charts...), and it reads schemes in
any case (``HTTP://``). So every string of every kustomization in the graph is looked at, as parsed YAML values
(escapes such as ``"\\x68ttp://"`` decoded, ``!!binary`` decoded, duplicate keys and aliases seen as composed),
except under keys that only hold data kustomize never loads (labels, annotations, literals, inline patches). Local
bases are followed transitively (a folder name with a space too), with a bound on how many kustomizations and YAML
nodes are read. The files that configure a generator, transformer or validator (a ``PatchTransformer``'s
``path``, a ``ConfigMapGenerator``'s ``files`` and ``envs``) are looked at like kustomizations, named directly or as
the resources of a kustomization named there; plain resources and patch files are objects kustomize loads no file
from. Anything that cannot be read for certain blocks rendering: the unit is then checked file by file, never
fetched.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.discover import KUSTOMIZATION_NAMES
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.source import InputError, read_bytes
from shmlint.visible import quoted

#: at most this many kustomizations (the start, its bases, their bases...) are read for one unit
MAX_KUSTOMIZATIONS = 200
#: at most this many YAML nodes are looked at over the whole graph (aliases can make a small file large)
MAX_NODES = 200_000

#: keys whose strings kustomize uses as paths to other kustomizations: local folders there are followed
_FOLLOWED = frozenset({"resources", "bases", "components", "generators", "transformers", "validators"})
#: keys whose strings name patch files: local ones are among the files a rendered workload is mapped back to
_PATCHES = frozenset({"patches", "patchesStrategicMerge", "patchesJson6902"})
#: keys whose files configure plugins: every string in them is a place kustomize may load from
_PLUGINS = frozenset({"generators", "transformers", "validators"})
#: keys whose whole value is data that kustomize never loads from anywhere
_DATA = frozenset(
    {
        "apiVersion",
        "kind",
        "metadata",
        "buildMetadata",
        "commonLabels",
        "commonAnnotations",
        "labels",
        "literals",
        "images",
        "replicas",
        "namePrefix",
        "nameSuffix",
        "namespace",
        "patch",
        "target",
        "options",
        "sortOptions",
        "source",
        "targets",
        "select",
        "reject",
        "vars",
    }
)
#: generators whose ``files``/``envs`` name local files kustomize reads (``key=path`` or a path)
_GENERATORS = frozenset({"configMapGenerator", "secretGenerator"})
_GENERATOR_FILES = frozenset({"files", "envs", "env"})
#: keys that make kustomize run another program (helm) that shmlint does not let it run
_HELM_KEYS = frozenset({"helmCharts", "helmChartInflationGenerator", "helmGlobals"})
#: a scheme (``https://``, ``HTTP://``, ``git::``, ``gh:``, ``s3:``), an scp-like ``git@host:``, a git host named
#: without a scheme, or a go-getter subfolder/ref marker
_REMOTE = LazyRegex(
    r"://|^[a-z][a-z0-9+.-]*:(?!\s|$)|^git@|(^|/)(github\.com|gitlab\.com|bitbucket\.org)([/:]|$)|\?ref=|[^:/]//",
    re.IGNORECASE,
)
#: a first path segment that looks like a host (``example.com/org/repo``) when no such local path exists
_HOST_LIKE = LazyRegex(r"^[^./\\][^/\\]*\.[^/\\]+/")
_BINARY = "tag:yaml.org,2002:binary"
_NULL = "tag:yaml.org,2002:null"
#: the resource files whose workloads rendered findings are mapped back to
_RESOURCE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})

if TYPE_CHECKING:
    import yaml


class Graph(NamedTuple):
    """What walking a kustomization found: the kustomizations read (the start first), the local resource files
    they name (where a rendered workload comes from), and, when it must not be rendered, why (naming the file and
    the value)."""

    folders: tuple[Path, ...]
    blocker: str | None = None
    files: tuple[Path, ...] = ()


def is_remote(value: str) -> bool:
    """Whether kustomize could read ``value`` from the network (compared after stripping, in any case); a
    generator's ``key=path`` is judged by its path too."""
    value = value.strip()
    return _REMOTE.search(value) is not None or ("=" in value and _REMOTE.search(value.split("=", 1)[1]) is not None)


def walk(folder: Path, max_bytes: int) -> Graph:
    """Every kustomization reachable from ``folder`` through local references, and the first reason (if any) not to
    let kustomize build it: a remote reference, helm charts, a file that cannot be read, or a graph too large."""
    seen: set[Path] = set()
    order: list[Path] = []
    files: dict[Path, None] = {}
    queue = deque([(folder, False)])  # a folder, and whether it was named where plugins are configured
    budget = MAX_NODES
    while queue:
        current, plugins = queue.popleft()
        key = _identity(current)
        if key in seen:
            continue
        if len(seen) >= MAX_KUSTOMIZATIONS:
            return Graph(tuple(order), f"more than {MAX_KUSTOMIZATIONS} kustomizations are reachable from it")
        seen.add(key)
        order.append(current)
        paths = [current / name for name in KUSTOMIZATION_NAMES if _there(current / name, Path.is_file)]
        if not paths:
            return Graph(tuple(order), f"{current} has no kustomization file")
        for path in paths:  # kustomize refuses a folder with two of them, but each is read all the same
            found, budget = _read(path, max_bytes, budget)
            if isinstance(found, str):
                return Graph(tuple(order), found)
            for name, value in found:
                # lexically, as kustomize joins paths (``base/../x`` is ``x`` even when base is a link)
                local = Path(os.path.normpath(current / value))
                configures = plugins or name in _PLUGINS
                if _there(current / value, Path.is_dir):
                    queue.append((local, configures))
                elif _there(local, Path.is_file) and configures:  # a plugin's configuration: read like a kustomization
                    problem, budget = _read(local, max_bytes, budget)
                    if isinstance(problem, str):
                        return Graph(tuple(order), problem)
                if local.suffix in _RESOURCE_SUFFIXES and _there(local, Path.is_file):
                    files[local] = None
    return Graph(tuple(order), None, tuple(files))


def _there(path: Path, test: Callable[[Path], bool] = Path.exists) -> bool:
    """``test(path)`` (exists, is_file, is_dir), False for a name the system refuses to look up (longer than a file
    name may be: Python raises ENAMETOOLONG there rather than answer)."""
    try:
        return test(path)
    except OSError:
        return False


def _identity(folder: Path) -> Path:
    try:
        return folder.resolve()
    except (OSError, RuntimeError):
        return folder


def _read(path: Path, max_bytes: int, budget: int) -> tuple[list[tuple[str, str]] | str, int]:
    """The local references to follow from one kustomization file (or why the graph must not be rendered), and
    the node budget left."""
    import yaml

    try:
        text = read_bytes(path, max_bytes).decode("utf-8")
        documents = list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except InputError as exc:
        return f"{path}: {exc}", budget
    except UnicodeDecodeError:
        return f"{path}: not UTF-8 text", budget
    except (yaml.YAMLError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"{path}: not valid YAML ({first})", budget
    follow: list[tuple[str, str]] = []
    for document in documents:
        problem, budget = _scan(document, path, follow, budget)
        if problem is not None:
            return problem, budget
    return follow, budget


def _scan(root: yaml.Node, path: Path, follow: list[tuple[str, str]], budget: int) -> tuple[str | None, int]:
    """Looks at every scalar under ``root`` outside data keys, iteratively (no recursion on hostile nesting); each
    node once however many aliases point at it. Local references under followed keys are added to ``follow``
    with their key."""
    import yaml

    stack: list[tuple[yaml.Node, str | None, str | None]] = [(root, None, None)]
    visited: set[int] = set()
    while stack:
        node, top_key, own_key = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        budget -= 1
        if budget < 0:
            return f"{path}: more than {MAX_NODES:,} YAML nodes in the kustomization graph", budget
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else None
                if name in _HELM_KEYS and top_key is None:
                    return f"{path}: uses {name}, which shmlint does not let kustomize inflate", budget
                if name in _DATA:
                    continue
                stack.append((value, top_key if top_key is not None else name or "", name))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, top_key, own_key) for item in node.value)
        elif isinstance(node, yaml.ScalarNode):
            problem = _scalar(node, path, top_key, follow)
            if problem is None and node.tag not in (_BINARY, _NULL):  # ``patches: null`` names no file
                problem = _absent_source(node.value, path, top_key, own_key)
            if problem is not None:
                return problem, budget
    return None, budget


def _absent_source(value: str, path: Path, top_key: str | None, own_key: str | None) -> str | None:
    """A resource, patch or generator file the kustomization names that the checkout does not have (an ``.env``
    made by a build step, CRDs a Makefile downloads, a sample since deleted): kustomize cannot build it as
    checked out, which says nothing of the workloads, so it is not rendered (a note), not SHM000."""
    value = value.strip()
    if top_key in _GENERATORS and own_key in _GENERATOR_FILES:
        value = value.split("=", 1)[-1].strip()  # ``key=path``
    elif top_key not in _FOLLOWED and not (top_key in _PATCHES and own_key in (top_key, "path")):
        return None
    if not value or "\n" in value or "\r" in value or is_remote(value) or _there(path.parent / value):
        return None
    return f"{path}: names {quoted(value)}, which is not in the checkout (made by a build step, or not committed)"


def _scalar(node: yaml.ScalarNode, path: Path, top_key: str | None, follow: list[tuple[str, str]]) -> str | None:
    value = node.value
    if node.tag == _BINARY:  # sigs.k8s.io/yaml turns !!binary into the decoded string
        try:
            value = base64.b64decode("".join(value.split()), validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return f"{path}: a !!binary value that is not base64"
    value = value.strip()
    if not value or "\n" in value or "\r" in value:  # inline content (a patch), never a path or a URL
        return None
    if is_remote(value):
        return f"{path}: names a remote resource {quoted(value)}, which shmlint never fetches"
    if top_key in _FOLLOWED or top_key in _PATCHES:
        local = path.parent / value
        if not _there(local) and _HOST_LIKE.match(value):
            return f"{path}: names {quoted(value)}, which is not a local path and may be a remote repository"
        follow.append((top_key, value))
    return None
