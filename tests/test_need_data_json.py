"""The tier data a run reads (``shm_need.json``) is the YAML source's exact content, so editing the YAML without
regenerating the JSON (``python -m shmlint.need``) cannot go unnoticed."""

from __future__ import annotations

import json

from shmlint import need


def test_the_json_copy_holds_exactly_the_yaml_data() -> None:
    shipped = json.loads(need.DATA_JSON.read_text(encoding="utf-8"))
    assert shipped == need.read_yaml(), "shm_need.json is stale: run `python -m shmlint.need` and commit it"


def test_a_run_reads_the_json_copy(tmp_path, monkeypatch) -> None:
    """The control: ``builtin()`` reads the JSON file, so a different JSON gives different knowledge."""
    data = need.read_yaml()
    data["accelerators"] = {"multi_device": {"min_devices": 7}}
    copy = tmp_path / "shm_need.json"
    copy.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(need, "DATA_JSON", copy)
    need.builtin.cache_clear()
    try:
        assert need.builtin().multi_device_min == 7
    finally:
        need.builtin.cache_clear()
