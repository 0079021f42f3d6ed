"""The options of ``docker``/``podman`` and their ``run``/``create`` subcommands: which take a value, which take
none, and one option word (``--gpus all``, ``--shm-size=1g``, ``-itp8080:80``) read into a ``Flag`` with the offsets
of its value.

The lowest layer of the container command grammar: ``shmlint.parsers.option_variables`` reads an option variable's
value with ``read_option``, and ``shmlint.parsers.container_command`` splits whole command lines with both.
"""

from __future__ import annotations

from collections.abc import Sequence

from shmlint.named_tuple import NamedTuple
from shmlint.parsers.shell import Word

#: global options of docker and podman that take a value (``docker --context x run``)
GLOBAL_VALUE_OPTIONS = frozenset(
    [
        "-c",
        "--context",
        "--config",
        "-H",
        "--host",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--connection",
        "--url",
        "--identity",
        "--root",
        "--runroot",
        "--storage-driver",
        "--storage-opt",
        "--cgroup-manager",
        "--runtime",
        "--runtime-flag",
        "--events-backend",
        "--hooks-dir",
        "--module",
        "--ssh",
        "--tmpdir",
        "--imagestore",
        "--network-cmd-path",
        "--network-config-dir",
        "--volumepath",
        "--conmon",
        "--cni-config-dir",
        "--out",
    ]
)

#: podman's global options, which cobra also takes after ``run`` (``podman run --log-level debug ...``), and its
#: ``run`` options that docker has not: each takes a value, which is not the image
_PODMAN_VALUE_OPTIONS = frozenset(
    [
        *("--log-level", "--root", "--runroot", "--storage-driver", "--cgroup-manager", "--events-backend"),
        *("--hooks-dir", "--tmpdir", "--conmon", "--network-cmd-path", "--network-config-dir", "--volumepath"),
        *("--imagestore", "--cni-config-dir", "--runtime-flag", "--connection", "--url", "--identity"),
        *("--mask", "--unmask", "--cert-dir", "--signature-policy"),
    ]
)
#: ``run``/``create`` options of docker and podman that take a value; every other option is a boolean
_RUN_VALUE_OPTIONS = _PODMAN_VALUE_OPTIONS | frozenset(
    [
        "-a",
        "--attach",
        "--add-host",
        "--annotation",
        "--arch",
        "--authfile",
        "--blkio-weight",
        "--blkio-weight-device",
        "-c",
        "--cpu-shares",
        "--cap-add",
        "--cap-drop",
        "--cgroup-conf",
        "--cgroup-parent",
        "--cgroupns",
        "--cgroups",
        "--chrootdirs",
        "--cidfile",
        "--conmon-pidfile",
        "--cpu-count",
        "--cpu-percent",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--creds",
        "--decryption-key",
        "--detach-keys",
        "--device",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--dns",
        "--dns-opt",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "-e",
        "--env",
        "--env-file",
        "--env-merge",
        "--expose",
        "--gidmap",
        "--gpus",
        "--group-add",
        "--group-entry",
        "--health-cmd",
        "--health-interval",
        "--health-log-destination",
        "--health-max-log-count",
        "--health-max-log-size",
        "--health-on-failure",
        "--health-retries",
        "--health-start-interval",
        "--health-start-period",
        "--health-startup-cmd",
        "--health-startup-interval",
        "--health-startup-retries",
        "--health-startup-success",
        "--health-startup-timeout",
        "--health-timeout",
        "-h",
        "--hostname",
        "--hostuser",
        "--hosts-file",
        "--image-volume",
        "--init-path",
        "--io-maxbandwidth",
        "--io-maxiops",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "-l",
        "--label",
        "--label-file",
        "--link",
        "--link-local-ip",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "-m",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--net",
        "--network",
        "--net-alias",
        "--network-alias",
        "--oom-score-adj",
        "--os",
        "--passwd-entry",
        "--personality",
        "--pid",
        "--pidfile",
        "--pids-limit",
        "--platform",
        "--pod",
        "--pod-id-file",
        "--preserve-fd",
        "--preserve-fds",
        "-p",
        "--publish",
        "--pull",
        "--rdt-class",
        "--requires",
        "--restart",
        "--retry",
        "--retry-delay",
        "--runtime",
        "--sdnotify",
        "--seccomp-policy",
        "--secret",
        "--security-opt",
        "--shm-size",
        "--shm-size-systemd",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--subgidname",
        "--subuidname",
        "--sysctl",
        "--systemd",
        "--timeout",
        "--tmpfs",
        "--tz",
        "-u",
        "--user",
        "--uidmap",
        "--ulimit",
        "--umask",
        "--unsetenv",
        "--userns",
        "--uts",
        "--variant",
        "-v",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "-w",
        "--workdir",
    ]
)
_LONG_NAMES = {"-e": "--env", "-v": "--volume", "-m": "--memory", "-u": "--user", "-w": "--workdir"}

