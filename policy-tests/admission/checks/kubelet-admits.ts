/**
 * kubelet-admits: what the kubelet refuses of a pod the API server admitted. The node runs its own admission
 * (pkg/kubelet/sysctl/allowlist.go, a PodAdmitHandler): a pod that sets a sysctl outside the kubelet's allowlist (the
 * safe sysctls, and those its configuration's allowedUnsafeSysctls names) is failed on the node, SysctlForbidden,
 * and its controller makes another, which fails the same way. And it sets up each volume
 * (pkg/volume/emptydir/empty_dir.go, SetUpAt): an emptyDir medium it does not know, or a huge-page medium with no
 * huge pages asked for, fails the mount, and the pod never starts. And it makes sure of each container's image
 * (pkg/kubelet/images/image_manager.go, EnsureImageExists): one it may never pull (imagePullPolicy Never) starts only
 * where the node's runtime already holds it, and nothing in the repository puts an image on a Talos node but a pull,
 * so the container fails with ErrImageNeverPull. And its container runtime starts each container with the
 * capabilities it asks for, which Talos' runtime can only give from its own: Talos runs the CRI's containerd without
 * CAP_SYS_BOOT and CAP_SYS_MODULE (constants.DefaultDroppedCapabilities, dropped from its bounding set), so runc
 * cannot raise either in a container, fails it ("unable to apply caps: operation not permitted") and it never
 * starts. And it admits only a pod for its own operating system (pkg/kubelet/lifecycle/predicate.go): a pod labelled
 * `kubernetes.io/os` with another value, or whose `spec.os.name` is not linux, is failed on every Talos node. The API
 * server says nothing of any of these.
 */
import { dig, list } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { capabilityName, containersOf, podSpecOf, WORKLOAD_KINDS, type PodSpecRef } from '../../model/core/workloads.ts';
import { compareDecimals, parseGoQuantity, type GoQuantity } from '../../model/go/quantity.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { LATEST_POLICY_MINOR } from '../pod-security/pod-security.ts';
import { safeSysctls } from '../pod-security/controls.ts';
import { hugePageSizeFromResourceName } from '../validation/resource-requirements.ts';
import { normalizeSysctlName, SYSCTL_MAX, sysctlGetNamespace } from '../validation/security-profiles.ts';

type Obj = Record<string, any>;

/** policy validation's IsValidSysctlPattern: SysctlMaxLength, and segments joined by `.` or `/`, the last may end in `*`. */
const SYSCTL_PATTERN = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$/;

/** The kubelet's allowlist (NewAllowlist): exact names, and the prefixes a pattern ending in `*` allows. */
export interface Allowlist {
  names: ReadonlySet<string>;
  prefixes: readonly string[];
  /** allowedUnsafeSysctls as the configuration writes it, for the finding's words. */
  unsafe: readonly string[];
}

/**
 * The allowlist the kubelet builds from the safe sysctls and `allowedUnsafeSysctls`, and why the kubelet would not
 * start for each pattern it refuses. The kubelet's safe list (safe_sysctls.go: legacySafeSysctls, and newerSysctls,
 * whose kernels Talos' has long passed) is the one Pod Security's baseline allows at the same release from 1.32 on.
 */
export function kubeletAllowlist(allowedUnsafe: readonly string[], minor: number): { allow: Allowlist; refused: string[] } {
  const names = new Set(safeSysctls(Math.min(minor, LATEST_POLICY_MINOR)));
  const prefixes: string[] = [];
  const refused: string[] = [];
  for (const pattern of allowedUnsafe) {
    if (pattern.length > SYSCTL_MAX || !SYSCTL_PATTERN.test(pattern)) {
      refused.push(`sysctl ${JSON.stringify(pattern)} must have at most ${SYSCTL_MAX} characters and match regex ${SYSCTL_PATTERN.source}`);
      continue;
    }
    const { namespace, sysctlOrPrefix, prefixed } = sysctlGetNamespace(pattern);
    if (!namespace) refused.push(`the sysctls ${JSON.stringify(sysctlOrPrefix)} are not known to be namespaced`);
    else if (prefixed) prefixes.push(sysctlOrPrefix);
    else names.add(sysctlOrPrefix);
  }
  return { allow: { names, prefixes, unsafe: allowedUnsafe }, refused };
}

/** validateSysctl, past the host namespaces the API server already refuses a sysctl of: allowlisted, or why not. */
export const sysctlRefusal = (allow: Allowlist, sysctl: string): string | undefined => {
  const name = normalizeSysctlName(sysctl);
  return allow.names.has(name) || allow.prefixes.some((p) => name.startsWith(p)) ? undefined : `forbidden sysctl: ${JSON.stringify(name)} not allowlisted`;
};

