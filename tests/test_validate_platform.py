"""``shmlint validate`` runs real probes in Linux mount namespaces or podman; elsewhere it says so in one line."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from shmlint.cli import cli
from tests.support import FIXTURES

FIXTURE = str(FIXTURES / "k8s" / "SHM001-crlf.yaml")


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_validate_needs_linux(monkeypatch, platform: str) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    result = CliRunner().invoke(cli, ["validate", FIXTURE])
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert "needs Linux (mount namespaces or podman)" in line and platform in line
    assert "Traceback" not in result.output
