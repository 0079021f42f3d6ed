"""The linter's pod rules as Kubernetes CEL: the variables both admission policies share, the validations of the
ValidatingAdmissionPolicy and the apply configuration of the MutatingAdmissionPolicy (and Kyverno's
MutatingPolicy, which takes the same CEL).

Each container is judged as ``shmlint check`` judges a Kubernetes container (``shmlint/formats/kubernetes/extract.py``,
``shmlint/need.py``, the rules SHM001/003/007/008/012): the variables build one record per container in stages
(CEL has no functions of its own and a map literal cannot read its own fields), each stage carrying the fields the
later ones read. Beyond core CEL the expressions use only Kubernetes' CEL libraries: ``join``, ``split``,
``lastIndexOf``, ``substring`` (strings), ``sum`` (lists), and ``quantity(...).isInteger()/.asInteger()`` for the
memory limit that caps the size the mutation writes.
"""

from __future__ import annotations

from shmlint.formats.kubernetes.device_claims import NAMED
from shmlint.formats.kubernetes.pod_reader import DATALOADER_ANNOTATION, IGNORE_ANNOTATION
from shmlint.named_tuple import NamedTuple
from shmlint.policy.knowledge import (
    HOST_IPC,
    HOST_SHM_MOUNT,
    MISSING_SHM,
    NCCL_SHM_DISABLED,
    SHM_UNBOUNDED,
    Knowledge,
    RuleInfo,
    alternations,
    judged,
    rule_info,
)
from shmlint.policy.messages import INFO_VARIANTS, OWN_SHM, TEMPLATES, parts
from shmlint.policy.re2 import Re2Pattern
from shmlint.runtime.nccl import SHM_DISABLE
from shmlint.runtime.shm import SHM_PATH
from shmlint.severity import Severity

#: the volume the mutation adds; a name of its own, so that it never merges into a volume the pod has
VOLUME = "shmlint-dshm"
#: what joins the messages of several containers in one warning
SEPARATOR = " | "
MIB = 1024 * 1024


class Validation(NamedTuple):
    code: str
    expression: str  # true: the pod passes
    message: str  # messageExpression: one message per container, joined by SEPARATOR


