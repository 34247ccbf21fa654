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
