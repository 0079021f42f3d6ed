"""MPI ranks that arrive over ssh: a container that only runs an ssh daemon (Horovod's and Open MPI's "secondary
workers", ``bash -c "/usr/sbin/sshd -p 12345; sleep infinity"``) receives the ranks that an MPI launcher in another
container of the same file starts on the hosts of its ``-H host1:4,host2:4`` list (``ssh_ranks`` in
shmlint/data/shm_need.yaml, with its source: Horovod's docker guide). The other way round, a launcher whose list
names only other workloads of its file (a compose launcher's ``-H worker:4``) holds none of those ranks: its
need from the list's slots (``mpi-local-ranks``) goes back to undecided.

Bounded and strict: only containers of one file, only an undecided container with an accelerator that starts
``sshd`` as the program of one of its commands (not a path that names it: ``mkdir -p /var/run/sshd``), only a
launcher in a container of the same image repository that lists hosts other than itself with two or more slots
each, and an ssh port that matches where both name one. A host list that names workloads of the file gives ranks
only to those; one that names none of them (hosts of another network) is read as placing its fewest slots here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from shmlint.model import Need, Tier, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.need import MPI_LAUNCHER, MPI_LOCAL_RANKS
from shmlint.parsers.programs import SHELLS, program, shell_operand
from shmlint.parsers.shell import commands
from shmlint.signals import MPI_LAUNCHERS, split_image
from shmlint.visible import clipped

#: options of the launchers (``MPI_LAUNCHERS``) whose list places ranks on other hosts over ssh
HOST_OPTIONS = frozenset({"-H", "--hosts", "--host", "-host"})
PORT_OPTIONS = frozenset({"-p", "--ssh-port"})
#: names a launcher's own host goes by (its ranks there are its own container's, not the ssh daemon's)
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
#: hosts of one list read (a longer list is read this far)
MAX_HOSTS = 64


class Daemon(NamedTuple):
    """An ssh daemon a command starts, and the port it listens on when its command names one."""

    port: str | None


class Placement(NamedTuple):
    """What one launcher line says of the ranks it places on other hosts."""

    where: str  # ``docker.rst:51``
    command: str
    image: str  # its image repository
    slots: dict[str, int]  # slots per host named, local hosts left out
    port: str | None  # the ssh port it connects to, when it names one
    local: bool  # the list names the launcher's own host (``localhost:4``)


def with_ssh_ranks(workloads: Sequence[Workload]) -> list[Workload]:
    """The workloads, with an undecided ssh-daemon container decided by the ranks a launcher sends it, and a
    launcher whose host list places every rank in other workloads of the file holding none of its own."""
    placements = {w.id: p for w in workloads if (p := _placement(w)) is not None}
    if not placements:
        return list(workloads)
    hosts = {name for w in workloads for name in (w.id.name, w.id.container) if name}  # a compose service's host
    return [
        _ranks_elsewhere(_decided(workload, list(placements.values()), hosts), placements.get(workload.id), hosts)
        for workload in workloads
    ]


def _ranks_elsewhere(workload: Workload, placement: Placement | None, hosts: set[str]) -> Workload:
    """A launcher decided by its host list's slots (``mpi-local-ranks``) whose hosts are all other workloads of
    this file (``-H worker1:4`` in a compose launcher) starts its ranks there, none here: undecided, as a launcher
    whose local ranks the command line does not show (``mpi-launcher``)."""
    need = workload.need
    if placement is None or placement.local or need is None or need.entry != MPI_LOCAL_RANKS:
        return workload
    own = {workload.id.name, workload.id.container}
    if not set(placement.slots) <= hosts - own:
        return workload
    because = f"an MPI launcher whose ranks run in {', '.join(sorted(placement.slots))} ({placement.where})"
    return workload._replace(need=Need(Tier.UNKNOWN, because, MPI_LAUNCHER))


def _decided(workload: Workload, placements: list[Placement], hosts: set[str]) -> Workload:
    """``hosts``: the names the file's workloads go by; a host list that names one places ranks only there."""
    need = workload.need
    if need is None or need.tier is not Tier.UNKNOWN or not workload.gpu or not workload.image:
        return workload
    daemon = sshd(workload.command or "")
    if daemon is None:
        return workload
    repository = split_image(workload.image)[0]
    for placement in placements:
        if placement.image != repository or (daemon.port and placement.port and daemon.port != placement.port):
            continue
        named = [placement.slots[n] for n in (workload.id.container, workload.id.name) if n in placement.slots]
        if not named and hosts.intersection(placement.slots):
            continue  # its hosts are other workloads of this file: none of them is this one
        ranks = named[0] if named else min(placement.slots.values())
        if ranks >= 2:
            because = (
                f"{ranks} MPI ranks started over ssh in this ssh daemon's container by the launcher of another, "
                f"NCCL between them ({placement.where} {clipped(placement.command, 60)})"
            )
            return workload._replace(need=Need(Tier.NEEDS, because, None))
    return workload