def q(text: str) -> str:
    """A CEL string literal."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return f"'{escaped}'"


def _list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(q(item) for item in items) + "]"


def _map(fields: dict[str, str]) -> str:
    """A map literal whose values are ``dyn``: the API server type-checks with homogeneous aggregate literals, so
    a record of strings, booleans and lists must say its values are dynamic."""
    return "{" + ", ".join(f"{q(key)}: dyn({value})" for key, value in fields.items()) + "}"


def _pairs(patterns: tuple[Re2Pattern, ...]) -> str:
    """Each pattern as a list: its head, then the pattern that vetoes it (when it has one)."""
    return "[" + ", ".join(_list([part for part in pattern if part is not None]) for pattern in patterns) + "]"


def entry_matches(field: str, subject: str) -> str:
    """An entry's patterns of one field (as ``_pairs`` writes them) match ``subject``: a head matches and its veto
    does not."""
    return f"{field}.exists(p, {subject}.matches(p[0]) && (p.size() == 1 || !{subject}.matches(p[1])))"


def _any_match(patterns: tuple[str, ...], subject: str) -> str:
    """One pattern for a list (each keeps its flags in its group): one compilation per call instead of one each."""
    return f"{subject}.matches({q('|'.join(f'(?:{p})' for p in patterns))})" if patterns else "false"


def _matches_in_turn(patterns: tuple[str, ...], subject: str) -> str:
    """``subject`` matches one of ``patterns`` (``alternations``: each compiled once, tried in turn)."""
    return " || ".join(f"{subject}.matches({q(pattern)})" for pattern in patterns)


def _software(knowledge: Knowledge) -> str:
    return (
        "["
        + ", ".join(
            _map(
                {
                    "id": q(entry.id),
                    "tier": str(entry.tier),
                    "what": q(entry.what),
                    "commands": _pairs(entry.commands),
                    "images": _pairs(entry.images),
                    "tags": _pairs(entry.image_tags),
                    "acceleratorOnly": "true" if entry.accelerator_only else "false",
                    "commandWins": "true" if entry.command_wins else "false",
                    "hostCentric": "true" if entry.host_centric else "false",
                    "minDevices": str(entry.min_devices),
                    "perDevice": "true" if entry.per_device else "false",
                    "runsCommand": "true" if entry.runs_command else "false",
                }
            )
            for entry in knowledge.software
        )
        + "]"
    )


def _container(k: Knowledge, init: bool) -> str:
    """Stage 0: what one container says, read from the pod as the extractor reads it."""
    c = "c"
    words = f"((has({c}.command) ? {c}.command : []) + (has({c}.args) ? {c}.args : [])).filter(w, w != '')"
    limits = f"(has({c}.resources) && has({c}.resources.limits) ? {c}.resources.limits : {{}})"
    requests = f"(has({c}.resources) && has({c}.resources.requests) ? {c}.resources.requests : {{}})"
    env = f"(has({c}.env) ? {c}.env.filter(e, has(e.value)) : [])"

    def count(value: str) -> str:  # ``device_count`` of a resource quantity: -1 when it does not say
        return f"(string({value}).matches('^[0-9]{{1,9}}\\\\z') ? int(string({value})) : -1)"

    def section_gpu(section: str) -> str:
        return f"{section}.exists(k, k.matches({q(k.gpu_resource)}) && string({section}[k]).matches({q(k.positive_count)}))"

    counted = (
        f"{limits}.filter(k, k.matches({q(k.counted_resource)}) && {count(f'{limits}[k]')} >= 0)"
        f".map(k, k in {requests} && {count(f'{requests}[k]')} > {count(f'{limits}[k]')}"
        f" ? {count(f'{requests}[k]')} : {count(f'{limits}[k]')})"
        f" + {requests}.filter(k, k.matches({q(k.counted_resource)}) && {count(f'{requests}[k]')} >= 0"
        f" && !(k in {limits} && {count(f'{limits}[k]')} >= 0)).map(k, {count(f'{requests}[k]')})"
    )
    env_count = (
        "(e.value.matches('[$]') || e.value.matches('(?i)^[\\\\s\\'\"]*all[\\\\s\\'\"]*\\\\z') ? -1"
        " : e.value.matches('^[0-9]{1,9}\\\\z') ? int(e.value)"
        " : e.value.matches('=') ? -1"
        " : e.value.split(',').filter(i, !i.matches('^[\\\\s\\'\"]*\\\\z')).size())"
    )
    image = f"(has({c}.image) ? {c}.image : '')"
    claimed_from = "".join(f"has(rc.{key}) ? rc.{key} : " for key in NAMED) + "''"
    kind = "init container" if init else "container"
    tpu = q(k.tpu_evidence)
    # every accelerator evidence the extractor writes (its text, as ``need`` searches it) is a TPU's
    tpu_only = " && ".join(
        [
            f"{sec}.filter(k, k.matches({q(k.gpu_resource)}) && string({sec}[k]).matches({q(k.positive_count)}))"
            f".all(k, ({q(name + ' ')} + k + ': ' + string({sec}[k])).matches({tpu}))"
            for name, sec in (("limits", limits), ("requests", requests))
        ]
        + (
            []
            if init
            else [f"(!variables.gpuRuntime || ('runtimeClassName: ' + object.spec.runtimeClassName).matches({tpu}))"]
        )
        + [
            f"{env}.filter(e, e.name in {_list(k.gpu_envs)} && !e.value.matches({q(k.no_gpu_visible)}))"
            f".all(e, ('env ' + e.name + '=' + e.value).matches({tpu}))",
            f"(!has({c}.volumeMounts) || {c}.volumeMounts.all(m, variables.volumes.filter(v, v.name == m.name"
            f" && has(v.hostPath) && has(v.hostPath.path) && v.hostPath.path.matches({q(k.gpu_device)}))"
            f".all(v, ('hostPath ' + v.hostPath.path).matches({tpu}))))",
        ]
    )
    return _map(
        {
            "name": f"{c}.name",
            "display": f"variables.owner + {q(f', {kind} ')} + '\"' + {c}.name + '\"'",
            "init": "true" if init else "false",
            "cmd": f"{words}.join(' ')",
            "first": f"{words}.size() > 0 ? {words}[0] : ''",
            "image": image,
            "ref": f"{image}.split('@')[0]",
            "gpuResource": f"({section_gpu(limits)} || {section_gpu(requests)})",
            "gpuEnv": f"{env}.exists(e, e.name in {_list(k.gpu_envs)} && !e.value.matches({q(k.no_gpu_visible)}))",
            "tpuOnly": tpu_only,
            "device": (
                f"has({c}.volumeMounts) && {c}.volumeMounts.exists(m, variables.volumes.exists(v, v.name == m.name"
                f" && has(v.hostPath) && has(v.hostPath.path) && v.hostPath.path.matches({q(k.gpu_device)})))"
            ),
            "resourceCounts": counted,
            "envCounts": (
                f"{env}.filter(e, e.name in {_list(k.counted_envs)} && !e.value.matches({q(k.no_gpu_visible)}))"
                f".map(e, {env_count}).filter(n, n >= 0)"
            ),
            "mounts": (
                f"has({c}.volumeMounts) ? {c}.volumeMounts.filter(m, m.mountPath.matches({q(k.shm_path)}))"
                ".map(m, m.name) : []"
            ),
            "nccl": f"{env}.filter(e, e.name == {q(SHM_DISABLE)} && e.value.matches({q(k.nccl_disables)})).map(e, e.value)",
            # GPUs given otherwise than by resources (``PodReader.granted``): the pod's share of one, and a resource
            # claim that its names say is a GPU's (the claim's template is another object: not read at admission)
            "granted": (
                ("false" if init else f"{c}.name == variables.sharedTo")
                + f" || (has({c}.resources) && has({c}.resources.claims) && has(object.spec.resourceClaims)"
                f" && {c}.resources.claims.exists(cl, object.spec.resourceClaims.exists(rc, rc.name == cl.name"
                f" && (rc.name + ' ' + {claimed_from}).matches({q(k.gpu_claim)}))))"
            ),
            "memory": (
                f"has({c}.resources) && has({c}.resources.limits) && 'memory' in {c}.resources.limits"
                f" ? string({c}.resources.limits['memory']) : ''"
            ),
        }
    )


def _stage(previous: str, carried: tuple[str, ...], new: dict[str, str]) -> str:
    fields = {name: f"f.{name}" for name in carried}
    fields.update(new)
    return f"{previous}.map(f, {_map(fields)})"


_STAGE1 = (
    "name",
    "display",
    "init",
    "cmd",
    "image",
    "mounts",
    "nccl",
    "memory",
    "repo",
    "tag",
    "utility",
    "gpu",
    "count",
    "tpuOnly",
)


def variables(k: Knowledge) -> list[tuple[str, str]]:
    """(name, expression) in order: each may read the ones before it."""
    volume_memory = "(has(v.emptyDir) && has(v.emptyDir.medium) && v.emptyDir.medium.matches('^[\\\\s\\\\v]*Memory[\\\\s\\\\v]*\\\\z'))"
    hint = "variables.hint"
    cands = "f.candidates"
    # an entry that needs a number of counted GPUs (a launcher that starts one process per GPU): -1 is uncounted
    enough = "((e.minDevices == 0 || f.count >= e.minDevices) && !(e.perDevice && f.count == 1))"
    # need._tpu_alone: TPUs only, nothing showing torch, no matched entry but host-centric ones
    tpu_alone = (
        f"(f.gpu && !f.torch && f.tpuOnly && {cands}.all(e, e.hostCentric))" if k.tpu_alone_tier >= 0 else "false"
    )
    return [
        ("annotations", "has(object.metadata.annotations) ? object.metadata.annotations : {}"),
        (
            "ignore",
            f"{q(IGNORE_ANNOTATION)} in variables.annotations ? variables.annotations[{q(IGNORE_ANNOTATION)}] : ''",
        ),
        (
            "hint",
            f"{q(DATALOADER_ANNOTATION)} in variables.annotations ? variables.annotations[{q(DATALOADER_ANNOTATION)}] : ''",
        ),
        (
            "loader",
            f"{hint}.matches({q(k.dataloader_hint)}) && {hint}.matches({q(k.dataloader_workers)})"
            f" && {hint}.matches('(?:^|[\\\\s\"\\'])batch=') && {hint}.matches('(?:^|[\\\\s\"\\'])sample=')",
        ),
        ("volumes", "has(object.spec.volumes) ? object.spec.volumes : []"),
        ("hostIPC", "has(object.spec.hostIPC) && object.spec.hostIPC == true"),
        (
            "gpuRuntime",
            f"has(object.spec.runtimeClassName) && object.spec.runtimeClassName.matches({q(k.gpu_runtime)})",
        ),
        (
            "owner",
            "'Pod/' + (has(object.metadata.name) && object.metadata.name != '' ? object.metadata.name"
            " : has(object.metadata.generateName) && object.metadata.generateName != '' ? object.metadata.generateName : '?')",
        ),
        ("software", _software(k)),
        (
            "sharedTo",  # the container a share of one GPU is for ('': none asked for)
            f"{_list(k.share_annotations)}.exists(a, a in variables.annotations"
            f" && !string(variables.annotations[a]).matches({q(k.no_share)}))"
            f" ? ({q(k.shared_container)} in variables.annotations && variables.annotations[{q(k.shared_container)}] != ''"
            f" ? variables.annotations[{q(k.shared_container)}] : object.spec.containers[0].name) : ''",
        ),
        (
            "containers",
            f"object.spec.containers.map(c, {_container(k, False)}) + (has(object.spec.initContainers)"
            f" ? object.spec.initContainers.map(c, {_container(k, True)}) : [])",
        ),
        (
            "meantMemory",
            "variables.containers.filter(f, f.mounts.size() > 0 && variables.volumes.exists(v, v.name == f.mounts[0]))"
            ".map(f, f.mounts[0]).size() > 0"
            " ? variables.volumes.filter(v, v.name == variables.containers.filter(f, f.mounts.size() > 0"
            " && variables.volumes.exists(v, v.name == f.mounts[0])).map(f, f.mounts[0])[0]).all(v, "
            + volume_memory
            + ")"
            " : variables.volumes.exists(v, v.name.matches('(?i)shm') && " + volume_memory + ")",
        ),
        (
            "facts1",
            _stage(
                "variables.containers",
                ("name", "display", "init", "cmd", "image", "mounts", "nccl", "memory", "tpuOnly"),
                {
                    "repo": "f.ref.lastIndexOf(':') > f.ref.lastIndexOf('/') ? f.ref.substring(0, f.ref.lastIndexOf(':')) : f.ref",
                    "tag": "f.ref.lastIndexOf(':') > f.ref.lastIndexOf('/') ? f.ref.substring(f.ref.lastIndexOf(':') + 1) : ''",
                    "utility": f"f.first.matches({q(k.utility_command)})",
                    "gpu": f"!f.first.matches({q(k.utility_command)}) && (f.gpuResource || (!f.init && variables.gpuRuntime) || f.gpuEnv || f.device || f.granted)",
                    "count": (
                        "f.resourceCounts.size() > 0 ? f.resourceCounts.sum() : f.envCounts.size() > 0"
                        " ? f.envCounts.filter(n, f.envCounts.all(m, n >= m))[0] : -1"
                    ),
                },
            ),
        ),
        (
            "facts2",
            _stage(
                "variables.facts1",
                _STAGE1,
                {
                    "torch": (
                        f"!f.utility && ((f.image != '' && !(f.tag != '' && f.tag.matches({q(k.non_workload_tag)}))"
                        f" && {_any_match(k.torch_images, 'f.repo')}) || {_any_match(k.torch_commands, 'f.cmd')})"
                    ),
                    # the alternation of every entry's patterns first: most containers match none, and one
                    # pattern is compiled instead of all
                    "commandHits": (
                        f"f.cmd != '' && ({_matches_in_turn(alternations(k, 'commands'), 'f.cmd')})"
                        f" ? variables.software.filter(e, {enough} && {entry_matches('e.commands', 'f.cmd')}) : []"
                    ),
                    "imageHits": (
                        f"f.image != '' && ({_matches_in_turn(alternations(k, 'images'), 'f.repo')}"
                        f" || (f.tag != '' && ({_matches_in_turn(alternations(k, 'image_tags'), 'f.tag')})))"
                        f" ? variables.software.filter(e, {enough} && ({entry_matches('e.images', 'f.repo')}"
                        f" || (f.tag != '' && {entry_matches('e.tags', 'f.tag')}))) : []"
                    ),
                },
            ),
        ),
        (
            "facts3",
            _stage(
                "variables.facts2",
                (
                    "name",
                    "display",
                    "init",
                    "cmd",
                    "image",
                    "mounts",
                    "nccl",
                    "memory",
                    "gpu",
                    "torch",
                    "count",
                    "tpuOnly",
                ),
                {
                    # a command that also starts software that needs /dev/shm keeps that need
                    "freeCommand": "f.commandHits.exists(e, e.tier == 2) ? [] : f.commandHits.filter(e, e.tier == 0)",
                    # a command that says what really runs (a holder, a notebook) drops the image hits
                    "candidates": (
                        "(f.commandHits + (f.commandHits.exists(e, e.commandWins) ? []"
                        " : f.imageHits.filter(e, !e.runsCommand || f.cmd == '' || f.cmd.startsWith('-'))))"
                        ".filter(e, f.gpu || !e.acceleratorOnly)"
                    ),
                },
            ),
        ),
        (
            "facts",
            _stage(
                "variables.facts3",
                ("name", "display", "init", "image", "mounts", "nccl", "memory", "gpu"),
                {
                    # need.decide: not GPU/torch work (-1); a declared loader; a free command; the strongest entry
                    # (the first of equals); unknown on the CPU; several counted GPUs; unknown
                    "tier": (
                        "!(f.gpu || f.torch) ? -1 : variables.loader ? 2 : f.freeCommand.size() > 0 ? 0"
                        f" : {tpu_alone} ? {k.tpu_alone_tier}"
                        f" : {cands}.exists(e, e.tier == 2) ? 2 : {cands}.exists(e, e.tier == 1) ? 1 : {cands}.size() > 0 ? 0"
                        f" : !f.gpu ? 1 : f.count >= {k.multi_device_min} ? {k.multi_device_tier} : 1"
                    ),
                    "what": (
                        "variables.loader ? 'a DataLoader with workers is declared' : f.freeCommand.size() > 0"
                        f" ? f.freeCommand[0].what : {tpu_alone} ? 'TPUs and nothing that shows torch'"
                        f" : {cands}.exists(e, e.tier == 2) ? {cands}.filter(e, e.tier == 2)[0].what"
                        f" : {cands}.exists(e, e.tier == 1) ? {cands}.filter(e, e.tier == 1)[0].what"
                        f" : {cands}.size() > 0 ? {cands}[0].what"
                        f" : f.gpu && f.count >= {k.multi_device_min} ? string(f.count) + ' GPUs in one container (NCCL or RCCL between local processes)'"
                        " : f.gpu ? 'an accelerator request' : 'torch'"
                    ),
                },
            ),
        ),
        (
            "judged",
            _stage(
                "variables.facts",
                ("name", "display", "init", "image", "nccl", "memory", "tier", "what"),
                {
                    "uses": "f.tier >= 1",
                    "claims": "f.tier == 2 || (f.tier == 1 && f.gpu)",
                    "volume": "f.mounts.size() > 0 ? variables.volumes.filter(v, v.name == f.mounts[0]) : []",
                    "mounted": "f.mounts.size() > 0",
                },
            ),
        ),
        (
            "findings",
            _stage(
                "variables.judged",
                ("name", "display", "init", "image", "memory", "tier", "what"),
                {
                    "bounded": f"f.memory.matches({q(k.positive_quantity)})",
                    MISSING_SHM.code: (
                        "f.claims && !variables.hostIPC && (f.mounted ? f.volume.size() == 0 : !variables.meantMemory)"
                    ),
                    SHM_UNBOUNDED.code: (
                        "f.uses && f.volume.size() > 0 && f.volume.all(v, "
                        + volume_memory
                        + " && !has(v.emptyDir.sizeLimit))"
                    ),
                    HOST_IPC.code: "f.uses && variables.hostIPC",
                    # the container's /dev/shm is a volume of its own (not the host's, bound in), over the host's
                    OWN_SHM: (
                        "f.volume.size() > 0 && !(has(f.volume[f.volume.size() - 1].hostPath)"
                        " && has(f.volume[f.volume.size() - 1].hostPath.path))"
                    ),
                    HOST_SHM_MOUNT.code: (
                        "f.uses && f.volume.size() > 0 && f.volume.all(v, !has(v.emptyDir) && has(v.hostPath)"
                        f" && has(v.hostPath.path) && v.hostPath.path.matches({q(k.host_shm)}))"
                    ),
                    NCCL_SHM_DISABLED.code: "f.uses && f.nccl.size() > 0",
                    "volumeName": "f.volume.size() > 0 ? f.volume[f.volume.size() - 1].name : ''",
                    "hostPath": (
                        "f.volume.size() > 0 && has(f.volume[f.volume.size() - 1].hostPath)"
                        " && has(f.volume[f.volume.size() - 1].hostPath.path)"
                        " ? f.volume[f.volume.size() - 1].hostPath.path : ''"
                    ),
                    "nccl": "f.nccl.size() > 0 ? f.nccl[0] : ''",
                },
            ),
        ),
    ]


def ignored(rule: RuleInfo) -> str:
    """The pod's ``shmlint.io/ignore`` annotation names the rule: its code in any case, or its slug (as
    ``shmlint.suppress`` reads the annotation: comma-separated, blanks around each name dropped)."""
    code = q(f"(?i)(?:^|,)[\\s\\v]*{rule.code}[\\s\\v]*(?:,|\\z)")
    slug = q(f"(?:^|,)[\\s\\v]*{rule.slug}[\\s\\v]*(?:,|\\z)")
    return f"(variables.ignore.matches({code}) || variables.ignore.matches({slug}))"


def _render(template: str) -> str:
    return " + ".join(f"f.{text}" if field else q(text) for field, text in parts(template))


def _reported(rule: RuleInfo) -> str:
    """A finding record of the rule that the policy reports: the missing-shm rule's undecided findings (tier 1,
    software not known) only when the ``undecided`` setting lists them, as ``check`` does."""
    if rule.code == MISSING_SHM.code and not rule.undecided:
        return f"f.{rule.code} && f.tier == 2"
    return f"f.{rule.code}"


def _messages(rule: RuleInfo) -> str:
    """One message per flagged container, in the linter's words (``shmlint.policy.messages``), headed by the
    rule's code, slug and severity."""
    head = f"{rule.code} {rule.slug} ("
    missing = rule.code == MISSING_SHM.code
    text = f"{q(head + rule.severity + '): ')} + {_render(TEMPLATES[(rule.code, 2 if missing else None)])}"
    if missing and rule.undecided:
        text = f"f.tier == 2 ? {text} : {q(head + rule.undecided + '): ')} + {_render(TEMPLATES[(rule.code, 1)])}"
    variant = INFO_VARIANTS.get(rule.code)
    if variant is not None:  # a memory limit bounds the volume; a volume of its own shadows the host's: info
        info = f"{q(head + Severity.INFO.label + '): ')} + {_render(TEMPLATES[(rule.code, variant)])}"
        text = f"f.{variant} ? {info} : {text}"
    return f"variables.findings.filter(f, {_reported(rule)}).map(f, {text}).join({q(SEPARATOR)})"


