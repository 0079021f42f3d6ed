"""The manifests a cluster administrator applies: each target's policy and its binding (or constraint), built from
the CEL and Rego of this package, with what each decides and leaves undecided written into its annotations."""

from __future__ import annotations

from typing import Any

from shmlint import __version__
from shmlint.named_tuple import NamedTuple
from shmlint.policy import cel, rego
from shmlint.policy.knowledge import IPC_NONE, MISSING_SHM, Knowledge, judged, rule_info

NAME = "shmlint-dev-shm"
#: Gatekeeper derives the constraint's kind from the template; the template's name is that kind in lower case
CONSTRAINT_KIND = "ShmlintDevShm"
VAP_API = "admissionregistration.k8s.io/v1"
MAP_API = "admissionregistration.k8s.io/v1beta1"  # beta since Kubernetes 1.34
KYVERNO_API = "policies.kyverno.io/v1beta1"
GATEKEEPER_TEMPLATE_API = "templates.gatekeeper.sh/v1"
GATEKEEPER_CONSTRAINT_API = "constraints.gatekeeper.sh/v1beta1"
#: a namespace with this label (any value) is left alone by every policy
EXEMPT_LABEL = "shmlint.io/ignore"

TARGETS = ("mutating", "kyverno", "validating", "gatekeeper")

DECIDES = (
    "Judges each container of a Pod at CREATE as `shmlint check` judges a Kubernetes container: accelerator "
    "requests, runtimeClassName, device variables and device hostPaths; the tier data's images, image tags and "
    "commands; the shmlint.io/dataloader annotation; the pod's /dev/shm volumes."
)
LEAVES = (
    "Cannot see what only a repository shows: the image's contents, Python code and `# shmlint:` comments, "
    "configuration files other than the one it was generated with, KServe ServingRuntimes, training runtimes and "
    f"operators (a pod an operator already gave /dev/shm has it by admission). {MISSING_SHM.code} at admission uses "
    f"the image and command lists only. {IPC_NONE.code} (ipc none) has no pod field and is never reported. valueFrom "
    "variables are not read."
)
#: what the output's header says of the tier data's patterns that end in a negative lookahead
SPLIT_NOTE = (
    "{count} tier-data pattern(s) end in a negative lookahead, which RE2 (CEL matches(), Rego regex.match) lacks: "
    "each is exported as a head and an unless pattern (the head matches and the head followed by the lookahead's "
    "text does not: {ids}). A command that runs such a tool more than once, only some runs turning its workers "
    "off, matches the pattern in shmlint check and not in the policies."
)


def notes(k: Knowledge) -> list[str]:
    """What the generated policies decide otherwise than ``check``, for the output's header."""
    split = [
        entry.id
        for entry in k.software
        if any(p.unless is not None for p in (*entry.commands, *entry.images, *entry.image_tags))
    ]
    return [SPLIT_NOTE.format(count=len(split), ids=", ".join(split))] if split else []


class Options(NamedTuple):
    size_bytes: int  # what the mutation gives (at most half the smallest memory limit of the containers given it)
    deny: bool = False  # validating policies deny instead of warning
    exclude_namespaces: tuple[str, ...] = ("kube-system",)


def _annotations(k: Knowledge, what: str) -> dict[str, str]:
    rules = ", ".join(f"{rule.code} {rule.slug}" for rule in judged(k))
    return {
        "shmlint.io/generated-by": f"shmlint {__version__} (shmlint policy)",
        "shmlint.io/does": what,
        "shmlint.io/rules": rules,
        "shmlint.io/decides": DECIDES,
        "shmlint.io/cannot-decide": LEAVES,
    }


def _metadata(k: Knowledge, what: str, name: str = NAME) -> dict[str, Any]:
    return {"name": name, "annotations": _annotations(k, what)}


def namespace_selector(options: Options) -> dict[str, Any]:
    expressions: list[dict[str, Any]] = [{"key": EXEMPT_LABEL, "operator": "DoesNotExist"}]
    if options.exclude_namespaces:
        expressions.append(
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": list(options.exclude_namespaces)}
        )
    return {"matchExpressions": expressions}


