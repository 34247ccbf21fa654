/**
 * The pod spec as k8s.io/kubernetes/pkg/apis/core/validation (ValidatePodSpec,
 * validateContainers, validateVolumes, ...) judges it, for the rules that can
 * be judged offline. A pod template is judged the same way, plus the
 * restart policy its controller demands.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { list } from '../../model/core/dig.ts';
import { imageReferenceProblem } from './image-reference.ts';
import { validateObjectMeta, type Invalid } from './metadata.ts';
import type { ValidationFeatures } from './feature-gates.ts';
import { dnsProblems } from './pod-dns.ts';
import { affinityProblems, placementProblems, topologySpreadProblems } from './pod-scheduling.ts';
import { securityProfileProblems } from './security-profiles.ts';
import { dns1123Label, dns1123Subdomain, envVarName, isPortNumber, isSloppyIP, portName, portNumOrNameProblem } from './syntax.ts';
import { containerResourceProblems } from './resource-requirements.ts';
import { ENV_FIELD_PATHS, fieldSelectorProblems, resourceFieldSelectorProblems } from './downward-api.ts';
import { fileSourceProblems, storageSourceProblems } from './volume-sources.ts';
import { volumeMountProblems } from './volume-mounts.ts';
import { envFromSourceProblems, keySelectorProblems } from './env-sources.ts';

type Obj = Record<string, any>;

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];
const ENV_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'];

/** A probe's or a lifecycle hook's handler: `what` names it in messages, `fn` is the Kubernetes function that judges it. */
function handlerProblems(
  handler: Obj | undefined,
  path: PathSegment[],
  { kinds, what, fn }: { kinds: readonly string[]; what: string; fn: string },
): Invalid[] {
  if (!handler || typeof handler !== 'object') return [];
  const set = kinds.filter((k) => handler[k] !== undefined && handler[k] !== null);
  const out: Invalid[] = [];
  if (set.length === 0) out.push({ path, fn, message: `${what}: must specify a handler type (one of ${kinds.join(', ')})` });
  if (set.length > 1) out.push({ path: [...path, set[1]!], fn, message: `${what}: may not specify more than 1 handler type (${set.join(', ')})` });
  for (const k of ['httpGet', 'tcpSocket']) {
    const port = handler[k]?.port;
    if (port === undefined) continue;
    const bad = portNumOrNameProblem(port);
    if (bad) out.push({ path: [...path, k, 'port'], fn: 'ValidatePortNumOrName', message: `${what}: port ${JSON.stringify(port)} ${bad}` });
  }
  return out;
}

function probeProblems(probe: Obj | undefined, path: PathSegment[], what: string, mustSucceedOnce: boolean): Invalid[] {
  if (!probe || typeof probe !== 'object') return [];
  const out = handlerProblems(probe, path, { kinds: PROBE_HANDLERS, what, fn: 'validateProbe (validateHandler)' });
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold', 'terminationGracePeriodSeconds']) {
    if (typeof probe[f] === 'number' && probe[f] < 0)
      out.push({ path: [...path, f], fn: 'validateProbe', message: `${what}: ${f} must be greater than or equal to 0` });
  }
  if (mustSucceedOnce && probe.successThreshold !== undefined && probe.successThreshold !== 1)
    out.push({ path: [...path, 'successThreshold'], fn: 'validateProbe', message: `${what}: successThreshold must be 1` });
  return out;
}