def validations(k: Knowledge) -> list[Validation]:
    """One validation per rule the policy can judge (a rule without a pod field is listed only: see
    ``manifests``)."""
    return [
        Validation(rule.code, f"{ignored(rule)} || variables.findings.all(f, !({_reported(rule)}))", _messages(rule))
        for rule in judged(k)
    ]


def mutation_variables(k: Knowledge, size_bytes: int) -> list[tuple[str, str]]:
    """What the mutation adds to the shared variables: the containers the missing-shm rule flags, undecided ones
    included whatever the ``undecided`` setting says (a sized /dev/shm is cheap and safe; software known not to use
    it is never flagged), none when the pod's annotation ignores the rule; and the size to give them."""
    missing = rule_info(k, MISSING_SHM)
    limits = "variables.memoryLimits"
    half = f"{limits}.filter(n, {limits}.all(m, n <= m))[0] / 2"
    return [
        ("targets", f"{ignored(missing)} ? [] : variables.findings.filter(f, f.{missing.code})"),
        (
            "memoryLimits",  # of the containers given the volume: a sidecar's limit bounds nothing in it (SHM005)
            "variables.targets.filter(f, f.memory != '' && quantity(f.memory).isInteger())"
            ".map(f, quantity(f.memory).asInteger()).filter(n, n > 0)",
        ),
        (
            "halfLimit",
            f"{limits}.size() == 0 ? {size_bytes} : {half} >= {MIB} ? ({half} / {MIB}) * {MIB} : {half}",
        ),
        ("size", f"variables.halfLimit < {size_bytes} ? variables.halfLimit : {size_bytes}"),
    ]


