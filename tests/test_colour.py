"""Colour in the text report: through ``click.style``, on a terminal only, never with ``NO_COLOR`` set."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys

import click
import pytest

from shmlint.model import Finding
from shmlint.report import text
from shmlint.severity import Severity
from shmlint.source import Span
from tests.support import ROOT

POD = ROOT / "fixtures" / "k8s" / "SHM001-crlf.yaml"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "no_color", "expected"),
    [
        (Terminal(), None, True),
        (Terminal(), "1", False),
        (Terminal(), "0", False),  # any value: https://no-color.org
        (Terminal(), "", True),  # set but empty does not count
        (io.StringIO(), None, False),  # a pipe or a file
        (None, None, False),  # no console at all (pythonw on Windows)
    ],
)
def test_colour_is_wanted_only_on_a_terminal_without_no_color(monkeypatch, stream, no_color, expected) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color is not None:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert text.wants_colour(stream) is expected


def test_coloured_findings_are_the_plain_ones_styled() -> None:
    for severity, colour in ((Severity.ERROR, "red"), (Severity.WARNING, "yellow"), (Severity.INFO, "cyan")):
        finding = Finding("SHM001", "missing-shm", severity, "no /dev/shm", Span("k8s/pod.yaml", 3, 5, 3, 9, 20, 24))
        plain, coloured = text.format_finding(finding), text.format_finding(finding, colour=True)
        assert plain == f"k8s/pod.yaml:3:5: SHM001 [{severity.label}] no /dev/shm"
        assert click.unstyle(coloured) == plain
        assert click.style(f"[{severity.label}]", fg=colour) in coloured
        assert coloured.startswith(click.style("k8s/pod.yaml:3:5:", bold=True))


def on_a_terminal(no_color: str | None) -> str:
    """``shmlint check`` with its standard output on a pseudo-terminal, as a person runs it."""
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env["PYTHONPATH"] = str(ROOT)
    if no_color is not None:
        env["NO_COLOR"] = no_color
    main, child = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "shmlint", "check", str(POD)], stdout=child, stderr=subprocess.DEVNULL, env=env
        )
        os.close(child)
        output = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed: the run ended
                break
            if not chunk:
                break
            output += chunk
        assert process.wait(timeout=60) == 1
    finally:
        os.close(main)
    return output.decode()


def test_a_terminal_gets_colour_unless_no_color_is_set() -> None:
    coloured = on_a_terminal(None)
    assert "\x1b[31m[error]\x1b[0m" in coloured
    assert "\x1b[" not in on_a_terminal("1")
    assert click.unstyle(coloured) == on_a_terminal("1")
