"""MPI ranks that arrive over ssh: a container that only runs an ssh daemon (Horovod's and Open MPI's "secondary
workers", ``bash -c "/usr/sbin/sshd -p 12345; sleep infinity"``) receives the ranks that an MPI launcher in another
container of the same file starts on the hosts of its ``-H host1:4,host2:4`` list (``ssh_ranks`` in
shmlint/data/shm_need.yaml, with its source).

Bounded and strict: only containers of one file, only an undecided container with an accelerator whose command
starts ``sshd``, only a launcher in a container of the same image repository that lists hosts other than itself
with two or more slots each, and an ssh port that matches where both name one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from shmlint.model import Need, Tier, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.signals import split_image
from shmlint.visible import clipped

#: launchers whose ``-H``/``--hosts``/``--host`` list places ranks on other hosts over ssh
LAUNCHERS = frozenset({"horovodrun", "mpirun", "mpiexec"})
HOST_OPTIONS = frozenset({"-H", "--hosts", "--host", "-host"})
PORT_OPTIONS = frozenset({"-p", "--ssh-port"})
#: names a launcher's own host goes by (its ranks there are its own container's, not the ssh daemon's)
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
#: hosts of one list read (a longer list is read this far)
MAX_HOSTS = 64
_SSHD = re.compile(r"(?:^|[\s/;&|\"'])sshd(?:\s+-[DdeE]{1,4})*(?:\s+-p\s*(?P<port>[0-9]{1,5}))?")


class Placement(NamedTuple):
    """What one launcher line says of the ranks it places on other hosts."""

    where: str  # ``docker.rst:51``
    command: str
    image: str  # its image repository
    slots: dict[str, int]  # slots per host named, local hosts left out
    port: str | None  # the ssh port it connects to, when it names one


def with_ssh_ranks(workloads: Sequence[Workload]) -> list[Workload]:
    """The workloads, with an undecided ssh-daemon container decided by the ranks a launcher sends it."""
    placements = [p for w in workloads if (p := _placement(w)) is not None]
    if not placements:
        return list(workloads)
    return [_decided(workload, placements) for workload in workloads]


def _decided(workload: Workload, placements: list[Placement]) -> Workload:
    need = workload.need
    if need is None or need.tier is not Tier.UNKNOWN or not workload.gpu or not workload.image:
        return workload
    daemon = _SSHD.search(workload.command or "")
    if daemon is None:
        return workload
    repository = split_image(workload.image)[0]
    port = daemon.group("port")
    for placement in placements:
        if placement.image != repository or (port and placement.port and port != placement.port):
            continue
        named = [placement.slots[n] for n in (workload.id.container, workload.id.name) if n in placement.slots]
        ranks = named[0] if named else min(placement.slots.values())  # a compose service is its own host name
        if ranks >= 2:
            because = (
                f"{ranks} MPI ranks started over ssh in this ssh daemon's container by the launcher of another, "
                f"NCCL between them ({placement.where} {clipped(placement.command, 60)})"
            )
            return workload._replace(need=Need(Tier.NEEDS, because, None))
    return workload


def _placement(workload: Workload) -> Placement | None:
    """The hosts and slots an MPI launcher in this workload's command lists, when some are other hosts."""
    if not workload.image or not workload.command:
        return None
    words = workload.command.split()[:4096]
    start = next((i for i, w in enumerate(words) if os.path.basename(w) in LAUNCHERS), None)
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
    return Placement(where, command.split(" ; ")[0], split_image(workload.image)[0], slots, port)


def _slots(hosts: str) -> dict[str, int]:
    """``host1:4,host2:4`` -> {host1: 4, host2: 4}, local hosts left out; a host without a count has one slot."""
    found: dict[str, int] = {}
    for item in hosts.split(",")[:MAX_HOSTS]:
        host, _, count = item.partition(":")
        if host and host not in LOCAL_HOSTS:
            found[host] = int(count) if count.isdigit() and len(count) <= 4 else 1
    return found