def sshd(command: str, inline: bool = False) -> Daemon | None:
    """The ssh daemon ``command`` starts as the program of one of its simple commands (past ``exec``, ``sudo``,
    ``env``; a path that ends in ``/sshd``; in a shell's ``-c`` string), or None: a word that only names it
    (``mkdir -p /var/run/sshd``) starts nothing. ``inline``: ``command`` is already a ``-c`` string."""
    for simple in commands(command):
        words = program([word.text for word in simple.words])
        name = os.path.basename(words[0]) if words else ""
        if name == "sshd":
            return Daemon(_port(words[1:]))
        script = _script(words[1:]) if name in SHELLS and not inline else None  # a shell's ``-c`` string
        found = sshd(script, inline=True) if script else None
        if found is not None:
            return found
    return None


def _script(arguments: list[str]) -> str | None:
    """A shell's ``-c`` string, with the words after it (a command line joined by spaces has lost its quotes)."""
    operand = shell_operand(arguments)
    return " ".join(arguments[operand[1] :]) if operand is not None and operand[0] else None


def _port(arguments: list[str]) -> str | None:
    """The port of sshd's ``-p N`` (or ``-pN``)."""
    for index, word in enumerate(arguments):
        value = arguments[index + 1] if word == "-p" and index + 1 < len(arguments) else word[2:]
        if word.startswith("-p") and value.isdigit() and len(value) <= 5:
            return value
    return None


def _placement(workload: Workload) -> Placement | None:
    """The hosts and slots an MPI launcher in this workload's command lists, when some are other hosts."""
    if not workload.image or not workload.command:
        return None
    words = workload.command.split()[:4096]
    start = next((i for i, w in enumerate(words) if os.path.basename(w) in MPI_LAUNCHERS), None)
    if start is None:
        return None
    hosts, port = "", None
    for index in range(start + 1, len(words)):
        name, equals, value = words[index].partition("=")
        if name == ";":
            break
        value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
        if name in HOST_OPTIONS and not hosts:
            hosts = value
        elif name in PORT_OPTIONS and value.isdigit():
            port = value
    slots = _slots(hosts)
    if not slots:
        return None
    where = f"{os.path.basename(workload.span.path)}:{workload.span.line}"
    command = " ".join(words[start:])
    local = any(item.partition(":")[0] in LOCAL_HOSTS for item in hosts.split(",")[:MAX_HOSTS])
    return Placement(where, command.split(" ; ")[0], split_image(workload.image)[0], slots, port, local)


def _slots(hosts: str) -> dict[str, int]:
    """``host1:4,host2:4`` -> {host1: 4, host2: 4}, local hosts left out; a host without a count has one slot."""
    found: dict[str, int] = {}
    for item in hosts.split(",")[:MAX_HOSTS]:
        host, _, count = item.partition(":")
        if host and host not in LOCAL_HOSTS:
            found[host] = int(count) if count.isdigit() and len(count) <= 4 else 1
    return found