/** ValidateEnv and ValidateEnvFrom: names and prefixes by the cluster's RelaxedEnvironmentVariableValidation gate. */
function envProblems(c: Obj, at: PathSegment[], who: string, features: ValidationFeatures): Invalid[] {
  const out: Invalid[] = [];
  const relaxed = features.has('RelaxedEnvironmentVariableValidation');
  const fn = (f: string) => `${f} (${relaxed ? 'IsRelaxedEnvVarName' : 'IsEnvVarName'})`;
  if (Array.isArray(c.envFrom))
    c.envFrom.forEach((e: Obj, i) => {
      const bad = typeof e?.prefix === 'string' && e.prefix !== '' ? envVarName(e.prefix, relaxed) : undefined;
      if (bad) out.push({ path: [...at, 'envFrom', i, 'prefix'], fn: fn('ValidateEnvFrom'), message: `${who}: envFrom prefix "${e.prefix}": ${bad}` });
      if (e && typeof e === 'object') out.push(...envFromSourceProblems(e, [...at, 'envFrom', i], who));
    });
  if (!Array.isArray(c.env)) return out;
  const path = [...at, 'env'];
  c.env.forEach((e: Obj, i) => {
    const at = [...path, i];
    const bad = typeof e?.name === 'string' ? envVarName(e.name, relaxed) : undefined;
    if (bad) out.push({ path: [...at, 'name'], fn: fn('ValidateEnv'), message: `${who}: env name "${String(e.name)}": ${bad}` });
    if (e?.valueFrom) {
      const sources = ENV_SOURCES.filter((s) => e.valueFrom[s]);
      if (sources.length !== 1)
        out.push({
          path: [...at, 'valueFrom'],
          fn: 'validateEnvVarValueFrom',
          message: `${who}: env ${String(e.name)}: valueFrom must specify exactly one of ${ENV_SOURCES.join(', ')}`,
        });
      if (e.value !== undefined && e.value !== '')
        out.push({
          path: [...at, 'valueFrom'],
          fn: 'validateEnvVarValueFrom',
          message: `${who}: env ${String(e.name)}: may not have both value and valueFrom`,
        });
      const { fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef } = e.valueFrom as Obj;
      const from = [...at, 'valueFrom'];
      if (configMapKeyRef && typeof configMapKeyRef === 'object')
        out.push(...keySelectorProblems(configMapKeyRef, [...from, 'configMapKeyRef'], who, 'validateConfigMapKeySelector'));
      if (secretKeyRef && typeof secretKeyRef === 'object')
        out.push(...keySelectorProblems(secretKeyRef, [...from, 'secretKeyRef'], who, 'validateSecretKeySelector'));
      if (fieldRef && typeof fieldRef === 'object') out.push(...fieldSelectorProblems(fieldRef, [...from, 'fieldRef'], who, ENV_FIELD_PATHS));
      if (resourceFieldRef && typeof resourceFieldRef === 'object')
        out.push(...resourceFieldSelectorProblems(resourceFieldRef, [...from, 'resourceFieldRef'], who, false));
    }
  });
  return out;
}

function securityContextProblems(sc: Obj | undefined, path: PathSegment[], who: string): Invalid[] {
  if (!sc || typeof sc !== 'object') return [];
  const out: Invalid[] = [];
  for (const f of ['runAsUser', 'runAsGroup', 'fsGroup'])
    if (typeof sc[f] === 'number' && (sc[f] < 0 || sc[f] > 2147483647))
      out.push({ path: [...path, f], fn: 'ValidateSecurityContext', message: `${who}: ${f} must be between 0 and 2147483647, inclusive` });
  if (sc.allowPrivilegeEscalation === false && sc.privileged === true)
    out.push({
      path: [...path, 'allowPrivilegeEscalation'],
      fn: 'ValidateSecurityContext',
      message: `${who}: cannot set allowPrivilegeEscalation to false and privileged to true`,
    });
  if (sc.allowPrivilegeEscalation === false && Array.isArray(sc.capabilities?.add) && sc.capabilities.add.includes('SYS_ADMIN'))
    out.push({
      path: [...path, 'allowPrivilegeEscalation'],
      fn: 'ValidateSecurityContext',
      message: `${who}: cannot set allowPrivilegeEscalation to false and capabilities.Add CAP_SYS_ADMIN`,
    });
  return out;
}

/**
 * validateSleepAction: a lifecycle hook's sleep within the pod's grace period (defaulted to 30 s before validation),
 * above zero unless PodLifecycleSleepActionAllowZero; dropped where PodLifecycleSleepAction is off.
 */
function sleepProblems(handler: Obj | undefined, at: PathSegment[], what: string, pod: ContainerContext): Invalid[] {
  const seconds = handler?.sleep?.seconds;
  if (typeof seconds !== 'number' || !pod.features.has('PodLifecycleSleepAction')) return [];
  const zero = pod.features.has('PodLifecycleSleepActionAllowZero');
  if (seconds <= pod.gracePeriod && (zero ? seconds >= 0 : seconds > 0)) return [];
  const message = zero
    ? `must be non-negative and less than terminationGracePeriodSeconds (${pod.gracePeriod})`
    : `must be greater than 0 and less than terminationGracePeriodSeconds (${pod.gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`;
  return [{ path: [...at, 'sleep'], fn: 'validateSleepAction', message: `${what}: sleep ${seconds}: ${message}` }];
}

