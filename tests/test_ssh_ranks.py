"""MPI ranks that arrive over ssh (``shmlint.project.ssh_ranks``): a container that runs only an ssh daemon holds
the ranks a launcher in another container of the same file places on other hosts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


#: a third service of the same image and GPUs, with the command given
SPARE = """\
  spare:
    image: horovod/horovod:0.28.1
    command: {command}
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]}}}}}}
"""


def _worker(service: str = "worker", spare: str = "", **values: str) -> tuple[Severity, str]:
    fields = {"launcher_image": "horovod/horovod:0.28.1", "slots": "4", "port": "-p 12345", **values}
    text = COMPOSE.format(**fields) + (SPARE.format(command=spare) if spare else "")
    found = shm001(check("compose.yaml", text))
    return next((severity, detail) for severity, detail in found if detail.startswith(f'service "{service}"'))


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


@pytest.mark.parametrize(
    "command",
    [
        'bash -c "mkdir -p /var/run/sshd; sleep infinity"',  # names the daemon's folder, runs no daemon
        'bash -c "/usr/sbin/sshd -p 12345; sleep infinity"',  # a daemon, but the launcher's list names "worker"
    ],
)
def test_a_container_the_host_list_does_not_name_gets_no_ranks(command: str) -> None:
    assert _worker("spare", command)[0] is Severity.INFO
    assert _worker("worker", command)[0] is Severity.ERROR


def test_a_launcher_whose_hosts_are_other_workloads_holds_no_ranks() -> None:
    """``-H worker:4``: the ranks run in the worker service; the launcher's GPUs hold none of them."""
    severity, detail = _worker("launcher")
    assert severity is Severity.INFO and "an MPI launcher whose ranks run in worker (compose.yaml:2)" in detail
    assert _worker("worker")[0] is Severity.ERROR


@pytest.mark.parametrize("hosts", ["localhost:4,worker:4", "worker:4,elsewhere:4", "127.0.0.1:2,worker:2"])
def test_a_launcher_with_ranks_of_its_own_or_on_unknown_hosts_keeps_its_need(hosts: str) -> None:
    fields = {"launcher_image": "horovod/horovod:0.28.1", "slots": "4", "port": "-p 12345"}
    text = COMPOSE.format(**fields).replace("-H worker:4", f"-H {hosts}")
    found = shm001(check("compose.yaml", text))
    assert next(severity for severity, detail in found if detail.startswith('service "launcher"')) is Severity.ERROR


def test_the_launcher_entries_are_the_tier_datas() -> None:
    from shmlint.data.shm_need import SOFTWARE
    from shmlint.need import MPI_LAUNCHER, MPI_LOCAL_RANKS

    assert {MPI_LAUNCHER, MPI_LOCAL_RANKS} <= {entry[0] for entry in SOFTWARE}


@pytest.mark.parametrize(
    ("command", "port"),
    [
        ("bash -c /usr/sbin/sshd -p 12345; sleep infinity", "12345"),  # compose's words joined: quotes gone
        ("exec /usr/sbin/sshd -D", None),
        ("sh -c 'mkdir -p /run/sshd && sshd -D -p2222'", "2222"),
        ("bash --login -c 'env A=1 /usr/sbin/sshd -D -p 22'", "22"),
        ("mkdir -p /var/run/sshd; sleep infinity", ""),
        ("bash -c 'mkdir -p /var/run/sshd && sleep infinity'", ""),
        ("cat /etc/ssh/sshd_config; echo sshd", ""),
        ("bash run.sh sshd", ""),  # a script's argument, not its program
    ],
)
def test_sshd_only_as_the_program_of_a_command(command: str, port: str | None) -> None:
    from shmlint.project.ssh_ranks import Daemon, sshd

    assert sshd(command) == (None if port == "" else Daemon(port))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" -/;&|\"'$()cpbashdexn0123456789", max_size=200))
def test_sshd_reader_never_raises(command: str) -> None:
    from shmlint.project.ssh_ranks import sshd

    found = sshd(command)
    assert found is None or "sshd" in command
    assert found is None or found.port is None or (found.port.isdigit() and found.port in command)


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
