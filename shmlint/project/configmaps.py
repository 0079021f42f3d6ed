"""The files a container finds where its manifest mounts a ConfigMap (a Kubernetes sample's ``train.py`` or
``run.sh`` kept in ``data:``), so the walk reads them like the repository's own files.

A ConfigMap is looked for by name in the manifest itself, then in the YAML files beside it (``configmap.yaml``
next to ``job.yaml``) and the kustomization there, whose ``configMapGenerator`` makes keys of repository files
(``files: [train.py]``, read as those files, only inside the kustomization's folder as kustomize allows). One
written in another namespace than the pod's is not the pod's; one that two places write differently is not guessed
between. Each key's text keeps its lines where the manifest writes them (``nccl-config.yaml:31``): only a literal
block (``|``) or a one-line value is read, since a folded or multi-line quoted value moves its lines.

Bounded: the files beside are listed once a run (``ProjectFiles.per_folder``), at most ``MAX_BESIDE`` of them and
each within the run's file size; at most ``MAX_KEYS`` keys of a ConfigMap; generated keys are read only for a
ConfigMap a container mounts, at most ``MAX_GENERATED_BYTES`` in all (the walk's reader refuses a file over its own
size limit, a virtual one too).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from shmlint.discover import KUSTOMIZATION_NAMES
from shmlint.lazy_regex import LazyRegex
from shmlint.model import MountedConfig
from shmlint.named_tuple import NamedTuple
from shmlint.project.index import ProjectFiles, holds

if TYPE_CHECKING:
    from yaml.nodes import Node

    from shmlint.source import SourceText

#: YAML files beside a manifest read for its ConfigMaps, in name order
MAX_BESIDE = 16
#: keys of one ConfigMap kept
MAX_KEYS = 64
#: bytes of generated keys read for one container
MAX_GENERATED_BYTES = 4 * 1024 * 1024
#: the suffix kustomize gives a generated ConfigMap's name (a hash of its content, in its own alphabet)
_GENERATED_SUFFIX = LazyRegex(r"-[bcdfghkmt2456789]{10}\Z", 0, ("-",))


class ConfigFile(NamedTuple):
    """One key of a ConfigMap as the file a container finds: the file that writes it (real path), and its text
    with blank lines before it, so that its line N is that file's line N; ``text`` None: a generated key, the whole
    file at ``where``, read when a container mounts it."""

    where: str
    text: str | None


class Written(NamedTuple):
    """One place that writes a ConfigMap: its namespace ("" when not written) and its keys."""

    namespace: str
    keys: tuple[tuple[str, ConfigFile], ...]

    @property
    def holds(self) -> tuple[tuple[str, str | None], ...]:
        """What it holds, wherever it is written (two places that write the same keys alike agree)."""
        return tuple(
            (key, found.text.lstrip("\n") if found.text is not None else found.where) for key, found in self.keys
        )


#: the ConfigMaps a file or a folder writes, by name
ConfigMaps = dict[str, list[Written]]


def mounted_files(
    configs: Sequence[MountedConfig], manifest: str, files: ProjectFiles, max_bytes: int
) -> dict[str, tuple[str, str]]:
    """The files the container finds at the paths its ConfigMap mounts name (``/scripts/run.sh``), by that path:
    the file that writes each (real path) and its text (a generated key over ``max_bytes`` is not read)."""
    real = os.path.realpath(manifest)
    own = files.per_folder(_in_file, real) if real.endswith((".yaml", ".yml")) else {}
    beside = files.per_folder(_beside, os.path.dirname(real))
    found: dict[str, tuple[str, str]] = {}
    budget = MAX_GENERATED_BYTES
    for mount in configs:
        keys = _chosen(own, mount) or _chosen(beside, mount)
        for path, config_file in _placed(mount, dict(keys or ())).items():
            text = config_file.text
            if text is None:  # a generated key: the repository file, read now, within the bounds
                source = files.source(config_file.where)
                text = source.text if source is not None and len(source.text) <= min(max_bytes, budget) else None
                budget -= len(text or "")
            if text is not None:
                found[path] = (config_file.where, text)
    return found


def _chosen(written: ConfigMaps, mount: MountedConfig) -> tuple[tuple[str, ConfigFile], ...] | None:
    """The keys of the ConfigMap a mount names (a kustomization's output adds a hash to a generated one's name),
    among those of the pod's namespace; None when none is written, or two are written differently."""
    places = written.get(mount.config_map) or written.get(_GENERATED_SUFFIX.sub("", mount.config_map)) or []
    places = [p for p in places if not (p.namespace and mount.namespace and p.namespace != mount.namespace)]
    if not places or len({place.holds for place in places}) > 1:
        return None
    return places[0].keys


def _placed(mount: MountedConfig, keys: Mapping[str, ConfigFile]) -> dict[str, ConfigFile]:
    """The container paths a mount puts the keys at: each key (or the ``items`` named) below the mount path, or
    one key at the path itself for a ``subPath`` mount."""
    names = dict(mount.items) if mount.items else {key: key for key in keys}
    if mount.key:
        chosen = next((key for key, name in names.items() if name == mount.key), None)
        return {mount.path: keys[chosen]} if chosen is not None and chosen in keys else {}
    return {posixpath.join(mount.path, name): keys[key] for key, name in names.items() if key in keys}