_POD_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]


def _variables(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "expression": expression} for name, expression in pairs]


def _mutating_spec(k: Knowledge, options: Options) -> dict[str, Any]:
    return {
        "failurePolicy": "Ignore",  # a policy error never blocks a pod
        "reinvocationPolicy": "IfNeeded",
        "matchConstraints": {"resourceRules": _POD_RULES, "namespaceSelector": namespace_selector(options)},
        "variables": _variables(cel.variables(k) + cel.mutation_variables(k, options.size_bytes)),
        "mutations": [
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": cel.apply_configuration()}}
        ],
    }


MUTATION = (
    "Gives each container that {code} flags, undecided findings included (an accelerator whose software is not "
    "known; software known not to use /dev/shm never), and that mounts nothing at /dev/shm a Memory emptyDir "
    "`shmlint-dshm` at /dev/shm, sized {size} bytes or half the smallest memory limit of those containers if that is "
    "less. "
    "A pod with any /dev/shm (a mount, hostIPC, a Memory volume meant for it) is left as it is, and so is a pod "
    "whose shmlint.io/ignore annotation names {code} or {slug}."
)


def _mutation(k: Knowledge, options: Options) -> str:
    missing = rule_info(k, MISSING_SHM)
    return MUTATION.format(code=missing.code, slug=missing.slug, size=options.size_bytes)


def mutating(k: Knowledge, options: Options) -> list[dict[str, Any]]:
    what = _mutation(k, options)
    return [
        {
            "apiVersion": MAP_API,
            "kind": "MutatingAdmissionPolicy",
            "metadata": _metadata(k, what),
            "spec": _mutating_spec(k, options),
        },
        {
            "apiVersion": MAP_API,
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": NAME},
            "spec": {"policyName": NAME, "matchResources": {"namespaceSelector": namespace_selector(options)}},
        },
    ]


def kyverno(k: Knowledge, options: Options) -> list[dict[str, Any]]:
    what = _mutation(k, options)
    spec = _mutating_spec(k, options)
    spec["evaluation"] = {"background": {"enabled": False}}  # a Pod's /dev/shm cannot change once it runs
    return [{"apiVersion": KYVERNO_API, "kind": "MutatingPolicy", "metadata": _metadata(k, what), "spec": spec}]


def validating(k: Knowledge, options: Options) -> list[dict[str, Any]]:
    what = (
        "Warns (and records in the audit log) on the linter's pod rules with the linter's messages"
        + ("; denies with --deny" if options.deny else "; it never denies unless generated with --deny")
        + _undecided(k)
    )
    spec = {
        "failurePolicy": "Ignore",
        "matchConstraints": {"resourceRules": _POD_RULES, "namespaceSelector": namespace_selector(options)},
        "variables": _variables(cel.variables(k)),
        "validations": [
            {"expression": v.expression, "messageExpression": v.message, "reason": "Invalid"}
            for v in cel.validations(k)
        ],
    }
    return [
        {"apiVersion": VAP_API, "kind": "ValidatingAdmissionPolicy", "metadata": _metadata(k, what), "spec": spec},
        {
            "apiVersion": VAP_API,
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": NAME},
            "spec": {
                "policyName": NAME,
                "validationActions": ["Deny", "Audit"] if options.deny else ["Warn", "Audit"],
                "matchResources": {"namespaceSelector": namespace_selector(options)},
            },
        },
    ]


def _undecided(k: Knowledge) -> str:
    missing = rule_info(k, MISSING_SHM)
    if missing.undecided:
        return f"; {missing.code} on an accelerator whose software is not known is reported as {missing.undecided}."
    return (
        f"; like check, it leaves out {missing.code} on an accelerator whose software is not known (undecided: "
        "generate with --undecided=strict to report it)."
    )