#: ``run`` options that take no value, besides every option ``_RUN_VALUE_OPTIONS`` names: words after an unknown
#: expansion that are all such options (then an image) show the expansion stands among the options
_RUN_BOOLEAN_OPTIONS = frozenset(
    [
        *("--rm", "--detach", "--interactive", "--tty", "--privileged", "--init", "--read-only", "--publish-all"),
        *("--quiet", "--help", "--sig-proxy", "--oom-kill-disable", "--no-healthcheck", "--disable-content-trust"),
        *("--use-api-socket", "--env-host", "--http-proxy", "--no-hosts", "--read-only-tmpfs", "--replace", "--rmi"),
        *("--rootfs", "--tls-verify", "--passwd"),
    ]
)
_RUN_BOOLEAN_LETTERS = frozenset("itdPq")


class Flag(NamedTuple):
    """One option of a container command line, with the offsets a fix needs to rewrite its value."""

    name: str  # as written, without ``=value``: ``--gpus``, ``-e``
    flag: Word
    value: Word | None  # None for a boolean option
    value_text: str
    value_start: int  # offsets of the value's own text (inside quotes, after ``=``)
    value_end: int
    #: the variable it was read from (``$OPTS``), spanned there: its words are not the file's, a fix never edits them
    expanded_from: str = ""

    @property
    def long_name(self) -> str:
        """``--env`` for ``-e``: the name to ask for."""
        return _LONG_NAMES.get(self.name, self.name)

    @property
    def end(self) -> int:
        return self.value.end if self.value is not None else self.flag.end

    @property
    def dynamic(self) -> bool:
        return self.value is not None and self.value.dynamic

    @property
    def exact(self) -> bool:
        """The value's characters are exactly the source characters (no quotes or escapes inside)."""
        return self.value_end - self.value_start == len(self.value_text)

    def shown(self) -> str:
        return f"{self.name} {self.value_text}" if self.value is not None else self.name


def read_option(words: Sequence[Word], index: int, options: list[Flag], text: str) -> int:
    """Read the option word at ``index`` (and its value); returns the index after them."""
    word = words[index]
    following = words[index + 1] if index + 1 < len(words) else None
    if word.text.startswith("--"):
        name, equals, attached = word.text.partition("=")
        if equals:
            options.append(_option(name, word, word, attached, text))
            return index + 1
        if name in _RUN_VALUE_OPTIONS and following is not None:
            options.append(_option(name, word, following, following.text, text))
            return index + 2
        options.append(_option(name, word, None, "", text))
        return index + 1
    for position, letter in enumerate(word.text[1:], start=1):  # grouped short options: -it, -itd, -p8080:80
        name = "-" + letter
        if name not in _RUN_VALUE_OPTIONS:
            options.append(_option(name, word, None, "", text))
            continue
        attached = word.text[position + 1 :]
        if len(attached) > 1 and attached.startswith("="):  # ``-m=16g``: docker's flag library drops the ``=``
            attached = attached[1:]
        if attached:
            options.append(_option(name, word, word, attached, text))
            return index + 1
        if following is not None:
            options.append(_option(name, word, following, following.text, text))
            return index + 2
    return index + 1


def _option(name: str, flag: Word, value: Word | None, value_text: str, text: str) -> Flag:
    """An option with the offsets of its value's own characters: after ``=``, inside quotes when it can tell."""
    if value is None:
        return Flag(name, flag, None, "", flag.end, flag.end)
    size = len(value_text)
    for end in (value.end, value.end - 1):  # the value is the word's tail, before a closing quote if any
        if size and end - size >= value.start and text[end - size : end] == value_text:
            return Flag(name, flag, value, value_text, end - size, end)
    return Flag(name, flag, value, value_text, value.start, value.end)


def run_option_known(option: str) -> bool:
    """An option word the run command takes (``--gpus``, ``--rm=false``, ``-itp8080:80``); an unknown one is an
    error to docker, so the words are not its options."""
    name = option.partition("=")[0]
    if name.startswith("--"):
        return name in _RUN_VALUE_OPTIONS or name in _RUN_BOOLEAN_OPTIONS
    for letter in name[1:]:
        if "-" + letter in _RUN_VALUE_OPTIONS:
            return True  # the rest of the word is its value
        if letter not in _RUN_BOOLEAN_LETTERS:
            return False
    return len(name) > 1