/** A container's probes (none on a plain init container) and lifecycle hooks. */
function handlerProblemsOf(c: Obj, at: PathSegment[], who: string, pod: ContainerContext): Invalid[] {
  const { init } = pod;
  const out: Invalid[] = [];
  if (!init || c.restartPolicy === 'Always') {
    out.push(...probeProblems(c.livenessProbe, [...at, 'livenessProbe'], `${who} livenessProbe`, true));
    out.push(...probeProblems(c.readinessProbe, [...at, 'readinessProbe'], `${who} readinessProbe`, false));
    out.push(...probeProblems(c.startupProbe, [...at, 'startupProbe'], `${who} startupProbe`, true));
  } else {
    for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      if (c[p])
        out.push({
          path: [...at, p],
          fn: 'validateInitContainers',
          message: `${who}: an init container may not set ${p} (unless it is a sidecar, restartPolicy: Always)`,
        });
  }
  for (const h of ['postStart', 'preStop'])
    out.push(
      ...handlerProblems(c.lifecycle?.[h], [...at, 'lifecycle', h], {
        kinds: LIFECYCLE_HANDLERS,
        what: `${who} lifecycle.${h}`,
        fn: 'validateLifecycle (validateHandler)',
      }),
      ...sleepProblems(c.lifecycle?.[h], [...at, 'lifecycle', h], `${who} lifecycle.${h}`, pod),
    );
  return out;
}

/** What a container's rules read of its pod. */
interface ContainerContext {
  volumes: ReadonlySet<string>;
  init: boolean;
  features: ValidationFeatures;
  /** terminationGracePeriodSeconds as defaulted (SetDefaults_PodSpec: 30). */
  gracePeriod: number;
}

function containerProblems(c: Obj, at: PathSegment[], pod: ContainerContext): Invalid[] {
  const { volumes } = pod;
  const who = `container ${String(c.name)}`;
  const out: Invalid[] = [];
  if (typeof c.name === 'string') {
    const bad = dns1123Label(c.name);
    if (bad) out.push({ path: [...at, 'name'], fn: 'validateContainers (IsDNS1123Label)', message: `${who}: name ${bad}` });
  }
  if (typeof c.image === 'string' && c.image !== '') {
    const bad = imageReferenceProblem(c.image);
    if (bad) out.push({ path: [...at, 'image'], fn: 'distribution/reference (the kubelet cannot pull it)', message: `${who}: image "${c.image}": ${bad}` });
  }
  const portNames = new Set<string>();
  (list(c.ports) as Obj[]).forEach((p, i) => {
    const pat = [...at, 'ports', i];
    if (p?.containerPort !== undefined && !isPortNumber(p.containerPort))
      out.push({
        path: [...pat, 'containerPort'],
        fn: 'validateContainerPorts',
        message: `${who}: containerPort ${String(p.containerPort)} must be between 1 and 65535, inclusive`,
      });
    if (p?.hostPort !== undefined && p.hostPort !== 0 && !isPortNumber(p.hostPort))
      out.push({
        path: [...pat, 'hostPort'],
        fn: 'validateContainerPorts',
        message: `${who}: hostPort ${String(p.hostPort)} must be between 1 and 65535, inclusive`,
      });
    if (typeof p?.name === 'string') {
      const bad = portName(p.name);
      if (bad) out.push({ path: [...pat, 'name'], fn: 'validateContainerPorts (IsValidPortName)', message: `${who}: port name "${p.name}" ${bad}` });
      if (portNames.has(p.name)) out.push({ path: [...pat, 'name'], fn: 'validateContainerPorts', message: `${who}: duplicate port name "${p.name}"` });
      portNames.add(p.name);
    }
  });
  out.push(...volumeMountProblems(c, at, who, volumes));
  out.push(...handlerProblemsOf(c, at, who, pod));
  out.push(
    ...containerResourceProblems(c.resources, [...at, 'resources'], who),
    ...envProblems(c, at, who, pod.features),
    ...securityContextProblems(c.securityContext, [...at, 'securityContext'], who),
  );
  return out;
}

