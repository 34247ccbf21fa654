/**
 * Equality as the API server compares an update (apiequality.Semantic.DeepEqual on the decoded, defaulted object):
 * an absent field, a null, an empty list and an empty map are one value (Go's nil and empty slices and maps);
 * quantities compare by value ("1Gi" is "1024Mi"); and a field a manifest may leave out equals its default. Two
 * renders of one object are compared so, since the object the cluster holds is the base's render, defaulted.
 */
import { dig, isMap, obj } from '../../model/core/dig.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import { imageParts } from '../../model/core/workloads.ts';

type Obj = Record<string, any>;

const isEmpty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** Maps whose values are quantities (resource.Quantity): compared by value. */
const QUANTITY_MAPS = new Set(['requests', 'limits', 'capacity', 'hard', 'allocatedResources']);

/** apiequality.Semantic.DeepEqual over two decoded manifests (`quantities`: both are a quantity map's, or one of its values). */
export function semanticEqual(a: unknown, b: unknown, quantities = false): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (quantities && (typeof a === 'string' || typeof a === 'number') && (typeof b === 'string' || typeof b === 'number')) {
    const [x, y] = [quantityValue(a), quantityValue(b)];
    if (x !== undefined && y !== undefined) return x === y;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!semanticEqual(a[k], b[k], quantities || QUANTITY_MAPS.has(k))) return false;
    return true;
  }
  return a === b;
}

/** The first key under which two records differ semantically, for saying what changed. */
export function firstDifference(a: unknown, b: unknown): string | undefined {
  const [x, y] = [isMap(a) ? a : {}, isMap(b) ? b : {}];
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].sort().find((k) => !semanticEqual(x[k], y[k], QUANTITY_MAPS.has(k)));
}

/** A copy without the keys whose value is the default (`defaults`: key to the value the API server fills in). */
export function withoutDefaults(o: unknown, defaults: Readonly<Record<string, unknown>>): Obj {
  if (!isMap(o)) return {};
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => !(k in defaults) || !semanticEqual(v, defaults[k])));
}

/** core/v1 SetDefaults_PullPolicy: Always for `latest` or no tag (and no digest), else IfNotPresent. */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const { tag, digest } = imageParts(image);
  return !digest && (!tag || tag === 'latest') ? 'Always' : 'IfNotPresent';
}

const PROBE_DEFAULTS = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
const MODE_DEFAULT = { defaultMode: 420 };

function canonicalProbe(p: unknown): Obj | undefined {
  if (!isMap(p)) return undefined;
  const out = withoutDefaults(p, PROBE_DEFAULTS);
  if (isMap(p.httpGet)) out.httpGet = withoutDefaults(p.httpGet, { scheme: 'HTTP' });
  return out;
}

function canonicalContainer(c: unknown): Obj {
  if (!isMap(c)) return {};
  const out = withoutDefaults(c, {
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: defaultPullPolicy(c.image),
  });
  if (Array.isArray(c.ports)) out.ports = c.ports.map((p) => withoutDefaults(p, { protocol: 'TCP' }));
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (c[probe] !== undefined) out[probe] = canonicalProbe(c[probe]);
  if (Array.isArray(c.env))
    out.env = c.env.map((e) => {
      const fieldRef = dig(e, ['valueFrom', 'fieldRef']);
      return isMap(fieldRef) ? { ...e, valueFrom: { ...obj(dig(e, ['valueFrom'])), fieldRef: withoutDefaults(fieldRef, { apiVersion: 'v1' }) } } : e;
    });
  // SetDefaults_ResourceList: a limit with no request is also the request.
  const [resources, limits] = [obj(c.resources), dig(c, ['resources', 'limits'])];
  if (isMap(limits)) out.resources = { ...resources, requests: { ...limits, ...obj(resources.requests) } };
  return out;
}

function canonicalVolume(v: unknown): unknown {
  if (!isMap(v)) return v;
  const out: Obj = { ...v };
  for (const source of ['configMap', 'secret', 'projected', 'downwardAPI']) if (isMap(v[source])) out[source] = withoutDefaults(v[source], MODE_DEFAULT);
  if (isMap(v.hostPath)) out.hostPath = withoutDefaults(v.hostPath, { type: '' });
  return out;
}

/**
 * A pod template as the API server holds it, reduced to what a manifest chose: the defaults core/v1's
 * SetDefaults_PodSpec, _Container, _Probe, _Volume and the rest fill in are left out on both sides alike.
 */
export function canonicalPodTemplate(template: unknown): Obj {
  if (!isMap(template)) return {};
  const spec = isMap(template.spec) ? template.spec : {};
  const out = withoutDefaults(spec, {
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
    terminationGracePeriodSeconds: 30,
    enableServiceLinks: true,
    hostNetwork: false,
    hostPID: false,
    hostIPC: false,
  });
  for (const list of ['containers', 'initContainers']) if (Array.isArray(spec[list])) out[list] = spec[list].map(canonicalContainer);
  if (Array.isArray(spec.volumes)) out.volumes = spec.volumes.map(canonicalVolume);
  return { metadata: template.metadata ?? {}, spec: out };
}