def container_path(name: str, workdir: str) -> str | None:
    """The absolute container path a command's file name stands for (a relative one from the working directory),
    normalised; None when it cannot be told."""
    if name.startswith("/"):
        return posixpath.normpath(name)
    return posixpath.normpath(posixpath.join(workdir, name)) if name and workdir.startswith("/") else None


def hides(mount: MountedConfig, path: str) -> bool:
    """Whether a ConfigMap mount covers a container path (what the image has there is not what the container
    sees, whether the ConfigMap is known or not)."""
    point = posixpath.normpath(mount.path)
    return path == point if mount.key else holds(point, path)


def _beside(files: ProjectFiles, folder: str) -> ConfigMaps:
    """The ConfigMaps of the YAML files in a folder (the first ``MAX_BESIDE`` by name), and those its
    kustomization generates from files (``configMapGenerator``)."""
    listed = files.files_in(folder)
    names = sorted(name for name in listed if name.endswith((".yaml", ".yml")))[:MAX_BESIDE]
    kustomization = next((name for name in KUSTOMIZATION_NAMES if name in listed), None)
    found: ConfigMaps = {}
    for name in names:  # each file read once a run, the manifest's own too (``mounted_files``)
        for config_map, places in files.per_folder(_in_file, os.path.join(folder, name)).items():
            found.setdefault(config_map, []).extend(places)
    if kustomization is not None:
        for config_map, places in _generated(files, os.path.join(folder, kustomization)).items():
            found.setdefault(config_map, []).extend(places)
    return found


def _composed(files: ProjectFiles, path: str, marker: str) -> tuple[SourceText, list[Node]] | None:
    """A YAML file's documents when its text holds ``marker``; None when it does not, cannot be read or parsed."""
    source = files.source(path)
    if source is None or marker not in source.text:
        return None
    from shmlint.parsers.yamlnodes import YamlError, compose

    try:
        return source, compose(source)
    except YamlError:
        return None


def _in_file(files: ProjectFiles, path: str) -> ConfigMaps:
    """The ConfigMaps one YAML file writes (the file given as the "folder" of ``per_folder``: asked once a run),
    with the text of each key that keeps its lines."""
    read = _composed(files, path, "ConfigMap")
    if read is None:
        return {}
    from shmlint.parsers.yamlnodes import Mappings, scalar

    source, documents = read
    m = Mappings()
    found: ConfigMaps = {}
    for document in documents:
        name = scalar(m.path(document, "metadata", "name"))
        if scalar(m.get(document, "kind")) != "ConfigMap" or not name:
            continue
        keys: list[tuple[str, ConfigFile]] = []
        for key, (_, value) in list(m.items(m.get(document, "data")).items())[:MAX_KEYS]:
            text = scalar(value)
            if text is None or value.style not in ("|", "", None, "'", '"'):
                continue
            if value.style == "|":  # the text starts on the line after its indicator (an anchor or tag may precede)
                line = source.text.count("\n", 0, source.text.find("|", value.start_mark.index)) + 1
                keys.append((key, ConfigFile(path, "\n" * line + text)))
            elif "\n" not in text:
                keys.append((key, ConfigFile(path, "\n" * value.start_mark.line + text)))
        namespace = scalar(m.path(document, "metadata", "namespace")) or ""
        found.setdefault(name, []).append(Written(namespace, tuple(keys)))
    return found


def _generated(files: ProjectFiles, path: str) -> ConfigMaps:
    """The ConfigMaps a kustomization generates from files inside its folder (``files: [train.py]``, also
    ``key=path``), each key a file read only if a container mounts it; one that keeps no such file is not listed."""
    read = _composed(files, path, "configMapGenerator")
    if read is None:
        return {}
    from shmlint.parsers.yamlnodes import Mappings, scalar, sequence

    documents = read[1]
    m = Mappings()
    folder = os.path.dirname(path)
    found: ConfigMaps = {}
    for generator in (g for document in documents[:1] for g in sequence(m.get(document, "configMapGenerator"))):
        name = scalar(m.get(generator, "name"))
        namespace = scalar(m.get(generator, "namespace")) or ""
        keys: list[tuple[str, ConfigFile]] = []
        for entry in sequence(m.get(generator, "files"))[:MAX_KEYS]:
            key, _, named = (scalar(entry) or "").partition("=")
            key, named = (key, named) if named else (os.path.basename(key), key)
            where = os.path.normpath(os.path.join(folder, named.strip()))
            if named.strip() and where.startswith(folder.rstrip(os.sep) + os.sep) and files.has_file(where):
                keys.append((key.strip(), ConfigFile(where, None)))
        if name and keys:
            found.setdefault(name, []).append(Written(namespace, tuple(keys)))
    return found