const VOLUME_SOURCE_FIELDS = new Set(['name']);

function volumeProblems(volumes: unknown, at: PathSegment[]): Invalid[] {
  if (!Array.isArray(volumes)) return [];
  const out: Invalid[] = [];
  const names = new Set<string>();
  volumes.forEach((v: Obj, i) => {
    const vat = [...at, 'volumes', i];
    if (typeof v?.name === 'string') {
      if (names.has(v.name)) out.push({ path: [...vat, 'name'], fn: 'ValidateVolumes', message: `volume name "${v.name}" is used twice` });
      names.add(v.name);
      const bad = dns1123Label(v.name);
      if (bad) out.push({ path: [...vat, 'name'], fn: 'ValidateVolumes (IsDNS1123Label)', message: `volume name "${v.name}": ${bad}` });
    }
    const sources = Object.keys(v ?? {}).filter((k) => !VOLUME_SOURCE_FIELDS.has(k));
    // No source is no error: the API server defaults it to emptyDir (SetDefaults_Volume).
    if (sources.length === 0) return;
    if (sources.length > 1)
      out.push({
        path: [...vat, sources[1]!],
        fn: 'validateVolumeSource',
        message: `volume ${String(v?.name)}: may not specify more than 1 volume type (${sources.join(', ')})`,
      });
    out.push(...fileSourceProblems(v, vat, `volume ${String(v?.name)}`), ...storageSourceProblems(v, vat, `volume ${String(v?.name)}`));
  });
  return out;
}

/** What a pod spec is judged with: the cluster's feature gates, and volumes its controller adds (a StatefulSet's claims). */
export interface PodOptions {
  features: ValidationFeatures;
  extraVolumes?: readonly string[];
  /** The pod's labels (a template's): the API server merges the ones an affinity term's label keys name into its selector. */
  labels?: unknown;
}

/**
 * What the pod is known by and as (ValidatePodSpec): its hostname and subdomain DNS labels, its service account a DNS
 * subdomain, each host alias an IP with subdomain names, and no host namespace in a user namespace (validateHostUsers).
 */
function identityProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  for (const field of ['hostname', 'subdomain']) {
    const bad = typeof spec[field] === 'string' && spec[field] !== '' ? dns1123Label(spec[field]) : undefined;
    if (bad) out.push({ path: [...at, field], fn: 'ValidatePodSpec (ValidateDNS1123Label)', message: `${field} "${String(spec[field])}": ${bad}` });
  }
  const account = typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '' ? dns1123Subdomain(spec.serviceAccountName) : undefined;
  if (account)
    out.push({
      path: [...at, 'serviceAccountName'],
      fn: 'ValidateServiceAccountName',
      message: `serviceAccountName "${String(spec.serviceAccountName)}": ${account}`,
    });
  ((Array.isArray(spec.hostAliases) ? spec.hostAliases : []) as Obj[]).forEach((alias, i) => {
    if (typeof alias?.ip !== 'string' || !isSloppyIP(alias.ip))
      out.push({
        path: [...at, 'hostAliases', i, 'ip'],
        fn: 'ValidateHostAliases (IsValidIP)',
        message: `host alias ip "${String(alias?.ip ?? '')}": must be a valid IP address`,
      });
    ((Array.isArray(alias?.hostnames) ? alias.hostnames : []) as unknown[]).forEach((name, j) => {
      const bad = typeof name === 'string' ? dns1123Subdomain(name) : 'must be a string';
      if (bad)
        out.push({ path: [...at, 'hostAliases', i, 'hostnames', j], fn: 'ValidateHostAliases', message: `host alias hostname "${String(name)}": ${bad}` });
    });
  });
  if (spec.hostUsers === false)
    for (const field of ['hostNetwork', 'hostPID', 'hostIPC'])
      if (spec[field] === true)
        out.push({ path: [...at, field], fn: 'validateHostUsers', message: `${field} is forbidden when \`pod.Spec.HostUsers\` is false` });
  return out;
}