/**
 * The capabilities no container on a Talos node holds: the CRI's containerd runs without them (Talos v1.13
 * `services/cri.go`, `runner.WithDroppedCapabilities(constants.DefaultDroppedCapabilities)`), and a process cannot
 * give its child a capability it has not got. Talos loads kernel modules itself (machine.kernel.modules) and reboots
 * its nodes itself.
 */
const RUNTIME_WITHOUT = ['CAP_SYS_BOOT', 'CAP_SYS_MODULE'];

/** How containerd's CRI names a Kubernetes capability in the OCI spec (`WithCapabilities`, v2.2: `CAP_` + upper case). */
const ociCapability = (name: string) => `CAP_${capabilityName(name)}`;

/**
 * The added capabilities of a container the runtime cannot give it, by their index in `add`. containerd's CRI
 * (`internal/cri/opts/spec_opts.go`, WithCapabilities, v2.2) sets an `ALL` add to the runtime's own set (cap.Current:
 * never these), applies the adds by name after it and the drops by name last; a privileged container gets the
 * runtime's own set whatever it adds (`oci.WithPrivileged`, applied after).
 */
export function unheldCapabilities(container: Obj): { index: number; name: string }[] {
  const securityContext = container.securityContext as Obj | undefined;
  if (securityContext?.privileged === true) return [];
  const add = list(dig(securityContext, ['capabilities', 'add']));
  const dropped = new Set(list(dig(securityContext, ['capabilities', 'drop'])).map((d) => (typeof d === 'string' ? ociCapability(d) : '')));
  return add.flatMap((name, index) =>
    typeof name === 'string' && RUNTIME_WITHOUT.includes(ociCapability(name)) && !dropped.has(ociCapability(name)) ? [{ index, name }] : [],
  );
}

/** v1helper.IsHugePageMedium: `HugePages`, or `HugePages-<size>`. */
const isHugePageMedium = (medium: string) => medium === 'HugePages' || medium.startsWith('HugePages-');

/** The page sizes the pod's containers and init containers ask for (`hugepages-<size>`; a request defaults to its limit). */
function requestedPageSizes(pod: PodSpecRef): GoQuantity[] {
  const sizes: GoQuantity[] = [];
  for (const { container } of containersOf(pod)) {
    const resources = (container.resources ?? {}) as Obj;
    const names = new Set([...Object.keys(resources.requests ?? {}), ...Object.keys(resources.limits ?? {})]);
    for (const name of names) {
      const size = name.startsWith('hugepages-') ? hugePageSizeFromResourceName(name) : undefined;
      if (size?.ok) sizes.push(size.quantity);
    }
  }
  return sizes;
}

/** setupHugepages' getPageSizeMountOption: why the kubelet cannot mount a huge-page medium for this pod, if it cannot. */
function hugePageFault(medium: string, pod: PodSpecRef): string | undefined {
  const sizes = requestedPageSizes(pod);
  if (medium === 'HugePages') {
    if (sizes.some((s) => compareDecimals(s, sizes[0]!) !== 0)) return `medium: ${medium} can't be used if container requests multiple huge page sizes`;
  } else {
    const size = parseGoQuantity(medium.slice('HugePages-'.length));
    if (!size.ok) return size.error;
    if (!sizes.some((s) => compareDecimals(s, size.quantity) === 0))
      return `medium ${medium}: hugePages storage requested, but there is no resource request for huge pages`;
  }
  return sizes.length ? undefined : `medium ${medium}: hugePages storage requested, but there is no resource request for huge pages`;
}

/** SetUpAt's medium switch: why the kubelet fails to set up this emptyDir, if it does. */
export function emptyDirFault(medium: unknown, pod: PodSpecRef): string | undefined {
  const text = typeof medium === 'string' ? medium : '';
  if (text === '' || text === 'Memory') return undefined;
  return isHugePageMedium(text) ? hugePageFault(text, pod) : `unknown storage medium ${JSON.stringify(text)}`;
}

/** The operating system every node's kubelet runs on (runtime.GOOS): Talos is Linux alone. */
const NODE_OS = 'linux';

/**
 * The kubelet's OS predicates (pkg/kubelet/lifecycle/predicate.go): a pod labelled `kubernetes.io/os` with another
 * value than its node's (rejectPodAdmissionBasedOnOSSelector, which reads the pod's labels, not its nodeSelector), and
 * a pod whose `spec.os.name` is not the kubelet's own OS (rejectPodAdmissionBasedOnOSField), are failed on the node.
 */