def apply_configuration() -> str:
    """The mutation: a sized Memory emptyDir and a /dev/shm mount in each flagged container, merged by server-side
    apply (containers by name, mounts by mountPath, volumes by name); nothing when no container is flagged."""
    volume = (
        f"Object.spec.volumes{{name: {q(VOLUME)}, emptyDir: Object.spec.volumes.emptyDir{{medium: 'Memory', "
        "sizeLimit: string(variables.size)}}"
    )

    def mounts(key: str, init: str) -> str:
        return (
            f"{key}: variables.targets.filter(f, f.init == {init}).map(f, Object.spec.{key}{{name: f.name, "
            f"volumeMounts: [Object.spec.{key}.volumeMounts{{name: {q(VOLUME)}, mountPath: {q(SHM_PATH)}}}]}})"
        )

    def spec(*parts: str) -> str:
        return f"Object{{spec: Object.spec{{volumes: [{volume}], {', '.join(parts)}}}}}"

    some_init = "variables.targets.exists(f, f.init)"
    some_main = "variables.targets.exists(f, !f.init)"
    return (
        "variables.targets.size() == 0 ? Object{}"
        f" : {some_init} && {some_main} ? {spec(mounts('containers', 'false'), mounts('initContainers', 'true'))}"
        f" : {some_init} ? {spec(mounts('initContainers', 'true'))}"
        f" : {spec(mounts('containers', 'false'))}"
    )
