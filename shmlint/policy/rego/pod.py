"""The pod as the Rego rules read it (``input.review.object``): its annotations (exemptions and the DataLoader hint),
volumes and containers, and each container's GPU and torch evidence and device count, as the Kubernetes pod reader
and ``shmlint.containers.pod`` judge them."""

from __future__ import annotations

from shmlint.formats.kubernetes.device_claims import NAMED
from shmlint.formats.kubernetes.pod_reader import DATALOADER_ANNOTATION, IGNORE_ANNOTATION
from shmlint.policy.knowledge import Knowledge
from shmlint.policy.rego.spell import as_json, raw


def section(k: Knowledge) -> str:
    """The Rego rules that read the pod and its containers' evidence."""
    return f"""pod := input.review.object

annotations := object.get(pod.metadata, "annotations", {{}})

ignore := object.get(annotations, {as_json(IGNORE_ANNOTATION)}, "")

hint := object.get(annotations, {as_json(DATALOADER_ANNOTATION)}, "")

loader if {{
  regex.match({raw(k.dataloader_hint)}, hint)
  regex.match({raw(k.dataloader_workers)}, hint)
  regex.match(`(?:^|[\\s"'])batch=`, hint)
  regex.match(`(?:^|[\\s"'])sample=`, hint)
}}

volumes := object.get(pod.spec, "volumes", [])

host_ipc if pod.spec.hostIPC == true

gpu_runtime if regex.match({raw(k.gpu_runtime)}, object.get(pod.spec, "runtimeClassName", ""))

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
  regex.match({raw(k.gpu_resource)}, key)
  regex.match({raw(k.positive_count)}, text(value))
}}

gpu_env(c) if {{
  some e in env(c)
  e.name in {as_json(list(k.gpu_envs))}
  not regex.match({raw(k.no_gpu_visible)}, e.value)
}}

device(c) if {{
  some m in object.get(c, "volumeMounts", [])
  some v in volumes
  v.name == m.name
  regex.match({raw(k.gpu_device)}, v.hostPath.path)
}}

utility(c) if regex.match({raw(k.utility_command)}, first_word(c))

# GPUs given otherwise than by resources (``PodReader.granted``): the pod's share of one, for the container its
# annotation names or else the first; a resource claim whose names say it is a GPU's (its template is not read here)
shared_to := name if {{
  some a in {as_json(list(k.share_annotations))}
  is_string(annotations[a])
  not regex.match({raw(k.no_share)}, annotations[a])
  name := object.get(annotations, {as_json(k.shared_container)}, "")
  name != ""
}} else := pod.spec.containers[0].name if {{
  some a in {as_json(list(k.share_annotations))}
  is_string(annotations[a])
  not regex.match({raw(k.no_share)}, annotations[a])
}} else := ""

claim_target(rc) := t if {{
  some key in {as_json(list(NAMED))}
  t := rc[key]
  is_string(t)
}} else := ""

granted(e) if {{
  not e.init
  e.c.name == shared_to
}}

granted(e) if {{
  some cl in object.get(object.get(e.c, "resources", {{}}), "claims", [])
  some rc in object.get(pod.spec, "resourceClaims", [])
  rc.name == cl.name
  regex.match({raw(k.gpu_claim)}, concat(" ", [rc.name, claim_target(rc)]))
}}

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

gpu(e) if {{
  not utility(e.c)
  granted(e)
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
  regex.match({raw(k.counted_resource)}, key)
  known := [x | some name in ["limits", "requests"]; x := device_count(object.get(section(c, name), key, "")); x >= 0]
  count(known) > 0
  n := max(known)
]

env_counts(c) := [n |
  some e in env(c)
  e.name in {as_json(list(k.counted_envs))}
  not regex.match({raw(k.no_gpu_visible)}, e.value)
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
  any_match({as_json(list(k.torch_images))}, repo(c))
}}

non_workload_tag(c) if {{
  tag(c) != ""
  regex.match({raw(k.non_workload_tag)}, tag(c))
}}

torch(e) if {{
  not utility(e.c)
  torch_image(e.c)
}}

torch(e) if {{
  not utility(e.c)
  any_match({as_json(list(k.torch_commands))}, concat(" ", words(e.c)))
}}"""
