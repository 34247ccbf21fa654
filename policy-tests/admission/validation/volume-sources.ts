/**
 * The volume sources that put files in a pod, as the API server judges them (k8s.io/kubernetes
 * pkg/apis/core/validation `validateConfigMapVolumeSource`, `validateSecretVolumeSource`,
 * `validateDownwardAPIVolumeSource`, `validateProjectedVolumeSource` and `validateProjectionSources`,
 * `validateKeyToPath`, `ValidateLocalNonReservedPath`): the object named, each file's mode at most 0777 (a
 * `defaultMode: 755` written as decimal is 1363 octal, and refused), each item's key and relative path, a
 * projection's sources one kind each, no two writing one path, a projected token living at least ten minutes.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { list } from '../../model/core/dig.ts';
import type { Invalid } from './metadata.ts';
import { isLocalDescendingPath } from './syntax.ts';
import { downwardApiItemProblems } from './downward-api.ts';
import { decodeQuantity } from '../../model/go/quantity.ts';

type Obj = Record<string, any>;

const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** A file mode the API server refuses: outside 0-0777, as an int32 holds it. */
function modeProblems(mode: unknown, at: PathSegment[], who: string, fn: string): Invalid[] {
  if (typeof mode !== 'number' || (mode >= 0 && mode <= 0o777)) return [];
  const octal = Number.isInteger(mode) && mode >= 0 ? ` (0${mode.toString(8)} in octal)` : '';
  return [{ path: at, fn, message: `${who}: ${String(at[at.length - 1])} ${mode}${octal}: ${FILE_MODE}` }];
}

/** ValidateLocalNonReservedPath: relative, no `..` element, not starting with `..` (said once). */
function localPathProblems(path: string, at: PathSegment[], who: string): Invalid[] {
  if (!isLocalDescendingPath(path)) return [{ path: at, fn: 'validateKeyToPath', message: `${who}: path "${path}" must be relative and may not contain '..'` }];
  if (path.startsWith('..')) return [{ path: at, fn: 'validateLocalNonReservedPath', message: `${who}: path "${path}": must not start with '..'` }];
  return [];
}

/** validateKeyToPath over a source's items (any key the API server admits). */
function keyToPathProblems(items: unknown, at: PathSegment[], who: string): Invalid[] {
  return (list(items) as Obj[]).flatMap((item, j) => {
    const where = (field: string) => [...at, j, field];
    const out: Invalid[] = [];
    for (const field of ['key', 'path'])
      if (str(item?.[field]) === '') out.push({ path: where(field), fn: 'validateKeyToPath', message: `${who}: items[${j}].${field}: Required value` });
    if (typeof item?.path === 'string') out.push(...localPathProblems(item.path, where('path'), who));
    return [...out, ...modeProblems(item?.mode, where('mode'), who, 'validateKeyToPath')];
  });
}

/** The object a configMap or secret source names (`name`, a Secret volume's `secretName`), required. */
function namedProblems(source: Obj, nameField: string, where: { at: PathSegment[]; who: string; fn: string }): Invalid[] {
  const { at, who, fn } = where;
  return str(source[nameField]) === '' ? [{ path: [...at, nameField], fn, message: `${who}: ${nameField}: Required value` }] : [];
}

/** The paths a projection's sources write, each once ("conflicting duplicate paths"). */
function duplicatePaths(paths: { path: string; at: PathSegment[] }[], who: string): Invalid[] {
  const seen = new Set<string>();
  return paths.flatMap(({ path, at }) => {
    if (path === '' || !seen.has(path)) return (seen.add(path), []);
    return [{ path: at, fn: 'validateProjectionSources', message: `${who}: path "${path}": conflicting duplicate paths` }];
  });
}

/** validateDownwardAPIVolumeFile over a downwardAPI volume's or projection's items, each file's mode with it. */
function downwardFileProblems(items: unknown, at: PathSegment[], who: string): Invalid[] {
  const modes = (list(items) as Obj[]).flatMap((item, j) => modeProblems(item?.mode, [...at, j, 'mode'], who, 'validateDownwardAPIVolumeFile'));
  return [...downwardApiItemProblems(items, at, who), ...modes];
}

/** The volume sources that name one object: the field that names it, and the function that judges them. */
const OBJECT_SOURCES = [
  ['configMap', 'name', 'validateConfigMapVolumeSource'],
  ['secret', 'secretName', 'validateSecretVolumeSource'],
] as const;

const PROJECTIONS = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];

