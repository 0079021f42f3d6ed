"""The files a container finds where its manifest mounts a ConfigMap (a Kubernetes sample's ``train.py`` or
``run.sh`` kept in ``data:``), so the walk reads them like the repository's own files.

A ConfigMap is looked for by name in the manifest itself, then in the YAML files beside it (``configmap.yaml``
next to ``job.yaml``); one that two of those files write differently is not guessed between. Each key's text keeps
its lines where the manifest writes them (``nccl-config.yaml:31``): only a literal block (``|``) or a one-line value
is read, since a folded or multi-line quoted value moves its lines. Bounded: the files beside are listed once a run
(``ProjectFiles.per_folder``), at most ``MAX_BESIDE`` of them and each within the run's file size, and at most
``MAX_KEYS`` keys of a ConfigMap.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence

from shmlint.model import MountedConfig
from shmlint.named_tuple import NamedTuple
from shmlint.project.index import ProjectFiles

#: YAML files beside a manifest read for its ConfigMaps, in name order
MAX_BESIDE = 16
#: keys of one ConfigMap kept
MAX_KEYS = 64
#: how a virtual file's name starts, so it is never the path of a file on disk
PREFIX = "configmap:"


class ConfigFile(NamedTuple):
    """One key of a ConfigMap as the file a container finds: the manifest that writes it (real path), and its
    text with blank lines before it, so that its line N is the manifest's line N."""

    manifest: str
    text: str


#: a ConfigMap's keys by name; a name two files write differently: None
ConfigMaps = dict[str, "dict[str, ConfigFile] | None"]


def mounted_files(configs: Sequence[MountedConfig], manifest: str, files: ProjectFiles) -> dict[str, ConfigFile]:
    """The files the container finds at the paths its ConfigMap mounts name (``/scripts/run.sh``), by that path."""
    if not configs:
        return {}
    real = os.path.realpath(manifest)
    own = files.per_folder(_in_file, real) if real.endswith((".yaml", ".yml")) else {}
    beside = files.per_folder(_beside, os.path.dirname(real))
    found: dict[str, ConfigFile] = {}
    for mount in configs:
        keys = own.get(mount.config_map) if mount.config_map in own else beside.get(mount.config_map)
        if keys:
            found.update(_placed(mount, keys))
    return found


def _placed(mount: MountedConfig, keys: Mapping[str, ConfigFile]) -> dict[str, ConfigFile]:
    """The container paths a mount puts the keys at: each key (or the ``items`` named) below the mount path, or
    one key at the path itself for a ``subPath`` mount."""
    names = dict(mount.items) if mount.items else {key: key for key in keys}
    if mount.key:
        chosen = next((key for key, name in names.items() if name == mount.key), None)
        return {mount.path: keys[chosen]} if chosen is not None and chosen in keys else {}
    return {posixpath.join(mount.path, name): keys[key] for key, name in names.items() if key in keys}


def at(mounted: Mapping[str, object], name: str, workdir: str, prefix: str = "") -> str | None:
    """The key of ``mounted`` (container paths behind ``prefix``) a command's file name stands for (a relative
    name from the working directory), or None."""
    if not mounted or not name:
        return None
    path = name if name.startswith("/") else posixpath.join(workdir, name) if workdir.startswith("/") else ""
    key = prefix + posixpath.normpath(path) if path else ""
    return key if key in mounted else None


def _beside(files: ProjectFiles, folder: str) -> ConfigMaps:
    """The ConfigMaps of the YAML files in a folder (the first ``MAX_BESIDE`` by name)."""
    names = sorted(name for name in files.files_in(folder) if name.endswith((".yaml", ".yml")))[:MAX_BESIDE]
    found: ConfigMaps = {}
    for name in names:
        for config_map, keys in _in_file(files, os.path.join(folder, name)).items():
            if config_map in found and _written(found[config_map]) != _written(keys):
                found[config_map] = None  # two files write it differently: which one is applied is not known
            else:
                found.setdefault(config_map, keys)
    return found


def _in_file(files: ProjectFiles, path: str) -> ConfigMaps:
    """The ConfigMaps one YAML file writes, with the text of each key that keeps its lines."""
    source = files.source(path)
    if source is None or "ConfigMap" not in source.text:
        return {}
    from shmlint.parsers.yamlnodes import Mappings, YamlError, compose, scalar

    try:
        documents = compose(source)
    except YamlError:
        return {}
    m = Mappings()
    found: ConfigMaps = {}
    for document in documents:
        name = scalar(m.path(document, "metadata", "name"))
        if scalar(m.get(document, "kind")) != "ConfigMap" or not name:
            continue
        keys: dict[str, ConfigFile] = {}
        for key, (_, value) in list(m.items(m.get(document, "data")).items())[:MAX_KEYS]:
            text = scalar(value)
            if text is None or value.style not in ("|", "", None, "'", '"'):
                continue
            if value.style == "|":
                keys[key] = ConfigFile(path, "\n" * (value.start_mark.line + 1) + text)
            elif "\n" not in text:
                keys[key] = ConfigFile(path, "\n" * value.start_mark.line + text)
        found[name] = None if name in found and _written(found[name]) != _written(keys) else keys
    return found


def _written(keys: Mapping[str, ConfigFile] | None) -> dict[str, str] | None:
    """What a ConfigMap holds, wherever it is written (two files that write the same keys alike agree)."""
    return None if keys is None else {key: found.text.lstrip("\n") for key, found in keys.items()}