export function osRefusals(r: Pick<Resource, 'object'>, pod: PodSpecRef): { path: (string | number)[]; why: string }[] {
  const out: { path: (string | number)[]; why: string }[] = [];
  const meta = [...pod.at.slice(0, -1), 'metadata'];
  const label = dig(r.object, [...meta, 'labels', 'kubernetes.io/os']);
  if (label !== undefined && label !== NODE_OS)
    out.push({
      path: [...meta, 'labels', 'kubernetes.io/os'],
      why: `its pods carry the label kubernetes.io/os=${scalarText(label)}, which the kubelet holds to its node's own (${NODE_OS}): PodOSSelectorNodeLabelDoesNotMatch`,
    });
  const os = dig(pod.spec, ['os', 'name']);
  if (typeof os === 'string' && os !== NODE_OS)
    out.push({ path: [...pod.at, 'os', 'name'], why: `its pods ask for OS ${JSON.stringify(os)}, and every node runs ${NODE_OS}: PodOSNotSupported` });
  return out;
}

/**
 * verifyRunAsNonRoot (pkg/kubelet/kuberuntime/security_context_others.go) where the settings decide it: the effective
 * security context (DetermineEffectiveSecurityContext: a container's field over the pod's) asks for a non-root user
 * and names user 0. Where it names none, the image's user decides, which the gate does not read here.
 */
function breaksNonRoot(pod: PodSpecRef, c: { container: Obj; at: (string | number)[] }): (string | number)[] | undefined {
  const own = (field: string): unknown => dig(c.container, ['securityContext', field]);
  const effective = (field: string): unknown => own(field) ?? dig(pod.spec, ['securityContext', field]);
  if (effective('runAsNonRoot') !== true || effective('runAsUser') !== 0) return undefined;
  // The finding stands on the user 0, where it is written.
  return own('runAsUser') === 0 ? [...c.at, 'securityContext', 'runAsUser'] : [...pod.at, 'securityContext', 'runAsUser'];
}

function judgePod(ctx: CheckContext, r: Resource, pod: PodSpecRef, allow: Allowlist): void {
  const named = `${r.kind} ${r.name}`;
  for (const { path, why } of osRefusals(r, pod))
    ctx.fail(
      { resource: r, path },
      `${named}: ${why}; the scheduler does not look at either, so the pod is placed, failed by the node, and its controller makes another that fails the same way`,
      'drop the label and spec.os, or set them to linux: every Talos node is a Linux node (to choose nodes, use a nodeSelector on kubernetes.io/os)',
    );
  (list(dig(pod.spec, ['securityContext', 'sysctls'])) as Obj[]).forEach((s: Obj, i) => {
    const why = typeof s?.name === 'string' && s.name !== '' ? sysctlRefusal(allow, s.name) : undefined;
    if (why)
      ctx.fail(
        { resource: r, path: [...pod.at, 'securityContext', 'sysctls', i, 'name'] },
        `${named}: the kubelet refuses its pods (SysctlForbidden): ${why}: it runs the safe sysctls and those the cluster facts' machineConfig allows in machine.kubelet.extraConfig.allowedUnsafeSysctls (${allow.unsafe.length ? allow.unsafe.join(', ') : 'none'}), and the pod's controller makes another that fails the same way`,
        'drop the sysctl, or allow it on the nodes (machine.kubelet.extraConfig.allowedUnsafeSysctls in the Talos machine config) and say so in the cluster facts (machineConfig)',
      );
  });
  for (const c of containersOf(pod)) {
    if (c.container.imagePullPolicy === 'Never')
      ctx.fail(
        { resource: r, path: [...c.at, 'imagePullPolicy'] },
        `${named}: container ${c.name} may never pull its image ${JSON.stringify(typeof c.container.image === 'string' ? c.container.image : '')} (imagePullPolicy: Never), and a node holds an image only where a pull put it: wherever its pod lands on a node without it, the kubelet fails the container (ErrImageNeverPull) and it never starts`,
        'pull the image as the kubelet does by default (imagePullPolicy: IfNotPresent, or Always for a moving tag)',
      );
    // runc execs command[0] as the container's process: an empty one is no executable ("exec: \"\": executable file not found").
    if (Array.isArray(c.container.command) && c.container.command[0] === '')
      ctx.fail(
        { resource: r, path: [...c.at, 'command', 0] },
        `${named}: container ${c.name}'s command begins with an empty string, which the runtime cannot exec (executable file not found, StartError) and it never starts`,
        "name the program first in the container's command, or leave command out for the image's entrypoint",
      );
    const userZero = breaksNonRoot(pod, c);
    if (userZero)
      ctx.fail(
        { resource: r, path: userZero },
        `${named}: container ${c.name} runs with runAsNonRoot and runAsUser 0 (the container's settings over the pod's): the kubelet refuses to create it ("container's runAsUser breaks non-root policy", CreateContainerConfigError) and it never starts`,
        'give the container a runAsUser other than 0, or leave runAsNonRoot unset where it must run as root',
      );
    for (const { index, name } of unheldCapabilities(c.container))
      ctx.fail(
        { resource: r, path: [...c.at, 'securityContext', 'capabilities', 'add', index] },
        `${named}: container ${c.name} adds ${name}, which Talos' container runtime does not hold (it runs without ${RUNTIME_WITHOUT.join(' and ')}): runc cannot give it, fails the container ("unable to apply caps: operation not permitted") and it never starts`,
        'drop the capability: Talos loads the kernel modules a workload needs itself (machine.kernel.modules in the machine config, or a system extension), and reboots its nodes itself',
      );
  }
  (list(pod.spec.volumes) as Obj[]).forEach((v: Obj, i) => {
    if (!v?.emptyDir || typeof v.emptyDir !== 'object') return;
    const why = emptyDirFault(v.emptyDir.medium, pod);
    if (why)
      ctx.fail(
        { resource: r, path: [...pod.at, 'volumes', i, 'emptyDir', ...(v.emptyDir.medium === undefined ? [] : ['medium'])] },
        `${named}: the kubelet cannot set up volume ${String(v.name)} (${why}), so the pod never starts`,
        'give the emptyDir medium "" (the node\'s disk), Memory, HugePages or HugePages-<size>; a huge-page medium needs the pod\'s containers to ask for that page size (resources hugepages-<size>)',
      );
  });
}

