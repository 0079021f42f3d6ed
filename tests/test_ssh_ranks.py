"""MPI ranks that arrive over ssh (``shmlint.project.ssh_ranks``): a container that runs only an ssh daemon holds
the ranks a launcher in another container of the same file places on other hosts."""

from __future__ import annotations

import pytest

from shmlint.severity import Severity
from tests.test_tiers import check, shm001

COMPOSE = """\
services:
  launcher:
    image: {launcher_image}
    command: horovodrun -np 8 -H worker:{slots} {port} python train.py
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]}}}}}}
  worker:
    image: horovod/horovod:0.28.1
    command: bash -c "/usr/sbin/sshd -p 12345; sleep infinity"
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]}}}}}}
"""


def _worker(**values: str) -> tuple[Severity, str]:
    fields = {"launcher_image": "horovod/horovod:0.28.1", "slots": "4", "port": "-p 12345", **values}
    found = shm001(check("compose.yaml", COMPOSE.format(**fields)))
    return next((severity, detail) for severity, detail in found if detail.startswith('service "worker"'))


def test_the_ssh_daemon_container_holds_the_ranks_placed_on_its_host() -> None:
    severity, detail = _worker()
    assert severity is Severity.ERROR
    assert "4 MPI ranks started over ssh" in detail and "compose.yaml:2 horovodrun -np 8 -H worker:4" in detail


@pytest.mark.parametrize(
    "values",
    [
        {"slots": "1"},  # one rank: no local NCCL peer
        {"launcher_image": "acme/other:1"},  # another image: not this launcher's workers
        {"port": "-p 2222"},  # another ssh port: not this daemon
    ],
)
def test_no_claim_without_several_ranks_for_this_daemon(values: dict[str, str]) -> None:
    assert _worker(**values)[0] is Severity.INFO


def test_docker_run_walkthrough_secondary_workers() -> None:
    text = (
        "Primary:\n\n    host1$ nvidia-docker run -it --network=host horovod/horovod:latest\n"
        "    root@c2:/examples# horovodrun -np 8 -H host1:4,host2:4 -p 12345 python train.py\n\n"
        "Secondary:\n\n    host2$ nvidia-docker run -it --network=host horovod/horovod:latest "
        'bash -c "/usr/sbin/sshd -p 12345; sleep infinity"\n'
    )
    found = shm001(check("docker.md", text))
    assert [severity for severity, _ in found] == [Severity.ERROR, Severity.ERROR]
    assert "MPI ranks started over ssh" in found[1][1]


def test_hostile_host_lists_are_bounded() -> None:
    from shmlint.project.ssh_ranks import MAX_HOSTS, _slots

    assert _slots("localhost:4,a:99999999,b,c:2") == {"a": 1, "b": 1, "c": 2}
    assert len(_slots(",".join(f"h{i}:2" for i in range(10_000)))) == MAX_HOSTS