def gatekeeper(k: Knowledge, options: Options) -> list[dict[str, Any]]:
    what = (
        "Reports the linter's pod rules with the linter's messages: warn by default (deny with --deny); "
        "Gatekeeper's audit reports existing pods too" + _undecided(k)
    )
    match: dict[str, Any] = {
        "kinds": [{"apiGroups": [""], "kinds": ["Pod"]}],
        "namespaceSelector": namespace_selector(options),
    }
    if options.exclude_namespaces:
        match["excludedNamespaces"] = list(options.exclude_namespaces)
    return [
        {
            "apiVersion": GATEKEEPER_TEMPLATE_API,
            "kind": "ConstraintTemplate",
            "metadata": _metadata(k, what, CONSTRAINT_KIND.lower()),
            "spec": {
                "crd": {"spec": {"names": {"kind": CONSTRAINT_KIND}}},
                "targets": [{"target": "admission.k8s.gatekeeper.sh", "rego": rego.module(k)}],
            },
        },
        {
            "apiVersion": GATEKEEPER_CONSTRAINT_API,
            "kind": CONSTRAINT_KIND,
            "metadata": {"name": NAME},
            "spec": {"enforcementAction": "deny" if options.deny else "warn", "match": match},
        },
    ]


BUILDERS = {"mutating": mutating, "kyverno": kyverno, "validating": validating, "gatekeeper": gatekeeper}


def documents(k: Knowledge, targets: tuple[str, ...], options: Options) -> list[dict[str, Any]]:
    return [document for target in targets for document in BUILDERS[target](k, options)]


#: how to install, try without effect, and remove each target; printed at the head of the output and in --help
HOWTO = {
    "mutating": (
        "MutatingAdmissionPolicy (Kubernetes 1.34+, beta: enable the MutatingAdmissionPolicy feature gate and "
        "admissionregistration.k8s.io/v1beta1).\n"
        "  generate:  shmlint policy mutating --shm-size 8Gi > shm-mutating.yaml\n"
        "  install:   kubectl apply -f shm-mutating.yaml\n"
        "  dry run:   kubectl apply --dry-run=server -o yaml -f some-gpu-pod.yaml   (shows the mutated pod, creates nothing)\n"
        "  roll back: kubectl delete mutatingadmissionpolicybinding,mutatingadmissionpolicy shmlint-dev-shm"
    ),
    "kyverno": (
        "Kyverno MutatingPolicy (policies.kyverno.io/v1beta1, Kyverno 1.16+).\n"
        "  generate:  shmlint policy kyverno --shm-size 8Gi > shm-kyverno.yaml\n"
        "  install:   kubectl apply -f shm-kyverno.yaml\n"
        "  dry run:   kyverno apply shm-kyverno.yaml --resource some-gpu-pod.yaml   (or kubectl apply --dry-run=server)\n"
        "  roll back: kubectl delete mutatingpolicy shmlint-dev-shm"
    ),
    "validating": (
        "ValidatingAdmissionPolicy (Kubernetes 1.30+): warns and audits (validationActions Warn, Audit).\n"
        "  generate:  shmlint policy validating > shm-validating.yaml\n"
        "  install:   kubectl apply -f shm-validating.yaml\n"
        "  dry run:   kubectl apply --dry-run=server -f some-gpu-pod.yaml   (prints the warnings, creates nothing)\n"
        "  roll back: kubectl delete validatingadmissionpolicybinding,validatingadmissionpolicy shmlint-dev-shm"
    ),
    "gatekeeper": (
        "Gatekeeper ConstraintTemplate and constraint (enforcementAction warn; `dryrun` only audits).\n"
        "  generate:  shmlint policy gatekeeper > shm-gatekeeper.yaml\n"
        "  install:   kubectl apply -f shm-gatekeeper.yaml   (apply again if the constraint's kind is not known yet)\n"
        "  dry run:   set spec.enforcementAction: dryrun, then read kubectl get shmlintdevshm shmlint-dev-shm -o yaml (status.violations)\n"
        "  roll back: kubectl delete shmlintdevshm shmlint-dev-shm && kubectl delete constrainttemplate shmlintdevshm"
    ),
}