/** One projected source: what validateProjectionSources asks of its kind, and the paths it writes. */
function projectionProblems(source: Obj, at: PathSegment[], who: string): { out: Invalid[]; paths: { path: string; at: PathSegment[] }[] } {
  const fn = 'validateProjectionSources';
  const out: Invalid[] = [];
  const paths: { path: string; at: PathSegment[] }[] = [];
  const kinds = PROJECTIONS.filter((k) => source?.[k] && typeof source[k] === 'object');
  if (kinds.length > 1) out.push({ path: at, fn, message: `${who}: may not specify more than 1 volume type per source (${kinds.join(', ')})` });
  for (const kind of ['secret', 'configMap'].filter((k) => kinds.includes(k))) {
    out.push(...namedProblems(source[kind], 'name', { at: [...at, kind], who, fn }), ...keyToPathProblems(source[kind].items, [...at, kind, 'items'], who));
    (list(source[kind].items) as Obj[]).forEach((item, j) => paths.push({ path: str(item?.path), at: [...at, kind, 'items', j, 'path'] }));
  }
  if (kinds.includes('downwardAPI')) {
    const items = list(source.downwardAPI.items) as Obj[];
    out.push(...downwardFileProblems(items, [...at, 'downwardAPI', 'items'], who));
    items.forEach((item, j) => paths.push({ path: str(item?.path), at: [...at, 'downwardAPI', 'items', j, 'path'] }));
  }
  if (kinds.includes('serviceAccountToken')) {
    const token = source.serviceAccountToken as Obj;
    const seconds = token.expirationSeconds;
    const tat = [...at, 'serviceAccountToken'];
    if (typeof seconds === 'number' && seconds < 600)
      out.push({ path: [...tat, 'expirationSeconds'], fn, message: `${who}: expirationSeconds ${seconds}: may not specify a duration less than 10 minutes` });
    if (typeof seconds === 'number' && seconds > 2 ** 32)
      out.push({
        path: [...tat, 'expirationSeconds'],
        fn,
        message: `${who}: expirationSeconds ${seconds}: may not specify a duration larger than 2^32 seconds`,
      });
    if (str(token.path) === '') out.push({ path: [...tat, 'path'], fn, message: `${who}: serviceAccountToken.path: Required value` });
    else out.push(...localPathProblems(token.path, [...tat, 'path'], who));
  }
  return { out, paths };
}

/** What validateVolumeSource asks of a volume's configMap, secret, downwardAPI or projected source. */
export function fileSourceProblems(v: Obj, vat: PathSegment[], who: string): Invalid[] {
  const out: Invalid[] = [];
  for (const [kind, nameField, fn] of OBJECT_SOURCES) {
    const source = v?.[kind];
    if (!source || typeof source !== 'object') continue;
    out.push(
      ...namedProblems(source, nameField, { at: [...vat, kind], who, fn }),
      ...modeProblems(source.defaultMode, [...vat, kind, 'defaultMode'], who, fn),
      ...keyToPathProblems(source.items, [...vat, kind, 'items'], who),
    );
  }
  if (v?.downwardAPI && typeof v.downwardAPI === 'object') {
    out.push(...modeProblems(v.downwardAPI.defaultMode, [...vat, 'downwardAPI', 'defaultMode'], who, 'validateDownwardAPIVolumeSource'));
    out.push(...downwardFileProblems(v.downwardAPI.items, [...vat, 'downwardAPI', 'items'], who));
  }
  if (v?.projected && typeof v.projected === 'object') {
    out.push(...modeProblems(v.projected.defaultMode, [...vat, 'projected', 'defaultMode'], who, 'validateProjectedVolumeSource'));
    const judged = (list(v.projected.sources) as Obj[]).map((source, i) => projectionProblems(source, [...vat, 'projected', 'sources', i], who));
    out.push(
      ...judged.flatMap((j) => j.out),
      ...duplicatePaths(
        judged.flatMap((j) => j.paths),
        who,
      ),
    );
  }
  return out;
}

/** ValidatePathNoBacksteps: no `..` element. */
const hasBacksteps = (p: string): boolean => p.split('/').includes('..');
/** validateCSIDriverName's pattern. */
const CSI_DRIVER_NAME = /^[a-zA-Z0-9][-a-zA-Z0-9_.]{0,61}[a-zA-Z-0-9]$/;

/**
 * What validateVolumeSource asks of the sources that are storage, not files (`validatePersistentClaimVolumeSource`,
 * `validateNFSVolumeSource`, `validateHostPathVolumeSource`, `validateCSIVolumeSource`,
 * `validateEphemeralVolumeSource`), and an emptyDir's sizeLimit not below zero: the claim named, the server and an absolute export path, a host path without `..`,
 * a CSI driver's name, an ephemeral volume's claim template. A host path's type the schema's enum already refuses.
 */
