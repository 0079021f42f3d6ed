"""Whether an image a command line runs is the repository's own: ``acme/diffusion-pipe:0.1`` in the README of
``diffusion-pipe-docker``. A project's README and scripts run the image its CI publishes, often under a name no
file of the repository builds. The image's name (its last path part) and the repository's name, each without the
words many names hold (``docker``, ``gpu``, ``server``...), are the same words: then the Dockerfile beside the
line is taken (as a guess) to build it. One shared word is not enough: a fine-tuning repository's README may run
another project's demo image named for the same model (``whisper-demo-ui`` beside ``whisper-finetune``).

The repository's name is the one its clone knows: the last part of its ``origin`` remote's URL in ``.git/config``
(a CI checkout's and a user's clone's), else the name of its folder."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from shmlint.project.origin import repository_name
from shmlint.signals import split_image

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles, ProjectIndex

#: words too common in image and repository names to say that one is named for the other
_COMMON_WORDS = frozenset(
    [
        *("docker", "dockerfile", "image", "images", "container", "containers", "compose", "k8s", "helm"),
        *("gpu", "gpus", "cuda", "cpu", "rocm", "nvidia", "amd", "intel", "base", "latest", "stable", "nightly"),
        *("dev", "devel", "runtime", "app", "api", "server", "service", "services", "web", "webui", "gui"),
        *("main", "master", "test", "tests", "demo", "example", "examples", "sample", "samples", "tutorial"),
        *("llm", "model", "models", "train", "trainer", "training", "inference", "serve", "serving", "worker"),
        *("project", "repo", "src", "python", "torch", "pytorch", "tensorflow", "jupyter", "notebook", "lab"),
        *("tools", "env", "deploy", "deployment", "official", "public", "open", "the", "and", "for"),
    ]
)
#: the words of a name: its runs of letters and digits (a version's digits too: ``llama-2`` is not ``llama-3``)
_WORD = re.compile(r"[a-z0-9]{1,64}")


def named_for(image: str, repository: str) -> bool:
    """Whether the image's name and the repository's name are the same distinctive words."""
    words = _words(split_image(image)[0].lower().rsplit("/", 1)[-1])
    return bool(words) and words == _words(repository.lower())


def clone_name(files: ProjectFiles, root: str) -> str:
    """``repository_name`` of a root, asked once a run (``ProjectFiles.per_folder``)."""
    return repository_name(root)


def root_name(index: ProjectIndex, root: str) -> str:
    """The name a root's clone knows its repository by: once a run where the run lists its files, else read now."""
    return index.files.per_folder(clone_name, root) if index.files is not None else repository_name(root)


def _words(name: str) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall(name[:256]) if word not in _COMMON_WORDS)
