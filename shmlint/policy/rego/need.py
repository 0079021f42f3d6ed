"""How much a container's software needs /dev/shm, in Rego: the tier data embedded as JSON, matched against the
container's command and image, and the tier and its reason decided as ``shmlint.need`` decides them."""

from __future__ import annotations

from typing import Any

from shmlint.policy.knowledge import Knowledge, alternations
from shmlint.policy.rego.spell import as_json, raw


def software(k: Knowledge) -> list[dict[str, Any]]:
    """The tier data's entries, as the Rego rules read them (``software``)."""
    return [
        {
            "id": entry.id,
            "tier": entry.tier,
            "what": entry.what,
            "commands": [[part for part in pattern if part is not None] for pattern in entry.commands],
            "images": [[part for part in pattern if part is not None] for pattern in entry.images],
            "tags": [[part for part in pattern if part is not None] for pattern in entry.image_tags],
            "acceleratorOnly": entry.accelerator_only,
            "commandWins": entry.command_wins,
            "hostCentric": entry.host_centric,
            "minDevices": entry.min_devices,
            "perDevice": entry.per_device,
            "runsCommand": entry.runs_command,
        }
        for entry in k.software
    ]


def _pattern_rules() -> str:
    """An entry's patterns (lists: a head, then the pattern that vetoes it) match a value."""
    return """entry_match(patterns, s) if {
  some p in patterns
  regex.match(p[0], s)
  not vetoed(p, s)
}

vetoed(p, s) if {
  count(p) == 2
  regex.match(p[1], s)
}"""


def _rules(head: str, patterns: tuple[str, ...], subject: str, *conditions: str) -> str:
    """One rule ``head`` per pattern (``alternations``): it holds when ``subject`` matches any of them."""
    return "\n\n".join(
        f"{head} if {{\n" + "".join(f"  {c}\n" for c in conditions) + f"  regex.match({raw(p)}, {subject})\n}}"
        for p in patterns
    )


