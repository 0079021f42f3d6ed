"""The name a clone knows its repository by: what a guide's ``git clone`` makes the folder (``docker build -t x
retinanet-examples/``) and what the repository's own images are named for (``shmlint.project.own_image``)."""

from __future__ import annotations

import configparser
import os
import re
import stat

from shmlint.source import InputError, read_bytes

#: bytes of ``.git/config`` read for the origin's URL (a clone's is a few hundred)
MAX_CONFIG = 64 * 1024


def repository_name(root: str) -> str:
    """The name the clone at ``root`` knows its repository by: its origin's (else first remote's) URL's last part
    without ``.git``; the folder's name when it has none. Only a ``.git`` folder's regular ``config`` of at most
    ``MAX_CONFIG`` bytes is read: never a link (a pull request could point it anywhere), a FIFO or a device, nor
    the git folder a worktree's ``.git`` file names."""
    config = configparser.ConfigParser(strict=False, interpolation=None)
    dot_git = os.path.join(root, ".git")
    path = os.path.join(dot_git, "config")
    try:
        if stat.S_ISDIR(os.lstat(dot_git).st_mode) and stat.S_ISREG(os.lstat(path).st_mode):
            config.read_string(read_bytes(path, MAX_CONFIG).decode("utf-8", "replace"))
    except (OSError, InputError, configparser.Error):
        config.clear()
    remotes = sorted(
        (section for section in config.sections() if section.startswith("remote ")),
        key=lambda section: section != 'remote "origin"',
    )
    url = next((found for section in remotes if (found := config.get(section, "url", fallback=""))), "")
    name = re.split(r"[/:\\]", url.strip().rstrip("/"))[-1].removesuffix(".git") if url else ""
    return name or os.path.basename(os.path.normpath(root))