export function storageSourceProblems(v: Obj, vat: PathSegment[], who: string): Invalid[] {
  const out: Invalid[] = [];
  // validateVolumeSource: an emptyDir's sizeLimit below zero (a quantity that does not parse is the schema's finding).
  const sizeLimit = v?.emptyDir && typeof v.emptyDir === 'object' ? v.emptyDir.sizeLimit : undefined;
  const limit = sizeLimit === undefined || sizeLimit === null ? undefined : decodeQuantity(sizeLimit);
  if (limit?.ok && limit.quantity.digits < 0n)
    out.push({
      path: [...vat, 'emptyDir', 'sizeLimit'],
      fn: 'validateVolumeSource',
      message: `${who}: emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`,
    });
  const required = (kind: string, field: string, fn: string) => {
    if (v?.[kind] && typeof v[kind] === 'object' && str(v[kind][field]) === '')
      out.push({ path: [...vat, kind, field], fn, message: `${who}: ${kind}.${field}: Required value` });
  };
  required('persistentVolumeClaim', 'claimName', 'validatePersistentClaimVolumeSource');
  required('nfs', 'server', 'validateNFSVolumeSource');
  required('nfs', 'path', 'validateNFSVolumeSource');
  const nfsPath = str(v?.nfs?.path);
  if (v?.nfs && typeof v.nfs === 'object' && !nfsPath.startsWith('/'))
    out.push({
      path: [...vat, 'nfs', 'path'],
      fn: 'validateNFSVolumeSource',
      message: `${who}: nfs.path: Invalid value: "${nfsPath}": must be an absolute path`,
    });
  required('hostPath', 'path', 'validateHostPathVolumeSource');
  if (v?.hostPath && typeof v.hostPath === 'object') {
    const hostPath = str(v.hostPath.path);
    if (hasBacksteps(hostPath))
      out.push({
        path: [...vat, 'hostPath', 'path'],
        fn: 'validatePathNoBacksteps',
        message: `${who}: hostPath.path: Invalid value: "${hostPath}": must not contain '..'`,
      });
  }
  required('csi', 'driver', 'validateCSIVolumeSource');
  const driver = str(v?.csi?.driver);
  if (driver !== '' && (driver.length > 63 || !CSI_DRIVER_NAME.test(driver)))
    out.push({
      path: [...vat, 'csi', 'driver'],
      fn: 'validateCSIDriverName',
      message: `${who}: csi.driver: Invalid value: "${driver}": must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    });
  if (v?.ephemeral && typeof v.ephemeral === 'object' && (v.ephemeral.volumeClaimTemplate === undefined || v.ephemeral.volumeClaimTemplate === null))
    out.push({
      path: [...vat, 'ephemeral', 'volumeClaimTemplate'],
      fn: 'validateEphemeralVolumeSource',
      message: `${who}: ephemeral.volumeClaimTemplate: Required value`,
    });
  return out;
}

/** The sources a PersistentVolume may have (PersistentVolumeSource's fields). */
const PV_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'hostPath',
  'glusterfs',
  'nfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];

/**
 * ValidatePersistentVolumeSpec's rules beyond the schema's: its access modes and storage capacity, one source, and
 * that source's own rules (an NFS export, a host path, a CSI driver and volume handle). A reclaim policy outside the
 * schema's enum the schema layer refuses.
 */
export function persistentVolumeProblems(spec: Obj | undefined, at: PathSegment[]): Invalid[] {
  const fn = 'ValidatePersistentVolumeSpec';
  if (!spec || typeof spec !== 'object') return [];
  const out: Invalid[] = [];
  if (list(spec.accessModes).length === 0) out.push({ path: [...at, 'accessModes'], fn, message: 'spec.accessModes: Required value' });
  const capacity = spec.capacity && typeof spec.capacity === 'object' ? Object.keys(spec.capacity as Obj) : [];
  if (capacity.length === 0) out.push({ path: [...at, 'capacity'], fn, message: 'spec.capacity: Required value' });
  else if (!capacity.includes('storage') || capacity.length > 1)
    out.push({ path: [...at, 'capacity'], fn, message: `spec.capacity: Unsupported value: ${JSON.stringify(capacity)}: supported values: "storage"` });
  const sources = PV_SOURCES.filter((k) => spec[k] !== undefined && spec[k] !== null);
  if (sources.length === 0) out.push({ path: at, fn, message: 'spec: Required value: must specify a volume type' });
  if (sources.length > 1) out.push({ path: [...at, sources[1]!], fn, message: `spec.${sources[1]}: Forbidden: may not specify more than 1 volume type` });
  out.push(...storageSourceProblems({ nfs: spec.nfs, hostPath: spec.hostPath }, at, 'spec'));
  if (spec.csi && typeof spec.csi === 'object') {
    for (const field of ['driver', 'volumeHandle'])
      if (str(spec.csi[field]) === '')
        out.push({ path: [...at, 'csi', field], fn: 'validateCSIPersistentVolumeSource', message: `spec.csi.${field}: Required value` });
  }
  return out;
}
