/**
 * A container's volume mounts as the API server judges them (k8s.io/kubernetes pkg/apis/core/validation
 * `ValidateVolumeMounts`, `validateMountPropagation`, `validateMountRecursiveReadOnly`): each names a volume of the
 * pod (or a claim template of a StatefulSet), no mount path twice, `subPath` and `subPathExpr` exclusive and relative
 * without `..`; `Bidirectional` propagation only in a privileged container; a recursive read-only mount read-only,
 * without propagation.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { list } from '../../model/core/dig.ts';
import type { Invalid } from './metadata.ts';
import { isLocalDescendingPath } from './syntax.ts';

type Obj = Record<string, any>;

const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

/** validateMountPropagation and validateMountRecursiveReadOnly for one mount of container `c`. */
function mountModeProblems(m: Obj, c: Obj, mat: PathSegment[], who: string): Invalid[] {
  const out: Invalid[] = [];
  const propagation = m.mountPropagation;
  if (typeof propagation === 'string') {
    if (!PROPAGATIONS.includes(propagation))
      out.push({
        path: [...mat, 'mountPropagation'],
        fn: 'validateMountPropagation',
        message: `${who}: mountPropagation: Unsupported value: "${propagation}": supported values: ${PROPAGATIONS.map((p) => `"${p}"`).join(', ')}`,
      });
    else if (propagation === 'Bidirectional' && c.securityContext?.privileged !== true)
      out.push({
        path: [...mat, 'mountPropagation'],
        fn: 'validateMountPropagation',
        message: `${who}: mountPropagation: Bidirectional mount propagation is available only to privileged containers`,
      });
  }
  const rro = m.recursiveReadOnly;
  if (typeof rro !== 'string' || rro === 'Disabled') return out;
  const fn = 'validateMountRecursiveReadOnly';
  const path = [...mat, 'recursiveReadOnly'];
  if (!RECURSIVE_READ_ONLY.includes(rro))
    return [...out, { path, fn, message: `${who}: recursiveReadOnly: Unsupported value: "${rro}": supported values: "Disabled", "Enabled", "IfPossible"` }];
  if (m.readOnly !== true) out.push({ path, fn, message: `${who}: recursiveReadOnly may only be specified when readOnly is true` });
  if (propagation !== undefined && propagation !== 'None')
    out.push({ path, fn, message: `${who}: recursiveReadOnly may only be specified when mountPropagation is None or not specified` });
  return out;
}

/** ValidateVolumeMounts for container `c`, whose pod holds `volumes`. */
export function volumeMountProblems(c: Obj, at: PathSegment[], who: string, volumes: ReadonlySet<string>): Invalid[] {
  const out: Invalid[] = [];
  const mountPaths = new Set<string>();
  (list(c.volumeMounts) as Obj[]).forEach((m, i) => {
    const mat = [...at, 'volumeMounts', i];
    // An empty name or mount path is refused as missing (one left out, the schema's `required` already refuses).
    for (const f of ['name', 'mountPath'])
      if (m?.[f] === '') out.push({ path: [...mat, f], fn: 'ValidateVolumeMounts', message: `${who}: volumeMounts[${i}].${f}: Required value` });
    if (typeof m?.name === 'string' && m.name !== '' && !volumes.has(m.name))
      out.push({ path: [...mat, 'name'], fn: 'ValidateVolumeMounts', message: `${who}: volumeMount "${m.name}" names no volume of the pod` });
    if (typeof m?.mountPath === 'string') {
      if (mountPaths.has(m.mountPath))
        out.push({ path: [...mat, 'mountPath'], fn: 'ValidateVolumeMounts', message: `${who}: mountPath "${m.mountPath}" must be unique` });
      mountPaths.add(m.mountPath);
    }
    if (m?.subPath && m?.subPathExpr)
      out.push({ path: [...mat, 'subPathExpr'], fn: 'ValidateVolumeMounts', message: `${who}: subPathExpr and subPath are mutually exclusive` });
    for (const f of ['subPath', 'subPathExpr']) {
      const v = m?.[f];
      if (typeof v === 'string' && !isLocalDescendingPath(v))
        out.push({
          path: [...mat, f],
          fn: 'ValidateVolumeMounts (validateLocalDescendingPath)',
          message: `${who}: ${f} "${v}" must be a relative path without '..'`,
        });
    }
    if (m && typeof m === 'object') out.push(...mountModeProblems(m, c, mat, who));
  });
  return out;
}