def section(k: Knowledge) -> str:
    """The Rego rules that match the software and decide each container's tier and why."""
    return f"""# the alternations of every entry's patterns first: most containers match none
command_hits(cmd) := [s | cmd != ""; some_command(cmd); some s in software; entry_match(s.commands, cmd)]

{_rules("some_command(cmd)", alternations(k, "commands"), "cmd")}

image_hits(image, repo, tag) := [s | image != ""; some_image(repo, tag); some s in software; image_hit(s, repo, tag)]

{_rules("some_image(repo, tag)", alternations(k, "images"), "repo")}

{_rules("some_image(repo, tag)", alternations(k, "image_tags"), "tag", 'tag != ""')}

image_hit(s, repo, tag) if entry_match(s.images, repo)

image_hit(s, repo, tag) if {{
  tag != ""
  entry_match(s.tags, tag)
}}

{_pattern_rules()}

allowed(gpu, s) if gpu

# an entry that needs a number of counted GPUs (a launcher that starts one per GPU); -1 is uncounted; one process
# per GPU (perDevice) has no local peer on exactly one
enough(s, n) if {{
  s.minDevices == 0
  not one_of_many(s, n)
}}

enough(s, n) if {{
  s.minDevices > 0
  n >= s.minDevices
  not one_of_many(s, n)
}}

one_of_many(s, n) if {{
  s.perDevice
  n == 1
}}

allowed(gpu, s) if not s.acceleratorOnly

is_gpu(e) := true if gpu(e)
else := false

is_torch(e) := true if torch(e)
else := false

# each container's evidence, worked out once: the functions below only read these records
facts := [f |
  some e in entries
  cmd := concat(" ", words(e.c))
  g := is_gpu(e)
  n := device_total(e.c)
  commands := [s | some s in command_hits(cmd); enough(s, n)]
  images := [s | some s in image_hits(image(e.c), repo(e.c), tag(e.c)); enough(s, n)]
  hits := array.concat(commands, kept_image_hits(commands, images, cmd))
  candidates := [s | some s in hits; allowed(g, s)]
  t := is_torch(e)
  f := {{
    "e": e,
    "gpu": g,
    "torch": t,
    "tpu": is_tpu_alone(g, t, candidates, e),
    "free": [s | some s in commands; s.tier == 0; not needs_command(commands)],
    "candidates": candidates,
    "top": top(candidates),
    "devices": n,
  }}
]

# a command that says what really runs (a holder, a notebook) drops the image hits; an image whose entrypoint runs
# the command given is what runs only for a command of options or none (a pod has no terminal to type into)
kept_image_hits(commands, images, cmd) := [s | some s in images; not command_wins(commands); image_runs(s, cmd)]

image_runs(s, _) if s.runsCommand == false

image_runs(_, cmd) if startswith(cmd, "-")

image_runs(_, cmd) if cmd == ""

# a command that also starts software that needs /dev/shm keeps that need over a free one
needs_command(commands) if {{
  some c in commands
  c.tier == 2
}}

command_wins(commands) if {{
  some c in commands
  c.commandWins == true
}}

# every accelerator evidence the extractor writes (its text, as the linter searches it) is a TPU's
tpu_evidence(e) := array.concat(array.concat(
  [concat("", [name, " ", key, ": ", text(value)]) |
    some name in ["limits", "requests"]
    some key, value in section(e.c, name)
    regex.match({raw(k.gpu_resource)}, key)
    regex.match({raw(k.positive_count)}, text(value))
  ],
  [concat("", ["runtimeClassName: ", pod.spec.runtimeClassName]) | not e.init; gpu_runtime]),
  array.concat(
    [concat("", ["env ", v.name, "=", v.value]) | some v in env(e.c); v.name in {as_json(list(k.gpu_envs))}; not regex.match({raw(k.no_gpu_visible)}, v.value)],
    [concat("", ["hostPath ", v.hostPath.path]) | some m in object.get(e.c, "volumeMounts", []); some v in volumes; v.name == m.name; regex.match({raw(k.gpu_device)}, v.hostPath.path)],
  ),
)

# the linter's tpu_alone: TPUs only, nothing showing torch, no matched entry but host-centric ones
tpu_alone(g, t, candidates, e) if {{
  {"g" if k.tpu_alone_tier >= 0 else "false"}
  not t
  every x in tpu_evidence(e) {{ regex.match({raw(k.tpu_evidence)}, x) }}
  every s in candidates {{ s.hostCentric == true }}
}}

is_tpu_alone(g, t, candidates, e) := true if tpu_alone(g, t, candidates, e)
else := false

top(candidates) := t if {{
  tiers := [s.tier | some s in candidates]
  count(tiers) > 0
  t := max(tiers)
}} else := -1

tier(f) := -1 if {{
  not f.gpu
  not f.torch
}} else := 2 if {{
  loader
}} else := 0 if {{
  count(f.free) > 0
}} else := {k.tpu_alone_tier} if {{
  f.tpu
}} else := f.top if {{
  f.top >= 0
}} else := 1 if {{
  not f.gpu
}} else := {k.multi_device_tier} if {{
  f.devices >= {k.multi_device_min}
}} else := 1

what(f) := "a DataLoader with workers is declared" if {{
  loader
}} else := f.free[0].what if {{
  count(f.free) > 0
}} else := "TPUs and nothing that shows torch" if {{
  f.tpu
}} else := w if {{
  f.top >= 0
  w := [s.what | some s in f.candidates; s.tier == f.top][0]
}} else := concat("", [format_int(f.devices, 10), " GPUs in one container (NCCL or RCCL between local processes)"]) if {{
  f.gpu
  f.devices >= {k.multi_device_min}
}} else := "an accelerator request" if {{
  f.gpu
}} else := "torch\""""
