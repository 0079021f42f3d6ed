"""The linter's pod rules as Rego, for a Gatekeeper ConstraintTemplate: the same decisions as ``shmlint.policy.cel``
(and as ``shmlint check`` on a Kubernetes container), in Rego's own terms. The knowledge is embedded as JSON data;
every pattern is RE2 (``regex.match`` is Go's ``regexp``). Rego v0 syntax with the ``future.keywords`` imports,
which every Gatekeeper release with Rego support reads.
"""

from __future__ import annotations

import json

from shmlint.formats.kubernetes.pod_reader import DATALOADER_ANNOTATION, IGNORE_ANNOTATION
from shmlint.policy.knowledge import (
    HOST_IPC,
    HOST_SHM_MOUNT,
    MISSING_SHM,
    NCCL_SHM_DISABLED,
    SHM_UNBOUNDED,
    Knowledge,
    RuleInfo,
    alternation,
    judged,
)
from shmlint.policy.messages import BOUNDED, TEMPLATES, parts
from shmlint.rules.rule import Rule
from shmlint.runtime.nccl import SHM_DISABLE
from shmlint.severity import Severity

PACKAGE = "shmlint"


def _raw(pattern: str) -> str:
    """A Rego raw string (no escapes to get wrong), or a JSON string for a pattern that holds a backtick."""
    return _json(pattern) if "`" in pattern else f"`{pattern}`"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _render(template: str) -> str:
    return 'concat("", [' + ", ".join(f"f.{text}" if field else _json(text) for field, text in parts(template)) + "])"


def _ignored(rule: RuleInfo) -> str:
    code = _raw("(?i)(?:^|,)[\\s\\v]*" + rule.code + "[\\s\\v]*(?:,|\\z)")
    slug = _raw("(?:^|,)[\\s\\v]*" + rule.slug + "[\\s\\v]*(?:,|\\z)")
    return (
        f"ignored({_json(rule.code)}) if regex.match({code}, ignore)\n\n"
        f"ignored({_json(rule.code)}) if regex.match({slug}, ignore)"
    )


def _violation(rule: RuleInfo, severity: str, template: str, condition: str = "") -> str:
    code = _json(rule.code)
    return (
        f'violation[{{"msg": msg, "details": {{"code": {code}, "container": f.name}}}}] {{\n'
        f"  not ignored({code})\n  some f in findings\n  f.{rule.code}\n{condition}"
        f'  msg := concat("", [{_json(f"{rule.code} {rule.slug} ({severity}): ")}, {_render(template)}])\n}}'
    )


def _violations(k: Knowledge) -> str:
    """One rule per reported finding; the missing-shm rule's undecided findings (tier 1) only when the
    ``undecided`` setting lists them."""
    rules = []
    for rule in judged(k):
        if rule.code == SHM_UNBOUNDED.code:  # a memory limit bounds it: info, naming the limit
            rules.append(_violation(rule, Severity.INFO.label, TEMPLATES[(rule.code, BOUNDED)], "  f.bounded\n"))
            rules.append(_violation(rule, rule.severity, TEMPLATES[(rule.code, None)], "  not f.bounded\n"))
            continue
        if rule.code != MISSING_SHM.code:
            rules.append(_violation(rule, rule.severity, TEMPLATES[(rule.code, None)]))
            continue
        rules.append(_violation(rule, rule.severity, TEMPLATES[(rule.code, 2)], "  f.tier == 2\n"))
        if rule.undecided:
            rules.append(_violation(rule, rule.undecided, TEMPLATES[(rule.code, 1)], "  f.tier == 1\n"))
    return "\n\n".join(rules)


def _name(rule: RuleInfo | Rule) -> str:
    """The Rego function that decides a rule for one container record."""
    return rule.code.lower()


def _records(k: Knowledge) -> str:
    """Each judged rule's verdict as a boolean (a Rego function is undefined, not false, where it does not hold)
    and as a field of the finding records."""
    return "\n\n".join(f"is_{_name(rule)}(r) := true if {_name(rule)}(r)\nelse := false" for rule in judged(k))


def _fields(k: Knowledge) -> str:
    return "".join(f"    {_json(rule.code)}: is_{_name(rule)}(r),\n" for rule in judged(k))


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