/** ValidatePodSpec, for what can be judged offline. `at` is where the spec sits in its object. */
export function validatePodSpec(spec: Obj, at: PathSegment[], { features, extraVolumes = [], labels }: PodOptions): Invalid[] {
  if (!spec || typeof spec !== 'object') return [];
  const out = volumeProblems(spec.volumes, at);
  const volumeNames = new Set([...(list(spec.volumes) as Obj[]).map((v) => String(v?.name)), ...extraVolumes]);
  const containerNames = new Set<string>();
  // validateContainers: an empty list is as missing as none (the schema asks only that the field be there).
  if (Array.isArray(spec.containers) && spec.containers.length === 0)
    out.push({ path: [...at, 'containers'], fn: 'validateContainers', message: 'Required value: a pod runs at least one container' });
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    (list(spec[field]) as Obj[]).forEach((c, i) => {
      const cat = [...at, field, i];
      if (typeof c?.name === 'string') {
        if (containerNames.has(c.name))
          out.push({ path: [...cat, 'name'], fn: 'validateContainers', message: `container name "${c.name}" is used twice in the pod` });
        containerNames.add(c.name);
      }
      const gracePeriod = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
      out.push(...containerProblems(c ?? {}, cat, { volumes: volumeNames, init: field === 'initContainers', features, gracePeriod }));
    });
  }
  for (const f of ['terminationGracePeriodSeconds', 'activeDeadlineSeconds'])
    if (typeof spec[f] === 'number' && spec[f] < (f === 'activeDeadlineSeconds' ? 1 : 0))
      out.push({ path: [...at, f], fn: 'ValidatePodSpec', message: `${f} must be ${f === 'activeDeadlineSeconds' ? 'at least 1' : 'non-negative'}` });
  if (spec.hostNetwork === true) {
    // With host networking a container port must equal its host port (validateHostNetwork).
    for (const field of ['initContainers', 'containers'])
      (list(spec[field]) as Obj[]).forEach((c, i) =>
        (list(c?.ports) as Obj[]).forEach((p, j) => {
          if (p?.hostPort !== undefined && p.hostPort !== 0 && p.hostPort !== p.containerPort)
            out.push({
              path: [...at, field, i, 'ports', j, 'hostPort'],
              fn: 'validateHostNetwork',
              message: `container ${String(c.name)}: with hostNetwork, hostPort ${String(p.hostPort)} must match containerPort ${String(p.containerPort)}`,
            });
        }),
      );
  }
  out.push(
    ...securityContextPodProblems(spec.securityContext, [...at, 'securityContext']),
    ...securityProfileProblems(spec, at),
    ...dnsProblems(spec, at, features),
    ...affinityProblems(spec.affinity, [...at, 'affinity'], features.has('MatchLabelKeysInPodAffinity') ? { labels } : undefined),
    ...topologySpreadProblems(spec.topologySpreadConstraints, [...at, 'topologySpreadConstraints'], { features, labels }),
    ...placementProblems(spec, at),
    ...identityProblems(spec, at),
  );
  return out;
}

/** ValidatePodSecurityContext's ranges: the pod's user, group and fsGroup ids. */
export function securityContextPodProblems(sc: Obj | undefined, path: PathSegment[]): Invalid[] {
  if (!sc || typeof sc !== 'object') return [];
  const out: Invalid[] = [];
  for (const f of ['runAsUser', 'runAsGroup', 'fsGroup'])
    if (typeof sc[f] === 'number' && (sc[f] < 0 || sc[f] > 2147483647))
      out.push({ path: [...path, f], fn: 'ValidatePodSecurityContext', message: `pod ${f} must be between 0 and 2147483647, inclusive` });
  return out;
}

/** A pod template: its metadata, its spec, and the restart policies its controller allows. */
export function validatePodTemplate(template: Obj | undefined, at: PathSegment[], restartPolicies: readonly string[], pod: PodOptions): Invalid[] {
  if (!template || typeof template !== 'object') return [];
  const out = [
    ...validateObjectMeta('Pod', template.metadata, [...at, 'metadata'], true),
    ...validatePodSpec(template.spec, [...at, 'spec'], { ...pod, labels: template.metadata?.labels }),
  ];
  const policy = template.spec?.restartPolicy;
  if (policy !== undefined && !restartPolicies.includes(policy))
    out.push({
      path: [...at, 'spec', 'restartPolicy'],
      fn: 'ValidatePodTemplateSpec',
      message: `restartPolicy "${String(policy)}" is not supported here: must be ${restartPolicies.join(' or ')}`,
    });
  return out;
}