export function kubeletAdmitsCheck(isBuiltin: (r: Resource) => boolean): PolicyCheck {
  return {
    id: 'kubelet-admits',
    description:
      "Every pod the API server admits is one the kubelet runs: each sysctl it sets is on the kubelet's allowlist (the safe sysctls, and those the cluster facts' machineConfig allows (machine.kubelet.extraConfig.allowedUnsafeSysctls), as the nodes' machine config allows them; Talos allows none), otherwise the node fails the pod (SysctlForbidden) and its controller makes another; each emptyDir medium is one the kubelet sets up (\"\", Memory, HugePages, HugePages-<size>, a huge-page one with the pod asking for that page size); no container's image is one it may never pull (imagePullPolicy: Never: a Talos node holds an image only where a pull put it, and the container fails with ErrImageNeverPull); no container that is not privileged adds SYS_MODULE or SYS_BOOT, which Talos' container runtime runs without, so runc fails the container (\"unable to apply caps: operation not permitted\"); no container runs with runAsNonRoot and runAsUser 0, which the kubelet refuses to create (CreateContainerConfigError); no container's command begins with an empty string, which the runtime cannot exec; no pod is labelled kubernetes.io/os or asks for spec.os.name other than linux, which the kubelet refuses on a Linux node (PodOSSelectorNodeLabelDoesNotMatch, PodOSNotSupported); and every allowedUnsafeSysctls entry is a pattern of namespaced sysctls, without which the kubelet does not start (invariants P1).",
    invariants: ['P1'],
    remediation: 'drop what the kubelet refuses, or configure the nodes to allow it and say so in the cluster facts (machineConfig)',
    reads: { kinds: [...WORKLOAD_KINDS, 'ConfigMap'] },
    exemptible: false,
    run(ctx) {
      const facts = ctx.repo.facts;
      if (!facts) return;
      const allowedUnsafe = facts.machineConfig.allowedUnsafeSysctls;
      const { allow, refused } = kubeletAllowlist(allowedUnsafe, Number.isFinite(facts.kubernetesMinor) ? facts.kubernetesMinor : LATEST_POLICY_MINOR);
      const factsResource = ctx.repo.factsResource;
      if (factsResource)
        for (const why of refused)
          ctx.fail(
            { resource: factsResource, path: ['data', 'machineConfig'] },
            `the kubelet does not start with this allowedUnsafeSysctls: ${why}`,
            'name only sysctls the kernel keeps per network or IPC namespace (net.*, kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*), as the machine config must',
          );
      for (const r of ctx.resources) {
        const pod = podSpecOf(r);
        if (pod && isBuiltin(r)) judgePod(ctx, r, pod, allow);
      }
    },
  };
}