def module(k: Knowledge) -> str:
    """The Rego module of the ConstraintTemplate."""
    software = [
        {
            "id": entry.id,
            "tier": entry.tier,
            "what": entry.what,
            "commands": [[part for part in pattern if part is not None] for pattern in entry.commands],
            "images": [[part for part in pattern if part is not None] for pattern in entry.images],
            "tags": [[part for part in pattern if part is not None] for pattern in entry.image_tags],
            "acceleratorOnly": entry.accelerator_only,
            "commandWins": entry.command_wins,
            "imageWide": entry.image_wide,
            "hostCentric": entry.host_centric,
            "minDevices": entry.min_devices,
        }
        for entry in k.software
    ]
    memory = r"(?:^[\s\v]*Memory[\s\v]*\z)"
    ignores = "\n".join(_ignored(rule) for rule in judged(k))
    missing, unbounded, host_ipc, host_shm, nccl = (
        _name(rule) for rule in (MISSING_SHM, SHM_UNBOUNDED, HOST_IPC, HOST_SHM_MOUNT, NCCL_SHM_DISABLED)
    )
    return f"""package {PACKAGE}

import future.keywords.contains
import future.keywords.every
import future.keywords.if
import future.keywords.in

# Generated by `shmlint policy` from the linter's catalog and tier data: do not edit, regenerate.

software := {_json(software)}

pod := input.review.object

annotations := object.get(pod.metadata, "annotations", {{}})

ignore := object.get(annotations, {_json(IGNORE_ANNOTATION)}, "")

hint := object.get(annotations, {_json(DATALOADER_ANNOTATION)}, "")

loader if {{
  regex.match({_raw(k.dataloader_hint)}, hint)
  regex.match({_raw(k.dataloader_workers)}, hint)
  regex.match(`(?:^|[\\s"'])batch=`, hint)
  regex.match(`(?:^|[\\s"'])sample=`, hint)
}}

volumes := object.get(pod.spec, "volumes", [])

host_ipc if pod.spec.hostIPC == true

gpu_runtime if regex.match({_raw(k.gpu_runtime)}, object.get(pod.spec, "runtimeClassName", ""))

owner := concat("", ["Pod/", name]) if {{
  name := object.get(pod.metadata, "name", "")
  name != ""
}} else := concat("", ["Pod/", name]) if {{
  name := object.get(pod.metadata, "generateName", "")
  name != ""
}} else := "Pod/?"

entries := array.concat(
  [{{"c": c, "init": false}} | some c in object.get(pod.spec, "containers", [])],
  [{{"c": c, "init": true}} | some c in object.get(pod.spec, "initContainers", [])],
)

words(c) := [w | some w in array.concat(object.get(c, "command", []), object.get(c, "args", [])); w != ""]

first_word(c) := w if {{
  ws := words(c)
  count(ws) > 0
  w := ws[0]
}} else := ""

display(e) := concat("", [owner, ", init container \\"", e.c.name, "\\""]) if e.init
else := concat("", [owner, ", container \\"", e.c.name, "\\""])

image(c) := object.get(c, "image", "")

ref(c) := split(image(c), "@")[0]

last_colon(s) := i if {{
  found := indexof_n(s, ":")
  count(found) > 0
  i := found[count(found) - 1]
}} else := -1

last_slash(s) := i if {{
  found := indexof_n(s, "/")
  count(found) > 0
  i := found[count(found) - 1]
}} else := -1

repo(c) := substring(r, 0, last_colon(r)) if {{
  r := ref(c)
  last_colon(r) > last_slash(r)
}} else := ref(c)

tag(c) := substring(r, last_colon(r) + 1, -1) if {{
  r := ref(c)
  last_colon(r) > last_slash(r)
}} else := ""

any_match(patterns, s) if {{
  some p in patterns
  regex.match(p, s)
}}

section(c, name) := object.get(object.get(c, "resources", {{}}), name, {{}})

text(v) := sprintf("%v", [v])

env(c) := [e | some e in object.get(c, "env", []); is_string(object.get(e, "value", null))]

gpu_resource(c) if {{
  some name in ["limits", "requests"]
  some key, value in section(c, name)
  regex.match({_raw(k.gpu_resource)}, key)
  regex.match({_raw(k.positive_count)}, text(value))
}}

gpu_env(c) if {{
  some e in env(c)
  e.name in {_json(list(k.gpu_envs))}
  not regex.match({_raw(k.no_gpu_visible)}, e.value)
}}

device(c) if {{
  some m in object.get(c, "volumeMounts", [])
  some v in volumes
  v.name == m.name
  regex.match({_raw(k.gpu_device)}, v.hostPath.path)
}}

utility(c) if regex.match({_raw(k.utility_command)}, first_word(c))

gpu(e) if {{
  not utility(e.c)
  gpu_resource(e.c)
}}

gpu(e) if {{
  not utility(e.c)
  not e.init
  gpu_runtime
}}

gpu(e) if {{
  not utility(e.c)
  gpu_env(e.c)
}}

gpu(e) if {{
  not utility(e.c)
  device(e.c)
}}

device_count(v) := to_number(s) if {{
  s := text(v)
  regex.match(`^[0-9]{{1,9}}\\z`, s)
}} else := -1

env_count(v) := -1 if {{
  regex.match(`[$]`, v)
}} else := -1 if {{
  regex.match(`(?i)^[\\s'"]*all[\\s'"]*\\z`, v)
}} else := to_number(v) if {{
  regex.match(`^[0-9]{{1,9}}\\z`, v)
}} else := -1 if {{
  contains(v, "=")
}} else := n if {{
  items := [i | some i in split(v, ","); not regex.match(`^[\\s'"]*\\z`, i)]
  n := count(items)
}}

resource_counts(c) := [n |
  keys := {{key | some key, _ in section(c, "limits")}} | {{key | some key, _ in section(c, "requests")}}
  some key in keys
  regex.match({_raw(k.counted_resource)}, key)
  known := [x | some name in ["limits", "requests"]; x := device_count(object.get(section(c, name), key, "")); x >= 0]
  count(known) > 0
  n := max(known)
]

env_counts(c) := [n |
  some e in env(c)
  e.name in {_json(list(k.counted_envs))}
  not regex.match({_raw(k.no_gpu_visible)}, e.value)
  n := env_count(e.value)
  n >= 0
]

device_total(c) := n if {{
  counts := resource_counts(c)
  count(counts) > 0
  n := sum(counts)
}} else := n if {{
  counts := env_counts(c)
  count(counts) > 0
  n := max(counts)
}} else := -1

torch_image(c) if {{
  image(c) != ""
  not non_workload_tag(c)
  any_match({_json(list(k.torch_images))}, repo(c))
}}

non_workload_tag(c) if {{
  tag(c) != ""
  regex.match({_raw(k.non_workload_tag)}, tag(c))
}}

torch(e) if {{
  not utility(e.c)
  torch_image(e.c)
}}

torch(e) if {{
  not utility(e.c)
  any_match({_json(list(k.torch_commands))}, concat(" ", words(e.c)))
}}

# the alternation of every entry's patterns first: most containers match none
command_hits(cmd) := [s | cmd != ""; regex.match({_raw(alternation(k, "commands"))}, cmd); some s in software; entry_match(s.commands, cmd)]

image_hits(image, repo, tag) := [s | image != ""; some_image(repo, tag); some s in software; image_hit(s, repo, tag)]

some_image(repo, tag) if regex.match({_raw(alternation(k, "images"))}, repo)

some_image(repo, tag) if {{
  tag != ""
  regex.match({_raw(alternation(k, "image_tags"))}, tag)
}}

image_hit(s, repo, tag) if entry_match(s.images, repo)

image_hit(s, repo, tag) if {{
  tag != ""
  entry_match(s.tags, tag)
}}

{_pattern_rules()}

allowed(gpu, s) if gpu

# an entry that needs a number of counted GPUs (a launcher that starts one per GPU); -1 is uncounted
enough(s, n) if s.minDevices == 0

enough(s, n) if {{
  s.minDevices > 0
  n >= s.minDevices
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
  hits := array.concat(commands, kept_image_hits(commands, images))
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

# a command that says what really runs (a holder, a notebook) keeps only image_wide image hits
kept_image_hits(commands, images) := [s | some s in images; keeps_image(commands, s)]

keeps_image(commands, s) if s.imageWide == true

keeps_image(commands, s) if not command_wins(commands)

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
    regex.match({_raw(k.gpu_resource)}, key)
    regex.match({_raw(k.positive_count)}, text(value))
  ],
  [concat("", ["runtimeClassName: ", pod.spec.runtimeClassName]) | not e.init; gpu_runtime]),
  array.concat(
    [concat("", ["env ", v.name, "=", v.value]) | some v in env(e.c); v.name in {_json(list(k.gpu_envs))}; not regex.match({_raw(k.no_gpu_visible)}, v.value)],
    [concat("", ["hostPath ", v.hostPath.path]) | some m in object.get(e.c, "volumeMounts", []); some v in volumes; v.name == m.name; regex.match({_raw(k.gpu_device)}, v.hostPath.path)],
  ),
)

# the linter's tpu_alone: TPUs only, nothing showing torch, no matched entry but host-centric ones
tpu_alone(g, t, candidates, e) if {{
  {"g" if k.tpu_alone_tier >= 0 else "false"}
  not t
  every x in tpu_evidence(e) {{ regex.match({_raw(k.tpu_evidence)}, x) }}
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
}} else := "torch"

shm_mounts(c) := [m.name | some m in object.get(c, "volumeMounts", []); regex.match({_raw(k.shm_path)}, m.mountPath)]

named(n) := [v | some v in volumes; v.name == n]

memory_volume(v) if regex.match({_raw(memory)}, v.emptyDir.medium)

meant := [ms[0] | some e in entries; ms := shm_mounts(e.c); count(ms) > 0; count(named(ms[0])) > 0]

meant_memory if {{
  count(meant) > 0
  vs := named(meant[0])
  every v in vs {{ memory_volume(v) }}
}}

meant_memory if {{
  count(meant) == 0
  some v in volumes
  regex.match(`(?i)shm`, v.name)
  memory_volume(v)
}}

mount_volumes(c) := vs if {{
  ms := shm_mounts(c)
  count(ms) > 0
  vs := named(ms[0])
}} else := []

uses(r) if r.tier >= 1

claims(r) if r.tier == 2

claims(r) if {{
  r.tier == 1
  r.gpu
}}

{missing}(r) if {{
  claims(r)
  not host_ipc
  count(r.mounts) > 0
  count(r.volumes) == 0
}}

{missing}(r) if {{
  claims(r)
  not host_ipc
  count(r.mounts) == 0
  not meant_memory
}}

{unbounded}(r) if {{
  uses(r)
  count(r.volumes) > 0
  every v in r.volumes {{
    memory_volume(v)
    not v.emptyDir.sizeLimit
  }}
}}

{host_ipc}(r) if {{
  uses(r)
  host_ipc
}}

{host_shm}(r) if {{
  uses(r)
  count(r.volumes) > 0
  every v in r.volumes {{
    not v.emptyDir
    regex.match({_raw(k.host_shm)}, v.hostPath.path)
  }}
}}

{nccl}(r) if {{
  uses(r)
  count(r.nccl) > 0
}}

nccl_values(c) := [e.value | some e in env(c); e.name == {_json(SHM_DISABLE)}; regex.match({_raw(k.nccl_disables)}, e.value)]

last_volume(vs) := vs[count(vs) - 1] if count(vs) > 0
else := {{}}

# what each rule reads of a container: its tier and evidence, its /dev/shm mount and volumes
records := [r |
  some f in facts
  r := {{
    "e": f.e,
    "gpu": f.gpu,
    "tier": tier(f),
    "what": what(f),
    "mounts": shm_mounts(f.e.c),
    "volumes": mount_volumes(f.e.c),
    "nccl": nccl_values(f.e.c),
  }}
]

{_records(k)}

findings := [f |
  some r in records
  last := last_volume(r.volumes)
  memory := text(object.get(section(r.e.c, "limits"), "memory", ""))
  f := {{
    "name": r.e.c.name,
    "display": display(r.e),
    "init": r.e.init,
    "image": image(r.e.c),
    "tier": r.tier,
    "what": r.what,
    "memory": memory,
    "bounded": regex.match({_raw(k.positive_quantity)}, memory),
{_fields(k)}    "volumeName": object.get(last, "name", ""),
    "hostPath": object.get(object.get(last, "hostPath", {{}}), "path", ""),
    "nccl": concat("", array.slice(r.nccl, 0, 1)),
  }}
]

{ignores}

{_violations(k)}
"""
