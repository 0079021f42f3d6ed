"""The files a container finds where its manifest mounts a ConfigMap (a Kubernetes sample's ``train.py`` or
``run.sh`` kept in ``data:``), so the walk reads them like the repository's own files.

A ConfigMap is looked for by name in the manifest itself, then in the YAML files beside it (``configmap.yaml``
next to ``job.yaml``) and the kustomization there, whose ``configMapGenerator`` makes keys of repository files
(``files: [train.py]``, read as those files); one that two of those write differently is not guessed between. Each key's text keeps
its lines where the manifest writes them (``nccl-config.yaml:31``): only a literal block (``|``) or a one-line value
is read, since a folded or multi-line quoted value moves its lines. Bounded: the files beside are listed once a run
(``ProjectFiles.per_folder``), at most ``MAX_BESIDE`` of them and each within the run's file size, and at most
``MAX_KEYS`` keys of a ConfigMap.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence

from shmlint.discover import KUSTOMIZATION_NAMES
from shmlint.lazy_regex import LazyRegex
from shmlint.model import MountedConfig
from shmlint.named_tuple import NamedTuple
from shmlint.project.index import ProjectFiles

#: YAML files beside a manifest read for its ConfigMaps, in name order
MAX_BESIDE = 16
#: keys of one ConfigMap kept
MAX_KEYS = 64
#: the suffix kustomize gives a generated ConfigMap's name (a hash of its content, in letters without vowels)
_GENERATED_SUFFIX = LazyRegex(r"-[bcdfghjklmnpqrstvwxz2456789]{10}\Z", 0, ("-",))
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
        name = mount.config_map
        if name not in own and name not in beside:
            name = _GENERATED_SUFFIX.sub("", name)  # a kustomization's output names a generated one with a hash
        keys = own.get(name) if name in own else beside.get(name)
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
    """The ConfigMaps of the YAML files in a folder (the first ``MAX_BESIDE`` by name), and those its
    kustomization generates from files (``configMapGenerator``)."""
    listed = files.files_in(folder)
    names = sorted(name for name in listed if name.endswith((".yaml", ".yml")))[:MAX_BESIDE]
    kustomization = next((name for name in KUSTOMIZATION_NAMES if name in listed), None)
    written = [item for name in names for item in _in_file(files, os.path.join(folder, name)).items()]
    if kustomization is not None:
        written += _generated(files, os.path.join(folder, kustomization)).items()
    found: ConfigMaps = {}
    for config_map, keys in written:
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


def _generated(files: ProjectFiles, path: str) -> ConfigMaps:
    """The ConfigMaps a kustomization generates from files of the repository (``files: [train.py]``, also
    ``key=path``), each key the file's whole text; a ConfigMap that keeps no such file is not listed."""
    source = files.source(path)
    if source is None or "configMapGenerator" not in source.text:
        return {}
    from shmlint.parsers.yamlnodes import Mappings, YamlError, compose, scalar, sequence

    try:
        documents = compose(source)
    except YamlError:
        return {}
    m = Mappings()
    folder = os.path.dirname(path)
    found: ConfigMaps = {}
    for generator in (g for document in documents[:1] for g in sequence(m.get(document, "configMapGenerator"))):
        name = scalar(m.get(generator, "name"))
        keys: dict[str, ConfigFile] = {}
        for entry in sequence(m.get(generator, "files"))[:MAX_KEYS]:
            key, _, named = (scalar(entry) or "").rpartition("=")
            read = files.source(os.path.normpath(os.path.join(folder, named))) if named else None
            if read is not None:
                keys[key or os.path.basename(named)] = ConfigFile(read.path, read.text)
        if name and keys:
            found[name] = None if name in found and _written(found[name]) != _written(keys) else keys
    return found


def _written(keys: Mapping[str, ConfigFile] | None) -> dict[str, str] | None:
    """What a ConfigMap holds, wherever it is written (two files that write the same keys alike agree)."""
    return None if keys is None else {key: found.text.lstrip("\n") for key, found in keys.items()}
